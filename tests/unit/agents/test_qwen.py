"""Qwen Code's module: its settings files (Claude Code's shape, timeouts in milliseconds or,
config=project-seconds, seconds), the hooks switch only releases before 0.15 need, and the
version read back from the User-Agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.agents.qwen import installed_version
from probes.evidence.model import ModelRequest

REGS = [
    Registration(key="0-pre_tool", native="PreToolUse", command="hook a", timeout_s=3.0, matcher="run_shell_command"),
    Registration(key="1-stop", native="Stop", command="hook b", timeout_s=None, matcher=None),
]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def install(prefix: Path, version: str) -> Path:
    package = prefix / "node_modules" / "@qwen-code" / "qwen-code" / "package.json"
    package.parent.mkdir(parents=True, exist_ok=True)
    package.write_text(json.dumps({"name": "@qwen-code/qwen-code", "version": version}))
    return prefix


def test_project_settings_take_claudes_shape_with_the_timeout_in_milliseconds(tmp_path):
    t = target(tmp_path)
    (path,) = get("qwen").config_locations["project"](t, REGS).files
    assert path == t.workspace / ".qwen" / "settings.json"
    assert read(path) == {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "run_shell_command",
                    "hooks": [{"type": "command", "command": "hook a", "name": "0-pre_tool", "timeout": 3000}],
                }
            ],
            "Stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "hook b", "name": "1-stop"}]}],
        }
    }


def test_project_seconds_writes_the_timeout_as_claude_code_users_do(tmp_path):
    t = target(tmp_path)
    regs = [Registration(key="k", native="UserPromptSubmit", command="c", timeout_s=2.5, matcher=None)]
    (path,) = get("qwen").config_locations["project-seconds"](t, [*REGS[:1], *regs]).files
    hooks = read(path)["hooks"]
    assert hooks["PreToolUse"][0]["hooks"][0]["timeout"] == 3
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["timeout"] == 2.5


@pytest.mark.parametrize(("version", "switch"), [("0.12.0", True), ("0.15.6", False), ("0.24.4", False)])
def test_only_releases_before_0_15_get_the_hooks_switch(tmp_path, version, switch):
    qwen, t = get("qwen"), target(tmp_path)
    (path,) = qwen.config_locations["user"](t, REGS).files  # the user's hooks first: kept
    env = qwen.session_env(install(tmp_path / "prefix", version), t.home)
    settings = read(path)
    assert ("hooksConfig" in settings) is switch
    assert "disableAllHooks" not in settings and list(settings["hooks"]) == ["PreToolUse", "Stop"]
    assert settings["privacy"] == {"usageStatisticsEnabled": False} and settings["telemetry"] == {"enabled": False}
    assert env["OPENAI_BASE_URL"] == "http://127.0.0.1:{port}/v1" and env["OPENAI_API_KEY"]


def test_installed_version_reads_the_package_and_tolerates_none(tmp_path):
    assert installed_version(install(tmp_path / "a", "0.23.5-preview.0")) == (0, 23, 5)
    assert installed_version(tmp_path / "missing") is None


def test_argv_is_headless_openai_auth_a_named_model_and_yolo(tmp_path):
    argv = get("qwen").argv(tmp_path, "Run it.")
    assert argv[1:] == ["-p", "Run it.", "--auth-type", "openai", "-m", "probe-model", "--yolo"]
    assert get("qwen").argv(tmp_path, "x", "plan")[-2:] == ["--approval-mode", "plan"]


def request(user_agent: str) -> ModelRequest:
    fields = {"seq": 1, "offset_s": 0.1, "method": "POST", "path": "/v1/chat/completions", "model": "probe-model"}
    more = {"tools": [], "sentinels": {}, "message_count": 0, "messages": [], "reply": None}
    return ModelRequest.model_validate({**fields, **more, "user_agent": user_agent})


def test_the_version_is_read_from_the_user_agent(tmp_path):
    qwen = get("qwen")
    ua = "QwenCode/0.24.4 (linux; x64)"
    assert qwen.executed_version([], [request(""), request(ua)], tmp_path) == ("0.24.4", "model request User-Agent")
    assert qwen.executed_version([], [request("node")], tmp_path)[0] is None
