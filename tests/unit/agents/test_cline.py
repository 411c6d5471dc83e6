"""Cline's module: hook files named by their event (an executable each, no matcher, no timeout),
the model written where each generation reads it, the command line per generation, the
arguments its tools take, and the version read back from the session files a run leaves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.errors import InputError
from probes.runner.arguments import tool_arguments
from probes.runner.model import plan_reply

REGS = [
    Registration(key="0-pre_tool", native="PreToolUse", command="py hook.py 0-pre_tool", timeout_s=3.0, matcher="x"),
    Registration(key="1-pre_tool", native="PreToolUse", command="py hook.py 1-pre_tool", timeout_s=None, matcher=None),
    Registration(key="2-session_start", native="TaskStart", command="py hook.py 2-session_start", timeout_s=None, matcher=None),
]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def install(prefix: Path, version: str) -> Path:
    (prefix / "node_modules" / "cline").mkdir(parents=True)
    (prefix / "node_modules" / "cline" / "package.json").write_text(json.dumps({"version": version}))
    return prefix


def test_each_hook_is_an_executable_named_by_its_event_that_execs_the_command(tmp_path):
    t, cline = target(tmp_path), get("cline")
    files = cline.config_locations["project"](t, REGS).files
    hooks = t.workspace / ".clinerules" / "hooks"
    assert files == [hooks / "PreToolUse", hooks / "PreToolUse.sh", hooks / "TaskStart"]
    assert files[0].read_text() == "#!/bin/sh\n# 0-pre_tool\nexec py hook.py 0-pre_tool\n"
    assert all(os.access(f, os.X_OK) for f in files)
    where = {loc: cline.config_locations[loc](t, REGS[:1]).files[0].parent for loc in ("cline-dir", "user", "documents")}
    assert where == {
        "cline-dir": t.workspace / ".cline" / "hooks",
        "user": t.home / ".cline" / "hooks",
        "documents": t.home / "Documents" / "Cline" / "Hooks",
    }


def test_a_raw_entry_or_a_fifth_hook_of_one_event_cannot_be_written(tmp_path):
    write = get("cline").config_locations["project"]
    with pytest.raises(InputError, match="executables"):
        write(target(tmp_path), [Registration("0-pre_tool", "PreToolUse", "x", None, None, raw={"a": 1})])
    with pytest.raises(InputError, match="at most 4"):
        write(target(tmp_path), [Registration(f"{n}-pre_tool", "PreToolUse", "x", None, None) for n in range(5)])


def test_3x_reads_its_providers_file_and_runs_the_binary_auto_approved(tmp_path):
    cline, prefix, home = get("cline"), install(tmp_path / "p", "3.0.65"), tmp_path / "home"
    env = cline.session_env(prefix, home)
    providers = json.loads((home / ".cline/data/settings/providers.json").read_text())
    entry = providers["providers"]["openai-compatible"]
    assert providers["lastUsedProvider"] == "openai-compatible" and entry["updatedAt"]
    assert entry["settings"]["baseUrl"] == "http://127.0.0.1:{port}/v1" and entry["settings"]["model"] == "probe-model"
    assert not (home / ".cline/data/globalState.json").exists() and env == {"CLINE_NO_AUTO_UPDATE": "1"}
    argv = cline.argv(prefix, "Run it.")
    assert argv[0].endswith("node_modules/@cline/cli-linux-x64/bin/cline")
    assert argv[1:] == ["--auto-approve", "true", "Run it."]
    assert cline.argv(prefix, "x", "none")[1:] == ["--auto-approve", "false", "x"]


def test_2x_reads_its_global_state_with_native_tool_calls_and_runs_the_bundle_in_yolo_mode(tmp_path):
    cline, prefix, home = get("cline"), install(tmp_path / "p", "2.14.0"), tmp_path / "home"
    cline.session_env(prefix, home)
    state = json.loads((home / ".cline/data/globalState.json").read_text())
    assert state["openAiBaseUrl"] == "http://127.0.0.1:{port}/v1" and state["nativeToolCallEnabled"] is True
    assert "gpt-5" in state["actModeOpenAiModelId"]  # its native-tool prompts are per model family
    assert json.loads((home / ".cline/data/secrets.json").read_text())["openAiApiKey"]
    assert not (home / ".cline/data/settings/providers.json").exists()
    argv = cline.argv(prefix, "Run it.")
    assert argv[0].endswith("node_modules/cline/dist/cli.mjs") and argv[1:] == ["-y", "Run it."]
    assert cline.argv(prefix, "x", "none")[1:] == ["x"]


def test_its_events_are_the_hook_file_names():
    cline = get("cline")
    named = {e: cline.native_event(e) for e in ("pre_tool", "session_start", "stop", "session_end", "post_tool_failure")}
    assert named == {
        "pre_tool": "PreToolUse",
        "session_start": "TaskStart",
        "stop": "TaskComplete",
        "session_end": "SessionShutdown",
        "post_tool_failure": None,
    }


def test_run_commands_read_files_and_editor_get_their_own_shapes():
    shell = tool_arguments({"tool": "shell", "command": "echo ran"}, {"properties": {"commands": {}}})
    assert shell == {"commands": ["echo ran"]}  # its schema allows nothing else
    legacy = tool_arguments({"tool": "shell", "command": "echo ran"}, {"properties": {"command": {}, "requires_approval": {}}})
    assert legacy == {"command": "echo ran", "requires_approval": False}
    assert tool_arguments({"tool": "view_file", "path": "/w/a"}, {"properties": {"files": {}}}) == {"files": [{"path": "/w/a"}]}
    editor = {"properties": {"path": {}, "old_text": {}, "new_text": {}}}
    assert tool_arguments({"tool": "create_file", "path": "/w/a", "content": "c"}, editor) == {"path": "/w/a", "new_text": "c"}
    edit = tool_arguments({"tool": "edit_file", "path": "/w/a", "old": "o", "new": "n"}, editor)
    assert edit == {"path": "/w/a", "old_text": "o", "new_text": "n"}


def test_a_text_step_is_played_as_the_finishing_tool_where_the_agent_names_one():
    tools = [{"function": {"name": n, "parameters": {}}} for n in ("execute_command", "attempt_completion")]
    body = {"messages": [{"role": "user", "content": "go"}], "tools": tools}
    names = get("cline").tool_names
    reply = plan_reply(body, [{"text": "done"}], tool_names=names)
    assert reply == {"tool": "attempt_completion", "kind": "finish", "turn": 0, "arguments": {"result": "done"}}
    assert plan_reply({**body, "tools": tools[:1]}, [{"text": "done"}], tool_names=names) == {"text": "done", "turn": 0}


def test_the_version_is_read_from_the_session_files(tmp_path):
    cline, home = get("cline"), tmp_path / "home"
    assert cline.executed_version([], [], home) == (None, "no session record named the version")
    task = home / ".cline/data/tasks/17/task_metadata.json"
    task.parent.mkdir(parents=True)
    task.write_text(json.dumps({"environment_history": [{"host_version": "2.14.0", "cline_version": "3.78.0"}]}))
    assert cline.executed_version([], [], home) == ("2.14.0", "task metadata environment_history host_version")
    session = home / ".cline/data/sessions/1_a/1_a.json"
    session.parent.mkdir(parents=True)
    (session.parent / "1_a.messages.json").write_text("[]")
    session.write_text(json.dumps({"metadata": {"sessionHistoryOrigin": {"mode": "user", "version": "3.0.65"}}}))
    assert cline.executed_version([], [], home) == ("3.0.65", "session record metadata.sessionHistoryOrigin.version")
