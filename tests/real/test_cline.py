"""Cline CLI, installed from npm by the harness, against the scripted model's chat completions
(streamed): a few fast probes of its two generations (3.x, the SDK-built binary; 2.x, the Node
bundle of the extension's core). The catalog runs nightly with `probe bump`."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real

CLINE = "cline@3.0.65"
LEGACY = "cline@2.14.0"


def test_a_denying_hook_is_answered_in_clines_shape_and_the_hub_daemon_does_not_outlive_the_run(run_probe):
    ev = run_probe(CLINE, "deny-json-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "3.0.65"
    assert ev["executed_version_source"] == "session record metadata.sessionHistoryOrigin.version"
    assert ev["network"] == "isolated"
    assert ev["outcome"] == "denied"
    (pre,) = [i for i in ev["invocations"] if i["event"] == "PreToolUse"]
    assert pre["payload"]["hookName"] == "tool_call"  # the SDK's name, not the documented PreToolUse
    assert pre["payload"]["preToolUse"]["toolName"] == "run_commands"
    # its hub daemon (`cline --cline-hub-daemon`) is still alive when the CLI exits: the sweep kills it
    assert ev["cleanup"]["killed_by_harness"] >= 1


def test_the_legacy_generation_runs_documented_payloads_and_reads_its_version_from_the_task(run_probe):
    ev = run_probe(LEGACY, "deny-json-pretool-control")
    assert ev["executed_version"] == "2.14.0"
    assert ev["executed_version_source"] == "task metadata environment_history host_version"
    assert ev["outcome"] == "allowed"
    (pre,) = [i for i in ev["invocations"] if i["event"] == "PreToolUse"]
    assert pre["payload"]["hookName"] == "PreToolUse" and pre["payload"]["preToolUse"]["toolName"] == "execute_command"
    assert pre["payload"]["clineVersion"] != "2.14.0"  # the extension core's version (3.78.0), not the CLI's
