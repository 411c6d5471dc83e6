"""Factory droid's module: its settings files (Claude Code's shape, timeouts in seconds), the
custom model written into the user's settings with the port left for the run, the exec command
line per permission setup, and the version read back from the User-Agent."""

from __future__ import annotations

import json
from pathlib import Path

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.evidence.model import ModelRequest
from probes.runner.arguments import tool_arguments

REGS = [
    Registration(key="0-pre_tool", native="PreToolUse", command="hook a", timeout_s=3.0, matcher="Execute"),
    Registration(key="1-stop", native="Stop", command="hook b", timeout_s=None, matcher=None),
]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def read(path: Path) -> dict:
    return json.loads(path.read_text())


HOOKS = {
    "PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "hook a", "timeout": 3.0}]}],
    "Stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "hook b"}]}],
}


def test_project_settings_and_hooks_json_take_claudes_shape_with_seconds(tmp_path):
    t, droid = target(tmp_path), get("droid")
    (settings,) = droid.config_locations["project"](t, REGS).files
    (hooks,) = droid.config_locations["hooks-json"](t, REGS).files
    assert settings == t.workspace / ".factory" / "settings.json"
    assert hooks == t.workspace / ".factory" / "hooks.json"
    assert read(settings) == {"hooks": HOOKS} and read(hooks) == HOOKS  # hooks.json: keyed by event


def test_the_user_settings_keep_the_hooks_and_the_custom_model(tmp_path):
    droid, t = get("droid"), target(tmp_path)
    (path,) = droid.config_locations["user"](t, REGS).files  # the user's hooks first: kept
    env = droid.session_env(tmp_path / "prefix", t.home)
    settings = read(path)
    assert path == t.home / ".factory" / "settings.json" and settings["hooks"] == HOOKS
    (model,) = settings["customModels"]
    assert model["baseUrl"] == "http://127.0.0.1:{port}/v1"  # filled in when the run starts
    assert model["provider"] == "generic-chat-completion-api" and model["displayName"] == "Probe"
    assert droid.port_files == (".factory/settings.json",)
    assert env["FACTORY_API_KEY"] and env["FACTORY_DROID_AUTO_UPDATE_ENABLED"] == "false"


def test_argv_is_exec_with_an_autonomy_level_and_the_custom_model(tmp_path):
    droid = get("droid")
    argv = droid.argv(tmp_path, "Run it.")
    assert argv[0].endswith("node_modules/@factory/cli-linux-x64/bin/droid")
    assert argv[1:] == ["exec", "--auto", "high", "-m", "custom:Probe-0", "Run it."]
    assert droid.argv(tmp_path, "x", "none")[1:] == ["exec", "-m", "custom:Probe-0", "x"]
    assert droid.argv(tmp_path, "x", "auto-low")[1:3] == ["exec", "--auto"] and "low" in droid.argv(tmp_path, "x", "auto-low")
    assert "--skip-permissions-unsafe" in droid.argv(tmp_path, "x", "skip-permissions-unsafe")


def test_its_events_are_the_nine_its_binary_lists():
    droid = get("droid")
    assert droid.native_event("pre_tool") == "PreToolUse" and droid.native_event("subagent_stop") == "SubagentStop"
    assert droid.native_event("post_tool_failure") is None and droid.native_event("permission_request") is None


def test_execute_gets_a_risk_level_it_refuses_a_call_without():
    schema = {"properties": {"command": {}, "timeout": {}, "riskLevelReason": {}, "riskLevel": {}}}
    args = tool_arguments({"tool": "shell", "command": "echo ran"}, schema)
    assert args == {"command": "echo ran", "riskLevelReason": "probe step", "riskLevel": "low"}
    assert "riskLevel" not in tool_arguments({"tool": "shell", "command": "x"}, {"properties": {"command": {}}})


def request(user_agent: str) -> ModelRequest:
    fields = {"seq": 1, "offset_s": 0.1, "method": "POST", "path": "/v1/chat/completions", "model": "probe-model"}
    more = {"tools": [], "sentinels": {}, "message_count": 0, "messages": [], "reply": None}
    return ModelRequest.model_validate({**fields, **more, "user_agent": user_agent})


def test_the_version_is_read_from_the_user_agent(tmp_path):
    droid = get("droid")
    got = droid.executed_version([], [request(""), request("factory-cli/0.225.2")], tmp_path)
    assert got == ("0.225.2", "model request User-Agent")
    assert droid.executed_version([], [request("node")], tmp_path)[0] is None


def test_without_a_model_request_the_version_is_read_from_its_log(tmp_path):
    log = tmp_path / ".factory" / "logs" / "droid-log-single.log"
    log.parent.mkdir(parents=True)
    log.write_text(
        '[x] start: {"serviceName":"cli","tags":{"clientType":"cli","platform":"linux","version":"0.99.0","os":"linux"}}\n'
    )
    assert get("droid").executed_version([], [], tmp_path) == ("0.99.0", "CLI log: version tag")
    assert get("droid").executed_version([], [], tmp_path / "none")[0] is None
