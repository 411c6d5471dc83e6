"""Factory droid, its binary package installed from npm by the harness, against the scripted
model's chat completions (a custom model in its user settings): a few fast probes in the default
run (the catalog runs nightly with `probe bump`)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

DROID = "droid@0.225.2"


def test_hang_pretool_is_killed_at_its_timeout_and_the_tool_runs(run_probe):
    ev = run_probe(DROID, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "0.225.2"
    assert ev["executed_version_source"] == "model request User-Agent"
    assert ev["network"] == "isolated"
    assert ev["outcome"] == "fail-open"
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3
    assert 2.5 <= obs["tool_delay_s"] <= 8.0
    assert all(r["user_agent"] == "factory-cli/0.225.2" for r in ev["model_requests"])
    assert ev["cleanup"]["alive_at_cli_exit"] == 0  # nothing of droid's outlives its session


def test_payload_takes_claudes_shape_and_exec_fires_no_prompt_submit(run_probe):
    ev = run_probe(DROID, "payload-pretool")
    obs = ev["observations"]
    assert obs["tool_name"] == "Execute" and obs["tool_args_type"] == "object"
    events = [i["event"] for i in ev["invocations"]]
    assert events == ["SessionStart", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    pre = next(i for i in ev["invocations"] if i["event"] == "PreToolUse")
    assert pre["payload"]["hook_event_name"] == "PreToolUse"
    assert pre["env"].get("FACTORY_PROJECT_DIR") and pre["env"].get("FACTORY_API_KEY") == "<redacted>"


def test_a_hook_exiting_3_ends_the_exec_session(run_probe):
    ev = run_probe(DROID, "exit3-pretool")
    assert ev["outcome"] == "fail-closed" and ev["model_request_count"] == 1
    assert ev["cli"]["exit_code"] == 0 and ev["observations"]["hook_exit"] == "exit 3"
