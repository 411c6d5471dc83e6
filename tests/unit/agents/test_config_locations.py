"""Each agent's config locations (the setup's `config`): the file each writer writes, a
settings file under HOME merged into (the agent's session_env or prepare_interactive writes
it too, before or after), and a Claude plugin loaded by its argv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.errors import HarnessError

REGS = [Registration(key="0-pre_tool", native="PreToolUse", command="hook a", timeout_s=3.0, matcher="Bash")]
COPILOT_REGS = [Registration(key="0-pre_tool", native="preToolUse", command="hook a", timeout_s=3.0, matcher="bash")]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def read(path: Path) -> dict:
    return json.loads(path.read_text())


CLAUDE_ENTRY = {"matcher": "Bash", "hooks": [{"type": "command", "command": "hook a", "timeout": 3.0}]}


@pytest.mark.parametrize(
    ("agent", "location", "where", "rel"),
    [
        ("claude", "project", "workspace", ".claude/settings.json"),
        ("claude", "project-local", "workspace", ".claude/settings.local.json"),
        ("claude", "user", "home", ".claude/settings.json"),
        ("copilot", "user", "home", ".copilot/hooks/probe.json"),
        ("gemini", "user", "home", ".gemini/settings.json"),
        ("codex", "user", "home", ".codex/hooks.json"),
    ],
)
def test_each_writer_writes_its_file_and_no_argv(agent, location, where, rel, tmp_path):
    t = target(tmp_path)
    regs = COPILOT_REGS if agent == "copilot" else REGS
    written = get(agent).config_locations[location](t, regs)
    assert written.files == [getattr(t, where) / rel] and written.argv == ()
    hooks = read(written.files[0])["hooks"]
    assert list(hooks) == [regs[0].native] and len(hooks[regs[0].native]) == 1


def test_claude_settings_shapes(tmp_path):
    t = target(tmp_path)
    claude = get("claude")
    for location in ("project", "project-local", "user"):
        (path,) = claude.config_locations[location](t, REGS).files
        assert read(path) == {"hooks": {"PreToolUse": [CLAUDE_ENTRY]}}


def test_copilot_user_hooks_are_the_repository_shape_under_copilot_home(tmp_path):
    t = target(tmp_path)
    copilot = get("copilot")
    (path,) = copilot.config_locations["user"](t, COPILOT_REGS).files
    assert read(path) == {
        "version": 1,
        "hooks": {"preToolUse": [{"type": "command", "bash": "hook a", "timeoutSec": 3.0, "matcher": "bash"}]},
    }
    (project,) = copilot.config_locations["project"](t, COPILOT_REGS).files
    assert read(project) == read(path) and project == t.workspace / ".github" / "hooks" / "probe.json"


def test_copilot_user_hooks_folder_is_its_copilot_home(tmp_path):
    """The folder the writer fills is the one session_env points COPILOT_HOME at."""
    copilot = get("copilot")
    t = target(tmp_path)
    seed = tmp_path / "prefix" / "seed-home" / ".cache" / "copilot" / "pkg"
    seed.mkdir(parents=True)
    env = copilot.session_env(tmp_path / "prefix", t.home)
    (path,) = copilot.config_locations["user"](t, COPILOT_REGS).files
    assert path.parent == Path(env["COPILOT_HOME"]) / "hooks"


def test_claude_user_settings_merge_with_prepare_interactive_either_way(tmp_path):
    claude = get("claude")
    env = {"ANTHROPIC_API_KEY": "probe-offline-placeholder"}
    first = target(tmp_path / "a")  # the hooks first (the plan's order), then the terminal's settings
    (path,) = claude.config_locations["user"](first, REGS).files
    claude.prepare_interactive(first.home, str(first.workspace), env)
    assert read(path) == {"hooks": {"PreToolUse": [CLAUDE_ENTRY]}, "permissions": {"defaultMode": "default"}}
    second = target(tmp_path / "b")  # the terminal's settings first
    claude.prepare_interactive(second.home, str(second.workspace), env)
    (path,) = claude.config_locations["user"](second, REGS).files
    assert read(path) == {"permissions": {"defaultMode": "default"}, "hooks": {"PreToolUse": [CLAUDE_ENTRY]}}


def test_gemini_user_settings_merge_with_session_env_either_way(tmp_path):
    gemini = get("gemini")
    first = target(tmp_path / "a")
    (path,) = gemini.config_locations["user"](first, REGS).files
    gemini.session_env(tmp_path / "prefix", first.home)
    settings = read(path)
    assert settings["hooksConfig"] == {"enabled": True} and settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    entry = {"matcher": "Bash", "hooks": [{"type": "command", "command": "hook a", "name": "0-pre_tool", "timeout": 3000}]}
    assert settings["hooks"] == {"PreToolUse": [entry]}
    second = target(tmp_path / "b")
    gemini.session_env(tmp_path / "prefix", second.home)
    (path,) = gemini.config_locations["user"](second, REGS).files
    assert read(path) == settings


def test_codex_user_hooks_beside_its_config(tmp_path):
    codex = get("codex")
    t = target(tmp_path)
    env = codex.session_env(tmp_path / "prefix", t.home)
    (path,) = codex.config_locations["user"](t, REGS).files
    assert path == Path(env["CODEX_HOME"]) / "hooks.json"
    assert read(path) == {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "hook a", "timeout": 3}]}]}
    }
    assert (path.parent / "config.toml").is_file()  # left as it was


def test_a_merge_keeps_other_keys_and_replaces_hooks(tmp_path):
    t = target(tmp_path)
    path = t.home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooks": {"Stop": []}, "env": {"A": "1"}}))
    get("claude").config_locations["user"](t, REGS)
    assert read(path) == {"hooks": {"PreToolUse": [CLAUDE_ENTRY]}, "env": {"A": "1"}}


@pytest.mark.parametrize("content", ["[1, 2]", "{not json"])
def test_a_merge_into_what_is_not_an_object_is_one_line(content, tmp_path):
    t = target(tmp_path)
    path = t.home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    with pytest.raises(HarnessError, match=r"\.gemini/settings\.json: cannot merge"):
        get("gemini").config_locations["user"](t, REGS)


def test_a_merge_does_not_follow_a_link(tmp_path):
    t = target(tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    (t.home / ".claude").mkdir(parents=True)
    (t.home / ".claude" / "settings.json").symlink_to(elsewhere)
    with pytest.raises(HarnessError, match="symlink"):
        get("claude").config_locations["user"](t, REGS)
    assert elsewhere.read_text() == "{}"


def test_claude_plugin_is_a_directory_under_home_loaded_by_its_argv(tmp_path):
    t = target(tmp_path)
    written = get("claude").config_locations["plugin"](t, REGS)
    root = t.home / "probe-plugin"
    assert written.argv == ("--plugin-dir", str(root))
    assert written.files == [root / ".claude-plugin" / "plugin.json", root / "hooks" / "hooks.json"]
    assert read(written.files[0]) == {"name": "probe", "version": "0.0.0"}
    assert read(written.files[1]) == {"hooks": {"PreToolUse": [CLAUDE_ENTRY]}}
    assert not t.workspace.exists()  # nothing in the project
