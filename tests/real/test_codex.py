"""Codex CLI, installed from npm by the harness, against the scripted model's Responses
dialect: two fast probes in every run (the whole catalog is its committed evidence, re-run
with `probe matrix --agent codex`). Unit checks of its module need no install."""

from __future__ import annotations

import pytest

from tests.helpers import CODEX


@pytest.mark.real
def test_payload_reaches_every_event_with_the_version_read_back(run_probe):
    ev = run_probe(CODEX, "payload-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "0.171.0"
    assert ev["executed_version_source"] == "model request User-Agent"
    assert ev["network"] == "isolated" and ev["outcome"] == "recorded"
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} <= set(ev["invocations_by_event"])
    assert ev["observations"]["tool_name"] == "Bash"


@pytest.mark.real
def test_hang_pretool_is_killed_by_the_cli_and_fails_open(run_probe):
    ev = run_probe(CODEX, "hang-pretool")
    obs = ev["observations"]
    assert ev["outcome"] == "fail-open" and obs["hook_killed_by"] == "cli"
    assert 2.5 < obs["hook_lifetime_s"] < 10  # its 3 s timeout, not the budget
