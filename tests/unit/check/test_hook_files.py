"""`probe check` on hook folders (HookSource `files`: Cline's .clinerules/hooks, .cline/hooks):
each file named by an event is a hook, its path its command; what the agent starts it with
(its shebang, its suffix); the watcher recording a shell started with the file as its script;
Cline's JSON answer (`cancel`, `contextModification`, `overrideInput`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from probes import check
from probes.agents import AGENTS
from probes.agents.config import file_event, file_interpreter
from probes.check.config import discover, unseen_program
from probes.check.verdicts import blocks
from probes.errors import InputError
from tests.helpers import ROOT, write

EXAMPLE = ROOT / "examples" / "hooks"
SHIM = ROOT / "probes" / "runner" / "shim.py"
PROJECT, CLINE_DIR = AGENTS["cline"].hook_sources  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "name, event",
    [
        ("PreToolUse", "PreToolUse"),
        ("pretooluse.sh", "PreToolUse"),  # 3.x: without case, with a suffix it reads
        ("TaskStart.py", "TaskStart"),
        ("TaskResume", "TaskResume"),  # an event with no canonical one: still a hook
        ("PreToolUse.md", None),
        ("README", None),
        ("lib.sh", None),
    ],
)
def test_a_hook_file_is_named_by_its_event(name, event):
    assert file_event(PROJECT, name) == event


@pytest.mark.parametrize(
    "name, first, program",
    [
        ("PreToolUse", "#!/bin/sh", "/bin/sh"),
        ("PreToolUse", "#!/usr/bin/env bash", "bash"),
        ("PreToolUse", "#!/usr/bin/env -S python3 -u", "python3"),
        ("PreToolUse", "echo hi", "bash"),  # no shebang, a bare name: 3.0.65 runs `bash FILE`
        ("PreToolUse.py", "import sys", "python3"),
        ("PreToolUse.js", "", "node"),
    ],
)
def test_what_the_agent_starts_a_hook_file_with(name, first, program):
    assert file_interpreter(PROJECT, name, first) == program


def test_the_example_folder_as_cline_reads_it(tmp_path):
    agent, configs, hooks = check.prepare("cline", EXAMPLE)
    assert [(h.source, h.native, h.canonical, h.program) for h in hooks] == [
        (".clinerules/hooks/PostToolUse", "PostToolUse", "post_tool", "/bin/sh"),
        (".clinerules/hooks/PreToolUse", "PreToolUse", "pre_tool", "/bin/sh"),
        (".clinerules/hooks/TaskStart", "TaskStart", "session_start", "/bin/sh"),
    ]
    assert [h.mode for h in hooks] == [0o644, 0o755, 0o755]  # the broken one is not executable
    assert all(h.command == h.source and h.why_not is None for h in hooks)


def test_a_folder_of_hook_files_skips_other_names_and_refuses_links(tmp_path):
    folder = write(tmp_path / "repo", {".cline/hooks/README.md": "x", ".cline/hooks/pretooluse.py": "print('{}')\n"})
    [c] = discover(AGENTS["cline"], folder)
    assert (c.label, c.entries[0].native, c.data["program"]) == (".cline/hooks/pretooluse.py", "PreToolUse", "python3")
    (folder / ".cline/hooks/TaskStart").symlink_to("pretooluse.py")
    with pytest.raises(InputError, match="TaskStart: a symlink"):
        discover(AGENTS["cline"], folder)
    with pytest.raises(InputError, match="no hook for cline"):
        discover(AGENTS["cline"], write(tmp_path / "empty", {".cline/hooks/notes.txt": "x"}))


def test_a_hook_file_of_a_program_the_check_does_not_watch_is_said(tmp_path):
    _, _, [h] = check.prepare("cline", write(tmp_path / "repo", {".cline/hooks/PreToolUse.py": "import sys\n"}))
    assert "python3" in (unseen_program(h) or "") and unseen_program(replace(h, program="/usr/bin/bash")) is None


@pytest.mark.parametrize(
    "output, decision",
    [
        ('{"cancel": true, "errorMessage": "no rm"}', "cancel"),
        ('{"cancel": false}', "json (no decision)"),
        ('{"contextModification": "c"}', "context"),
        ('{"overrideInput": {"commands": ["ls"]}}', "rewrite"),
    ],
)
def test_clines_answers(output, decision):
    answer = check.answer_of({"exit_code": 0, "output": output}, frozenset())
    assert answer.decision == decision and blocks(answer.decision) == (decision == "cancel")


def test_an_exit_code_where_the_agent_blocks_with_none():
    answer = check.answer_of({"exit_code": 1, "output": ""}, frozenset())
    assert answer.error and "its docs give no exit code to block" in answer.error


def test_a_hook_file_left_out_is_a_neutral_script_and_the_kept_one_the_users(tmp_path):
    agent, configs, hooks = check.prepare("cline", EXAMPLE)
    ws = tmp_path / "ws"
    check.copy_folder(EXAMPLE, ws)
    assert check.install_hooks(ws, configs, hooks, {h.key for h in hooks}) == []  # all kept: as written
    written = check.install_hooks(ws, configs, hooks, {hooks[0].key})
    assert sorted(p.name for p in written) == ["PreToolUse", "TaskStart"]
    assert (ws / ".clinerules/hooks/TaskStart").read_text() == f"#!/bin/sh\n{check.NEUTRAL}\n"
    kept = ws / ".clinerules/hooks/PostToolUse"
    assert kept.read_bytes() == (EXAMPLE / ".clinerules/hooks/PostToolUse").read_bytes() and kept.stat().st_mode & 0o777 == 0o644


def launcher(tmp_path: Path, hooks: dict, scripts: dict) -> tuple[Path, Path]:
    """The watched shell (shim.py behind its launcher), bash the real shell, as the check binds it."""
    bin_, records = tmp_path / "bin", tmp_path / "records"
    bin_.mkdir()
    records.mkdir()
    for name in ("shim.py", "hook.py", "hooklib.py"):
        shutil.copy(SHIM.parent / name, bin_ / name)
    bash = os.path.realpath(shutil.which("bash") or "/bin/bash")
    config = {"records": str(records), "log": str(records / "shells.jsonl"), "real": {bash: bash}}
    config |= {"hooks": hooks, "scripts": scripts}
    (bin_ / "shim.json").write_text(json.dumps(config))
    shell = bin_ / "watched-shell"
    shell.write_text(
        f"#!{os.path.realpath(sys.executable)} -SEs\nimport sys\nsys.path.insert(0, {str(bin_)!r})\nimport shim\n"
        f"sys.exit(shim.main({str(bin_ / 'shim.json')!r}))\n"
    )
    shell.chmod(0o755)
    return shell, records


def test_a_shell_run_with_a_hook_file_as_its_script_is_that_hooks_invocation(tmp_path):
    hook = tmp_path / "hooks" / "PreToolUse"
    hook.parent.mkdir()
    hook.write_text("cat >/dev/null\necho '{\"cancel\": true}'\n")
    entry = [{"key": "0-pretooluse", "event": "PreToolUse"}]
    shell, records = launcher(tmp_path, {}, {str(hook.resolve()): entry})
    proc = subprocess.run([str(shell), "PreToolUse"], cwd=hook.parent, input=b'{"a": 1}', capture_output=True, timeout=30)
    assert (proc.returncode, proc.stdout) == (0, b'{"cancel": true}\n')
    [record] = [json.loads(p.read_text()) for p in records.glob("*.json")]
    assert record["key"] == "0-pretooluse" and record["payload"] == {"a": 1}
    from probes.runner.shim import script_of

    assert script_of(["-c", "PreToolUse"]) is None and script_of(["-e", "x"]) == os.path.realpath("x")


def test_a_hook_file_its_sh_c_started_is_recorded_once(tmp_path):
    """Cline 2.14.0: `sh -c "'FILE'"`, then the kernel runs FILE's shebang: one invocation."""
    hook = tmp_path / "PreToolUse"
    shell, records = launcher(tmp_path, {}, {})
    hook.write_text(f"#!{shell}\necho '{{}}'\n")
    hook.chmod(0o755)
    entry = [{"key": "0-pretooluse", "event": "PreToolUse"}]
    config = json.loads((tmp_path / "bin" / "shim.json").read_text())
    config["hooks"] = {f"'{hook}'": entry}
    config["scripts"] = {str(hook.resolve()): entry}
    (tmp_path / "bin" / "shim.json").write_text(json.dumps(config))
    proc = subprocess.run([str(shell), "-c", f"'{hook}'"], input=b"{}", capture_output=True, timeout=30)
    assert (proc.returncode, proc.stdout) == (0, b"{}\n")
    assert len(list(records.glob("*.json"))) == 1
