from probes.claims import judge
from probes.recipes import Claim

CLAIM = Claim(
    source="copilot changelog 1.0.72",
    says="bounded after 8 blocks",
    agent="copilot",
    since="1.0.72",
    outcome="bounded",
    observation={"stop_hook_active_later": ["True"]},
)


def test_a_claim_agrees_when_outcome_and_observations_match():
    (c,) = judge([CLAIM], "copilot", "1.0.92", "bounded", {"stop_hook_active_later": ["True"]})
    assert c["agrees"] is True and c["since"] == "1.0.72"


def test_a_claim_disagrees_on_another_outcome_or_observation():
    assert judge([CLAIM], "copilot", "1.0.92", "unbounded", {"stop_hook_active_later": ["True"]})[0]["agrees"] is False
    assert judge([CLAIM], "copilot", "1.0.92", "bounded", {"stop_hook_active_later": []})[0]["agrees"] is False


def test_a_claim_does_not_apply_before_its_version_or_to_another_agent():
    assert judge([CLAIM], "copilot", "1.0.71", "unbounded", {})[0]["agrees"] is None
    assert judge([CLAIM], "copilot", "1.0.72-1", "unbounded", {})[0]["agrees"] is None  # a pre-release of it
    assert judge([CLAIM], "claude", "2.1.328", "bounded", {}) == []
