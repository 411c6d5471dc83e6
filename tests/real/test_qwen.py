"""Qwen Code, installed from npm by the harness, against the scripted model's chat
completions (streamed): a few fast probes in the default run (the catalog runs nightly with
`probe bump`)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

QWEN = "qwen@0.24.4"


def test_hang_pretool_is_killed_at_its_timeout_and_the_tool_runs(run_probe):
    ev = run_probe(QWEN, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "0.24.4"
    assert ev["executed_version_source"] == "model request User-Agent"
    assert ev["network"] == "isolated"
    assert ev["outcome"] == "fail-open"
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3
    assert 2.5 <= obs["tool_delay_s"] <= 8.0
    assert all(r["user_agent"].startswith("QwenCode/0.24.4 ") for r in ev["model_requests"])


def test_payload_takes_claudes_shape_and_every_event_fires(run_probe):
    ev = run_probe(QWEN, "payload-pretool")
    obs = ev["observations"]
    assert obs["tool_name"] == "run_shell_command" and obs["tool_args_type"] == "object"
    events = {i["event"] for i in ev["invocations"]}
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} <= events
    pre = next(i for i in ev["invocations"] if i["event"] == "PreToolUse")
    assert pre["payload"]["hook_event_name"] == "PreToolUse"
    assert pre["env"].get("QWEN_PROJECT_DIR") and pre["env"].get("OPENAI_API_KEY") == "<redacted>"
