"""Copilot's second hook surface, SDK extensions, for real: the instrumented extension is
loaded the way the harness found each version needs, and its handler calls are recorded."""

from __future__ import annotations

import pytest

from tests.helpers import COPILOT, COPILOT_OLDER, probe_cmd

pytestmark = pytest.mark.real


@pytest.mark.parametrize("spec", [COPILOT, COPILOT_OLDER])
def test_hanging_pretool_handler_holds_the_tool(spec, run_probe):
    ev = run_probe(spec, "ext-hang-pretool")
    assert (ev["surface"], ev["outcome"]) == ("extension", "held")
    assert "COPILOT_CLI_ENABLED_FEATURE_FLAGS=EXTENSIONS" in ev["route"]
    (inv,) = ev["invocations"]
    assert (inv["surface"], inv["event"], inv["extension_result"]) == ("extension", "onPreToolUse", None)
    assert inv["payload"]["toolName"] == "bash"
    assert not ev["observations"]["tool_ran"] and ev["cli"]["timed_out"]
    assert inv["killed_by"] == "harness"  # nothing in the CLI ever gave up on the handler
    control = run_probe(spec, "ext-hang-pretool-control")
    assert control["outcome"] == "allowed" and control["invocations"][0]["extension_result"] == "returned"


def test_throwing_and_exiting_handlers_fail_open(run_probe):
    threw = run_probe(COPILOT, "ext-throw-pretool")
    assert threw["outcome"] == "fail-open" and threw["invocations"][0]["extension_result"] == "threw"
    assert threw["observations"]["hook_exit"] == "threw"
    exited = run_probe(COPILOT, "ext-exit-pretool")
    assert exited["outcome"] == "fail-open" and exited["invocations"][0]["extension_result"] == "exited"
    assert exited["observations"]["hook_exit"] == "exit 1"


def test_extension_env_strips_provider_credentials_but_not_gh_token(run_probe):
    ev = run_probe(COPILOT, "ext-env-pretool")
    obs = ev["observations"]
    assert {
        "GITHUB_TOKEN",
        "COPILOT_GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "COPILOT_PROVIDER_API_KEY",
        "COPILOT_PROVIDER_BASE_URL",
        "COPILOT_OFFLINE",
    } <= set(obs["stripped"])
    assert "GH_TOKEN" in obs["secrets_passed"] and ev["invocations"][0]["env"]["GH_TOKEN"] == "<redacted>"
    assert {"SESSION_ID", "EXTENSION_PATH", "COPILOT_SDK_PATH"} <= set(obs["added"])


def test_extension_recipe_on_claude_is_an_input_error(tmp_path):
    proc = probe_cmd("run", "claude@2.1.328", "ext-hang-pretool", results=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
