"""Classifiers against the committed evidence of real runs (results/<agent>/<version>/), and
against the same evidence altered, to show each label can come out otherwise."""

from __future__ import annotations

import copy
import json
import re

import pytest

from probes.catalog.recipes import load_all
from probes.catalog.setup import stem
from probes.classify import SESSION_KEYS, label
from probes.evidence.model import load_evidence
from tests.helpers import ROOT, fixture

FIXTURES = ROOT / "results"
CASES = sorted(FIXTURES.glob("*/*/*.json"))
RECIPES = load_all()


def explained() -> set[tuple[str, ...]]:
    """(agent@version, recipe) of every check in results/FINDINGS.md: a label its control shares
    there is explained by a finding (an event that version does not have, ...)."""
    text = (FIXTURES / "FINDINGS.md").read_text(encoding="utf-8")
    return {tuple(head.split()[:2]) for head in re.findall(r"<!--\s*check:\s*([^;]*);", text)}


def session(ev: dict) -> dict:
    return {k: copy.deepcopy(ev.get(k)) for k in SESSION_KEYS}  # older records lack newer keys


def classify(ev_or_session: dict, recipe: str):
    return label(RECIPES[recipe].classifier, ev_or_session)


@pytest.mark.parametrize("path", CASES, ids=lambda p: "/".join(p.parts[-3:]))
def test_committed_evidence_classifies_again_the_same(path):
    ev = load_evidence(path)  # refs resolved: the record as a classifier reads it
    if ev.get("compacted"):  # its session is not stored (evidence/compaction.py): it was classified whole
        assert ev["invocations"] == ev["model_requests"] == [] and ev["compacted"]["full_sha256"]
        return
    assert classify(session(ev), ev["recipe"]) == (ev["outcome"], ev["observations"])


PINNED = [
    ("copilot", "1.0.92"),
    ("copilot", "1.0.80"),
    ("copilot", "1.0.71"),
    ("claude", "2.1.328"),
    ("vscode", "4.139.1"),
    ("vscode", "4.135.0"),
]


@pytest.mark.parametrize("agent, version", PINNED)
def test_every_recipe_has_evidence_that_disagrees_with_its_control(agent, version):
    """Per pinned version: every recipe that applies has committed evidence, and its label
    differs from its control's, in its default setup or in one it declares (VS Code's
    SIGTERM-ignoring hook and the one that honours SIGTERM both hold the turn under dash; bash
    tells them apart), unless a finding names that record and its control's (PreSkillShellCommand
    on a release before it existed). test_real.py re-runs each and checks the label still holds."""
    named = explained()
    for name, recipe in RECIPES.items():
        if agent not in recipe.agents:
            continue
        path = FIXTURES / agent / version / f"{name}.json"
        assert path.exists(), f"no evidence: probe run {agent}@{version} {name}"
        control = recipe.control_for(agent)
        if not control:
            continue
        keys = ["", *(recipe.for_agent(agent, s).setup_key for s in recipe.declared_setups(agent))]
        pairs = [tuple(path.parent / f"{stem(n, key)}.json" for n in (name, control)) for key in keys]
        assert pairs[0][1].exists(), f"no evidence: probe run {agent}@{version} {control}"
        differ = [
            json.loads(a.read_text())["outcome"] != json.loads(b.read_text())["outcome"]
            for a, b in pairs
            if a.exists() and b.exists()
        ]
        ok = {(f"{agent}@{version}", n) for n in (name, control)} <= named
        assert any(differ) or ok, (name, control, keys)


def test_liveness_labels():
    ev = session(fixture("copilot", "1.0.92", "hang-pretool"))
    assert classify(ev, "hang-pretool")[0] == "fail-open"
    no_tool = {**ev, "side_effects": []}
    assert classify(no_tool, "hang-pretool")[0] == "fail-closed"
    held = {**no_tool, "cli": {**ev["cli"], "timed_out": True}}
    assert classify(held, "hang-pretool")[0] == "held"
    assert classify({**ev, "invocations": []}, "hang-pretool")[0] == "no-hook"
    normal = session(fixture("copilot", "1.0.92", "hang-pretool-control"))
    assert classify(normal, "hang-pretool")[0] == "allowed"
    assert classify({**normal, "side_effects": []}, "hang-pretool")[0] == "denied"


def test_hang_tool_delay_comes_from_hook_start_and_side_effect():
    ev = session(fixture("claude", "2.1.328", "hang-pretool"))
    inv = ev["invocations"][0]
    ev["side_effects"][0]["offset_s"] = inv["start_offset_s"] + 4.5
    assert classify(ev, "hang-pretool")[1]["tool_delay_s"] == 4.5


