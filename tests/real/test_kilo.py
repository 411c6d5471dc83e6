"""Kilo Code (@kilocode/cli), installed from npm by the harness, its hooks relayed by opencode's
relay plugin (probes/runner/opencode_relay.mjs) written into .kilo/plugins/, against the
scripted model's chat completions: a fast probe in the default run."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

KILO = "kilo@7.7.7"


def test_hang_pretool_is_killed_at_its_timeout_and_kilo_stops_the_tool(run_probe):
    ev = run_probe(KILO, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "7.7.7"
    assert ev["executed_version_source"] == "model request User-Agent"  # Kilo-Code/7.7.7
    assert ev["network"] == "isolated" and ".kilo/plugins/probe-relay.js" in ev["route"]
    assert ev["outcome"] == "fail-closed"  # the relay throws at the timeout; Kilo stops the tool
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3
    assert "probe relay: hook 0-pre_tool timed out after 3 s" in ev["model_requests"][-1]["messages"][-1]["text"]
