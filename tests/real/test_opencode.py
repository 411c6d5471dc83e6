"""opencode, installed from npm by the harness, its hooks relayed by the probe's plugin
(probes/runner/opencode_relay.mjs) against the scripted model's chat completions: a few fast
probes in the default run."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

OPENCODE = "opencode@1.18.33"


def test_hang_pretool_is_killed_at_its_timeout_and_opencode_blocks_the_tool(run_probe):
    ev = run_probe(OPENCODE, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "1.18.33"
    assert ev["executed_version_source"] == "model request User-Agent"
    assert ev["network"] == "isolated" and ".opencode/plugins/probe-relay.js" in ev["route"]
    assert ev["outcome"] == "fail-closed"  # the relay throws; opencode fails a tool whose tool.execute.before throws
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3
    assert "probe relay: hook 0-pre_tool timed out after 3 s" in ev["model_requests"][-1]["messages"][-1]["text"]


def test_payload_is_the_plugin_hooks_input_and_output(run_probe):
    ev = run_probe(OPENCODE, "payload-pretool")
    events = [i["event"] for i in ev["invocations"]]
    assert events == ["session.created", "chat.message", "tool.execute.before", "tool.execute.after", "session.idle"]
    pre = next(i for i in ev["invocations"] if i["event"] == "tool.execute.before")
    assert pre["payload"]["hook"] == "tool.execute.before" and pre["payload"]["input"]["tool"] == "bash"
    assert pre["payload"]["output"] == {"args": {"command": "echo ran > probe-marker-0.txt"}}
    assert ev["observations"]["tool_name"] == "bash"


def test_a_stop_hook_is_not_waited_for(run_probe):
    ev = run_probe(OPENCODE, "hang-stop")  # session.idle goes to the plugin's event hook, which opencode does not await
    assert ev["outcome"] == "abandoned" and ev["cli"]["exit_code"] == 0
