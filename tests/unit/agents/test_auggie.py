"""Auggie's module: its settings files (Claude Code's shape, regex matchers, timeouts in
milliseconds), its seven events (PromptSubmit), the session auth naming the scripted model's
port, and the version read back from the User-Agent."""

from __future__ import annotations

import json
from pathlib import Path

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.evidence.model import ModelRequest

REGS = [
    Registration(key="0-pre_tool", native="PreToolUse", command="hook a", timeout_s=3.0, matcher=None),
    Registration(key="1-stop", native="Stop", command="hook b", timeout_s=0.5, matcher=None),
]
HOOKS = {
    "PreToolUse": [{"matcher": ".*", "hooks": [{"type": "command", "command": "hook a", "timeout": 3000}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "hook b", "timeout": 500}]}],
}


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def test_settings_files_take_claudes_shape_with_milliseconds_and_regex_matchers(tmp_path):
    t, auggie = target(tmp_path), get("auggie")
    (project,) = auggie.config_locations["project"](t, REGS).files
    (local,) = auggie.config_locations["local"](t, REGS).files
    (user,) = auggie.config_locations["user"](t, REGS).files
    assert project == t.workspace / ".augment" / "settings.json"
    assert local == t.workspace / ".augment" / "settings.local.json"
    assert user == t.home / ".augment" / "settings.json"
    for path in (project, local, user):
        assert json.loads(path.read_text()) == {"hooks": HOOKS}


def test_its_events_are_the_seven_its_bundle_lists():
    auggie = get("auggie")
    assert auggie.native_event("prompt_submit") == "PromptSubmit" and auggie.native_event("session_end") == "SessionEnd"
    assert auggie.native_event("subagent_stop") is None and auggie.native_event("pre_compact") is None
    assert len(auggie.events) == 7


def test_the_session_auth_names_the_scripted_models_port(tmp_path):
    auggie = get("auggie")
    auth = json.loads(auggie.session_env(tmp_path, tmp_path / "home")["AUGMENT_SESSION_AUTH"])
    assert auth["tenantURL"] == "http://127.0.0.1:{port}/" and auth["scopes"] and auth["accessToken"]
    argv = auggie.argv(tmp_path, "Run it.")
    assert argv[0].endswith("node_modules/.bin/auggie") and argv[1:] == ["--print", "Run it."]


def request(user_agent: str) -> ModelRequest:
    fields = {"seq": 1, "offset_s": 0.1, "method": "POST", "path": "/get-models", "model": None}
    more = {"tools": [], "sentinels": {}, "message_count": 0, "messages": [], "reply": None}
    return ModelRequest.model_validate({**fields, **more, "user_agent": user_agent})


def test_the_version_is_read_from_the_user_agent(tmp_path):
    auggie = get("auggie")
    got = auggie.executed_version([], [request(""), request("augment.cli/0.36.0 (commit 7c61e5bb)/noninteractive")], tmp_path)
    assert got == ("0.36.0", "model request User-Agent")
    assert auggie.executed_version([], [request("node")], tmp_path)[0] is None
