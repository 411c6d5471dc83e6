import pytest

from probes.catalog.parts import PRECONDITION_NAMES, Claim, Needs
from probes.catalog.recipes import load_all
from probes.evidence.claims import PRECONDITIONS, Run, judge, verdict_of
from probes.evidence.model import load_evidence
from tests.helpers import ROOT

CLAIM = Claim(
    source="copilot changelog 1.0.72",
    says="bounded after 8 blocks",
    agent="copilot",
    since="1.0.72",
    outcome="bounded",
    observation={"stop_hook_active_later": ["True"]},
)
RESULTS = ROOT / "results"


def run(budget_s: float | None = 20.0, tool_calls: int = 1, env: tuple[str, ...] = ()) -> Run:
    return Run(budget_s=budget_s, tool_calls=tool_calls, env_names=frozenset(env))


def test_a_claim_agrees_when_outcome_and_observations_match():
    (c,) = judge([CLAIM], "copilot", "1.0.92", "bounded", {"stop_hook_active_later": ["True"]})
    assert c["agrees"] is True and c["since"] == "1.0.72"
    assert (c["verdict"], c["applies"]) == ("agrees", True)
    assert c["reason"] == "outcome bounded; stop_hook_active_later ['True']"


def test_a_claim_disagrees_on_another_outcome_or_observation():
    (c,) = judge([CLAIM], "copilot", "1.0.92", "unbounded", {"stop_hook_active_later": ["True"]})
    assert (c["agrees"], c["verdict"]) == (False, "disagrees")
    assert "outcome unbounded, the claim says bounded" in c["reason"]
    assert judge([CLAIM], "copilot", "1.0.92", "bounded", {"stop_hook_active_later": []})[0]["verdict"] == "disagrees"


def test_a_claim_is_untested_before_its_version_and_absent_for_another_agent():
    (c,) = judge([CLAIM], "copilot", "1.0.71", "unbounded", {})
    assert (c["agrees"], c["verdict"], c["applies"]) == (None, "untested", False)
    assert c["reason"] == "the claim names copilot 1.0.72 and later, not this version"
    assert judge([CLAIM], "copilot", "1.0.72-1", "unbounded", {})[0]["agrees"] is None  # a pre-release of it
    assert judge([CLAIM], "claude", "2.1.328", "bounded", {}) == []
    (unknown,) = judge([CLAIM], "copilot", None, "bounded", {})
    assert unknown["verdict"] == "untested" and "version is not known" in unknown["reason"]


LONG = Claim(source="docs", says="times out after 600 s", agent="claude", outcome="fail-open", needs=Needs(budget_s=615))


def test_a_budget_shorter_than_the_claim_leaves_it_untested_whatever_the_outcome():
    for outcome in ("held", "fail-open"):
        (c,) = judge([LONG], "claude", "2.1.328", outcome, {}, run(budget_s=40))
        assert (c["verdict"], c["agrees"], c["applies"]) == ("untested", None, True)
        assert c["reason"] == "the run's budget (40 s) is shorter than the 615 s the claim is about"
    assert judge([LONG], "claude", "2.1.328", "fail-open", {}, run(budget_s=660))[0]["verdict"] == "agrees"
    assert judge([LONG], "claude", "2.1.328", "held", {}, run(budget_s=660))[0]["verdict"] == "disagrees"
    assert "not known" in judge([LONG], "claude", "2.1.328", "held", {}, run(budget_s=None))[0]["reason"]
    assert judge([LONG], "claude", "2.1.328", "held", {})[0]["verdict"] == "untested"  # nothing known of the run


def test_a_claim_about_a_later_call_needs_a_recipe_that_makes_it():
    later = Claim(source="adr", says="later calls ran", agent="copilot", observation={"tools_ran": 2}, needs=Needs(tool_calls=2))
    (c,) = judge([later], "copilot", "1.0.92", "fail-open", {"tools_ran": 1}, run(tool_calls=1))
    assert c["verdict"] == "untested" and c["reason"] == "the recipe makes 1 tool call; the claim is about call 2 or later"
    assert judge([later], "copilot", "1.0.92", "fail-open", {"tools_ran": 2}, run(tool_calls=2))[0]["verdict"] == "agrees"
    assert judge([later], "copilot", "1.0.92", "fail-open", {"tools_ran": 1}, run(tool_calls=2))[0]["verdict"] == "disagrees"