def test_decision_reason_is_read_off_requests_after_the_hook():
    ev = session(fixture("claude", "2.1.328", "exit2-pretool"))
    outcome, obs = classify(ev, "exit2-pretool")
    assert (outcome, obs["reason_reached_model"]) == ("denied", True)
    for req in ev["model_requests"]:
        req["sentinels"] = {}
    assert classify(ev, "exit2-pretool")[1]["reason_reached_model"] is False
    early = session(fixture("claude", "2.1.328", "exit2-pretool"))
    early["invocations"][0]["start_offset_s"] = 1e9  # every request came before the hook
    assert classify(early, "exit2-pretool")[1]["reason_reached_model"] is False


@pytest.mark.parametrize(
    "agent, version, args_type",
    [("copilot", "1.0.80", "string"), ("copilot", "1.0.92", "object"), ("claude", "2.1.328", "object")],
)
def test_payload_tool_args_type(agent, version, args_type):
    outcome, obs = classify(session(fixture(agent, version, "payload-pretool")), "payload-pretool")
    assert outcome == "recorded" and obs["tool_args_type"] == args_type
    assert set(obs) >= {"fields", "tool_name", "tool_args_field", "fields_by_event", "event_order"}


def test_a_tool_delay_is_absent_where_the_tool_ran_before_the_hook():
    """Post-tool, stop and session-end hooks start after the tool: no delay, not a negative one."""
    for agent, version in PINNED:
        for recipe in ("hang-posttool", "hang-stop", "hang-session-end", "crash-posttool"):
            if agent not in RECIPES[recipe].agents:
                continue
            obs = classify(session(fixture(agent, version, recipe)), recipe)[1]
            assert obs["tool_ran"] and obs["tool_delay_s"] is None, (agent, version, recipe)
    ev = session(fixture("copilot", "1.0.92", "hang-pretool"))
    ev["side_effects"][0]["offset_s"] = ev["invocations"][0]["start_offset_s"] - 0.5  # ran before the hook
    assert classify(ev, "hang-pretool")[1]["tool_delay_s"] is None
    for path in CASES:
        delay = load_evidence(path)["observations"].get("tool_delay_s")
        assert delay is None or delay >= 0, path


def test_tools_ran_counts_every_scripted_call_that_ran():
    ev = session(fixture("copilot", "1.0.92", "ext-exit-pretool"))
    assert classify(ev, "ext-exit-pretool")[1]["tools_ran"] == 2
    ev["side_effects"] = [m for m in ev["side_effects"] if m["step"] == 0]
    assert classify(ev, "ext-exit-pretool")[1]["tools_ran"] == 1


def test_a_cli_held_by_a_grandchild_holding_stdout_has_its_own_label():
    """Copilot 1.0.71-1.0.92 wait on the hook's stdout, which its grandchild holds: the tool
    never runs within the budget. 1.0.102 runs it 5 s later, leaving the grandchild."""
    labels = {
        v: classify(session(fixture("copilot", v, "grandchild-stdout-pretool")), "grandchild-stdout-pretool")[0]
        for v in ("1.0.71", "1.0.80", "1.0.92", "1.0.102")
    }
    assert labels == {
        "1.0.71": "held-by-stdout",
        "1.0.80": "held-by-stdout",
        "1.0.92": "held-by-stdout",
        "1.0.102": "grandchild-orphaned",
    }
    held = session(fixture("copilot", "1.0.92", "grandchild-stdout-pretool"))
    held["hooks"][0]["behavior"] = {"grandchild": "session"}  # a grandchild that holds nothing of the hook's
    assert classify(held, "grandchild-stdout-pretool")[0] == "held-by-grandchild"
    assert (
        classify(session(fixture("claude", "2.1.328", "grandchild-stdout-pretool")), "grandchild-stdout-pretool")[0]
        == "grandchild-orphaned"
    )


def test_secrets_passed_are_the_credentials_the_harness_gave():
    """Not a name pattern on what the hook got: GIT_CONFIG_KEY_0 (Copilot's) and
    CLAUDE_CODE_MESSAGING_TOKEN (Claude Code's own) are variables the CLI adds."""
    copilot = classify(session(fixture("copilot", "1.0.92", "env-pretool")), "env-pretool")[1]
    assert copilot["secrets_passed"] == ["GH_TOKEN"]
    assert "GIT_CONFIG_KEY_0" in copilot["added"]
    claude = classify(session(fixture("claude", "2.1.328", "env-pretool")), "env-pretool")[1]
    assert claude["secrets_passed"] == ["ANTHROPIC_API_KEY", "GH_TOKEN", "GITHUB_TOKEN", "OPENAI_API_KEY"]
    assert "CLAUDE_CODE_MESSAGING_TOKEN" in claude["added"]
    ev = session(fixture("claude", "2.1.328", "env-pretool"))
    ev["cli"]["secrets_given"] = ["GH_TOKEN"]  # what a newer record says the harness gave
    assert classify(ev, "env-pretool")[1]["secrets_passed"] == ["GH_TOKEN"]
