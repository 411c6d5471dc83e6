"""Auggie, installed from npm by the harness, against the scripted model speaking Augment's own
API (get-models with hooks on, chat-stream): a few fast probes in the default run."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

AUGGIE = "auggie@0.36.0"


def test_hang_pretool_is_killed_at_its_timeout_and_the_tool_runs(run_probe):
    ev = run_probe(AUGGIE, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "0.36.0"
    assert ev["executed_version_source"] == "model request User-Agent"
    assert ev["network"] == "isolated"
    assert ev["outcome"] == "fail-open"
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3  # written as 3000 ms
    assert 2.5 <= obs["tool_delay_s"] <= 8.0
    paths = [r["path"] for r in ev["model_requests"]]
    assert paths[0] == "/get-models" and "/chat-stream" in paths
    assert all(r["user_agent"].startswith("augment.cli/0.36.0 ") for r in ev["model_requests"])
    assert ev["cleanup"]["alive_at_cli_exit"] == 0


def test_a_claude_shaped_deny_stops_the_tool(run_probe):
    ev = run_probe(AUGGIE, "deny-json-pretool")
    assert ev["outcome"] == "denied" and ev["observations"]["tool_ran"] is False


def test_payload_events_are_augments_own(run_probe):
    ev = run_probe(AUGGIE, "payload-pretool")
    events = [i["event"] for i in ev["invocations"]]
    assert events[:5] == ["SessionStart", "PromptSubmit", "PreToolUse", "PostToolUse", "Stop"]
    pre = next(i for i in ev["invocations"] if i["event"] == "PreToolUse")
    assert pre["payload"]["tool_name"] == "launch-process" and pre["payload"]["workspace_roots"]  # not session_id, cwd
