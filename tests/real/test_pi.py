"""pi, installed from npm by the harness, its hooks relayed by the probe's extension
(probes/runner/pi_relay.mjs) against the scripted model's chat completions: a few fast probes in
the default run."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

PI = "pi@0.73.1"


def test_hang_pretool_is_killed_at_its_timeout_and_pi_blocks_the_tool(run_probe):
    ev = run_probe(PI, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "0.73.1"
    assert ev["executed_version_source"] == "relay extension: the running pi's VERSION export"
    assert ev["network"] == "isolated" and "probe-relay.ts" in ev["route"]
    assert ev["outcome"] == "fail-closed"  # the relay throws; pi blocks a tool_call whose handler fails
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3
    assert "probe relay: hook 0-pre_tool timed out after 3 s" in ev["model_requests"][-1]["messages"][-1]["text"]


def test_payload_is_pis_own_event_object_for_each_event(run_probe):
    ev = run_probe(PI, "payload-pretool")
    events = [i["event"] for i in ev["invocations"]]
    assert events[:4] == ["session_start", "input", "tool_call", "tool_result"]
    # pi -p does not await agent_end handlers (FINDINGS): session_shutdown may start first
    assert "agent_end" in events[4:]
    pre = next(i for i in ev["invocations"] if i["event"] == "tool_call")
    assert pre["payload"]["type"] == "tool_call" and pre["payload"]["toolName"] == "bash"
    assert pre["payload"]["input"] == {"command": "echo ran > probe-marker-0.txt"}


def test_a_deny_reaches_the_model_as_the_tool_result(run_probe):
    ev = run_probe(PI, "deny-json-pretool")
    assert ev["outcome"] == "denied" and ev["observations"]["reason_reached_model"] is True