def test_a_precondition_the_run_did_not_set_up_leaves_the_claim_untested():
    trace = Claim(
        source="cl", says="traceparent", agent="copilot", observation={"traceparent": True}, needs=Needs(precondition="trace")
    )
    (c,) = judge([trace], "copilot", "1.0.92", "recorded", {"traceparent": False}, run())
    assert c["verdict"] == "untested" and c["reason"].startswith("no trace was started")
    on = run(env=("COPILOT_OTEL_ENABLED",))
    assert judge([trace], "copilot", "1.0.92", "recorded", {"traceparent": False}, on)[0]["verdict"] == "disagrees"
    status = Claim(
        source="adr", says="the extension showed failed", agent="copilot", needs=Needs(precondition="extension-status")
    )
    assert judge([status], "copilot", "1.0.92", "fail-open", {}, on)[0]["verdict"] == "untested"
    assert set(PRECONDITIONS) == set(PRECONDITION_NAMES)


def test_within_bounds_a_measured_observation():
    c = Claim(source="docs", says="defaults to 30 s", agent="copilot", within={"hook_lifetime_s": (29, 32)})
    assert judge([c], "copilot", "1.0.92", "fail-open", {"hook_lifetime_s": 30.01})[0]["verdict"] == "agrees"
    (late,) = judge([c], "copilot", "1.0.92", "fail-open", {"hook_lifetime_s": 35.0})
    assert late["verdict"] == "disagrees" and late["reason"] == "hook_lifetime_s 35.0 outside [29, 32]"
    assert judge([c], "copilot", "1.0.92", "held", {"hook_lifetime_s": None})[0]["verdict"] == "disagrees"
    with pytest.raises(ValueError, match="empty"):
        Claim(source="d", says="s", agent="copilot", within={"x": (3, 1)})


def test_run_counts_the_tool_calls_the_recipe_scripts():
    recipes = load_all()
    assert Run.of(recipes["ext-exit-pretool"].for_agent("copilot"), {"budget_s": 12}).tool_calls == 2
    assert Run.of(recipes["hang-pretool"].for_agent("copilot"), {"budget_s": 20}).budget_s == 20
    assert Run.of(recipes["multi-prompt-interactive"].for_agent("claude"), {}).tool_calls >= 1


def test_older_records_read_their_verdict_from_agrees():
    assert [verdict_of({"agrees": a}) for a in (True, False, None)] == ["agrees", "disagrees", "untested"]
    assert verdict_of({"agrees": None, "verdict": "untested"}) == "untested"


def test_every_committed_claim_has_a_verdict_and_a_reason():
    """A claim that agrees or disagrees is one its run could show: its needs are met."""
    for path in RESULTS.glob("*/*/*.json"):
        for c in load_evidence(path)["claims"]:
            assert c["verdict"] in ("agrees", "disagrees", "untested") and c["reason"], path
            assert c["agrees"] == {"agrees": True, "disagrees": False, "untested": None}[c["verdict"]], path


def test_the_audited_claims_are_untested_where_their_run_cannot_show_them():
    def claims(agent: str, version: str, recipe: str) -> list[dict]:
        return load_evidence(RESULTS / agent / version / f"{recipe}.json")["claims"]

    (timeout,) = claims("claude", "2.1.328", "default-timeout-pretool")
    assert timeout["verdict"] == "untested" and "budget (40 s)" in timeout["reason"]
    (hang,) = claims("copilot", "1.0.92", "ext-hang-pretool")
    assert hang["verdict"] == "untested" and "budget (10 s)" in hang["reason"]
    ran, later, status = claims("copilot", "1.0.92", "ext-exit-pretool")
    assert (ran["verdict"], later["verdict"], status["verdict"]) == ("agrees", "agrees", "untested")
    for version in ("1.0.81", "1.0.92", "1.0.102"):
        trace = claims("copilot", version, "payload-pretool")[0]
        assert trace["verdict"] == "untested" and trace["reason"].startswith("no trace was started")


def test_a_claim_names_only_known_needs():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        Claim(source="d", says="s", agent="copilot", needs={"precondition": "a-full-moon"})
    with pytest.raises(ValidationError):
        Claim(source="d", says="s", agent="copilot", needs={"budget_s": 0})
    with pytest.raises(ValidationError):
        Claim(source="d", says="s", agent="copilot", needs={"minutes": 3})
