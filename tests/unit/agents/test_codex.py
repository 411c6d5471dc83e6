"""Codex CLI, installed from npm by the harness, against the scripted model's Responses
dialect: two fast probes in every run (the whole catalog is its committed evidence, re-run
with `probe matrix --agent codex`). Unit checks of its module need no install."""

from __future__ import annotations

import json

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration


def test_hooks_file_has_whole_second_timeouts_and_no_default_matcher(tmp_path):
    """A fractional timeout makes Codex reject the whole hooks.json (measured on 0.171.0)."""
    codex = get("codex")
    regs = [
        Registration(key="a", native="PreToolUse", command="hook a", timeout_s=2.5, matcher=None),
        Registration(key="b", native="PreToolUse", command="hook b", timeout_s=None, matcher="Bash"),
    ]
    (path,) = codex.config_locations["project"](ConfigTarget(workspace=tmp_path, home=tmp_path / "home"), regs).files
    assert path == tmp_path / ".codex" / "hooks.json"
    entries = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert entries == [
        {"hooks": [{"type": "command", "command": "hook a", "timeout": 3}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "hook b"}]},
    ]


def test_session_config_is_offline_and_trusts_the_workspace(tmp_path):
    codex = get("codex")
    home = tmp_path / "home"
    env = codex.session_env(tmp_path / "prefix", home)
    config = (home / ".codex" / "config.toml").read_text()
    assert env["CODEX_HOME"] == str(home / ".codex")
    assert "check_for_update_on_startup = false" in config and "[analytics]\nenabled = false" in config
    assert f'[projects."{tmp_path / "workspace"}"]\ntrust_level = "trusted"' in config
    argv = codex.argv(tmp_path / "prefix", "go")
    assert 'model_providers.probe.base_url="http://127.0.0.1:{port}/v1"' in argv and argv[-1] == "go"
