"""`probe check`: a repository's own hooks. Unit tests of reading the configs, the missing
script and bad-input lines, the verdict parts and the shim (run as the CLI runs it); then the
real CLIs with small folders (a deny policy, an audit logger, a malformed JSON answer)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from probes import check
from probes.agents import AGENTS
from probes.agents.config import user_entries
from probes.catalog import scenarios
from probes.check.verdicts import own_path
from probes.errors import InputError
from tests.helpers import CLAUDE, CODEX, ROOT, probe_cmd, write

EXAMPLE = ROOT / "examples" / "hooks"


SHIM = ROOT / "probes" / "runner" / "shim.py"


COPILOT_SRC, CLAUDE_SRC = AGENTS["copilot"].hook_sources[0], AGENTS["claude"].hook_sources[0]  # type: ignore[attr-defined]


def test_github_and_claude_layouts_are_read_in_file_order():
    gh = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "a.sh", "timeoutSec": 5, "matcher": "bash"}]}}
    [e] = user_entries(COPILOT_SRC, gh, "p.json")
    assert (e.native, e.command, e.timeout_s, e.matcher, e.command_key) == ("preToolUse", "a.sh", 5.0, "bash", "bash")
    cl = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}, {"type": "prompt", "prompt": "p"}]},
                {"hooks": [{"type": "command", "command": "y", "timeout": 3}]},
            ]
        }
    }
    entries = user_entries(CLAUDE_SRC, cl, "s.json")
    assert [(e.type, e.command, e.matcher, e.timeout_s) for e in entries] == [
        ("command", "x", "Bash", None),
        ("prompt", "p", "Bash", None),  # read with its type (check/kinds.py judges it)
        ("command", "y", None, 3.0),
    ]


@pytest.mark.parametrize(
    "data, says",
    [
        ([], "a JSON object"),
        ({"hooks": []}, "`hooks` must be an object"),
        ({"hooks": {"preToolUse": {}}}, "hooks.preToolUse must be a list"),
        ({"hooks": {"preToolUse": [{"type": "command"}]}}, "has no command"),
    ],
)
def test_a_config_the_agent_cannot_read_is_one_line_naming_the_file(data, says):
    with pytest.raises(InputError, match=f"^cfg.json: .*{says}"):
        user_entries(COPILOT_SRC, data, "cfg.json")


def test_the_example_folder_is_found_for_every_agent():
    for agent, sources in (
        ("copilot", {".github/hooks/policy.json", ".claude/settings.json"}),
        ("claude", {".claude/settings.json"}),
        ("gemini", {".gemini/settings.json"}),
        ("codex", {".codex/hooks.json"}),
        ("vscode", {".github/hooks/policy.json", ".claude/settings.json"}),  # Copilot's preToolUse read too
        ("qwen", {".qwen/settings.json"}),  # .claude/settings.json not read (measured on 0.24.4)
        ("droid", {".factory/settings.json"}),
        ("auggie", {".augment/settings.json"}),
    ):
        _, configs, hooks = check.prepare(agent, EXAMPLE)
        assert {c.label for c in configs} == sources
        assert all(h.canonical == "pre_tool" for h in hooks)


def test_gemini_timeouts_are_milliseconds_and_its_switches_are_not_events():
    [src] = AGENTS["gemini"].hook_sources  # type: ignore[attr-defined]
    data = {"hooks": {"enabled": True, "BeforeTool": [{"matcher": "shell", "hooks": [{"command": "x", "timeout": 1500}]}]}}
    with pytest.raises(InputError, match='^settings.json: hooks.BeforeTool.0. has a hook without "type"'):
        user_entries(src, data, "settings.json")  # Gemini CLI discards it
    data["hooks"]["BeforeTool"][0]["hooks"][0]["type"] = "command"
    [e] = user_entries(src, data, "settings.json")
    assert (e.native, e.timeout_s, e.matcher) == ("BeforeTool", 1.5, "shell")
    assert check.matcher_matches("shell", ["run_shell_command"], src.matchers)  # unanchored on Gemini


@pytest.mark.parametrize("agent, timeout, seconds", [("qwen", 10000, 10.0), ("droid", 10, 10.0), ("auggie", 1500, 1.5)])
def test_claude_shaped_settings_of_qwen_droid_and_auggie(agent, timeout, seconds):
    src = AGENTS[agent].hook_sources[0]  # type: ignore[attr-defined]
    hook = {"type": "command", "command": '"$X"/a.sh', "timeout": timeout}
    data = {"hooks": {"PreToolUse": [{"matcher": "shell", "hooks": [hook]}]}}
    [e] = user_entries(src, data, "settings.json")
    assert (e.native, e.timeout_s, e.matcher) == ("PreToolUse", seconds, "shell")
    assert check.matcher_matches("shell", ["run_shell_command"], src.matchers)  # unanchored on all three (measured)
    if agent != "droid":  # Qwen Code and Auggie discard a hook without "type" (their bundles)
        del hook["type"]
        with pytest.raises(InputError, match='has a hook without "type"'):
            user_entries(src, data, "settings.json")


def test_droid_hooks_json_is_keyed_by_event_at_its_top():
    src = AGENTS["droid"].hook_sources[1]  # type: ignore[attr-defined]
    assert src.pattern == ".factory/hooks.json"
    data = {"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}]}
    [e] = user_entries(src, data, "hooks.json")
    assert (e.native, e.command, e.timeout_s, e.matcher) == ("PreToolUse", "x", 5.0, "Execute")
    with pytest.raises(InputError, match="hooks.hooks must be a list"):  # settings.json's shape: no event `hooks`
        user_entries(src, {"hooks": data}, "hooks.json")


def test_a_shell_naming_an_absolute_path_is_not_taken_for_an_unrecorded_hook():
    assert own_path("touch ran.txt; cat >/dev/null") is None  # droid runs `find ... 2>/dev/null` itself
    assert own_path('"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh 2>/dev/null') == ".claude/hooks/a.sh"
    assert own_path("python3 scripts/audit.py > /tmp/log/x") == "scripts/audit.py"


def test_qwen_hook_switches_are_not_events():
    [src] = AGENTS["qwen"].hook_sources  # type: ignore[attr-defined]
    data = {
        "hooks": {
            "enabled": True,
            "disabled": [],
            "notifications": True,
            "Stop": [{"hooks": [{"type": "command", "command": "x"}]}],
        }
    }
    assert [e.native for e in user_entries(src, data, "settings.json")] == ["Stop"]


def test_a_command_auggie_starts_without_a_shell_is_not_judged(tmp_path):
    hooks = [
        {"type": "command", "command": "touch ran.txt"},  # split into words and started: no shell sees it
        {"type": "command", "command": '"$AUGMENT_PROJECT_DIR"/a.sh'},  # bash -c
        {"type": "command", "command": "~/a.sh"},  # bash -c
        {"type": "command", "command": "python3 -V | cat"},  # bash -c
        {"type": "command", "command": "$X/a.sh", "args": ["-v"]},  # with args: started itself
    ]
    folder = write(
        tmp_path / "repo",
        {".augment/settings.local.json": {"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": hooks}]}}, "a.sh": "x"},
    )
    _, _, configured = check.prepare("auggie", folder)
    assert [h.why_not is None for h in configured] == [False, True, True, True, False]
    assert "starts this command itself, not through a shell" in (configured[0].why_not or "")


def test_vscode_reads_flat_entries_and_claude_groups_in_one_github_file():
    src = AGENTS["vscode"].hook_sources[0]  # type: ignore[attr-defined]
    data = {"hooks": {"PreToolUse": [{"type": "command", "command": "a"}, {"matcher": "x", "hooks": [{"command": "b"}]}]}}
    assert [(e.command, e.matcher) for e in user_entries(src, data, "h.json")] == [("a", None), ("b", "x")]


@pytest.mark.parametrize("scenario", ["write-file"])  # Codex plays subagent (spawn_agent) since it is a tool kind
def test_a_scenario_an_agent_cannot_play_is_refused_in_one_line(tmp_path, scenario):
    proc = probe_cmd("check", CODEX, "--hooks", str(EXAMPLE), "--scenario", scenario, results=tmp_path / "out")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert f"scenario {scenario} needs a" in proc.stderr and "codex" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_scripts_named_by_a_command():
    assert check.scripts_named('"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh --x') == ["./.claude/hooks/a.sh"]
    assert check.scripts_named("python3 scripts/audit.py | tee /tmp/x") == ["scripts/audit.py"]
    assert check.scripts_named("/usr/bin/true && echo 'a|b'") == []


@pytest.mark.parametrize(
    "files, says",
    [
        ({"README.md": "x"}, "no hook for claude"),
        ({".claude/settings.json": "{not json"}, r".claude/settings.json:1: not valid JSON"),
        (
            {
                ".claude/settings.json": {
                    "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": ".claude/gone.sh"}]}]}
                }
            },
            r".claude/settings.json: PreToolUse hook runs .claude/gone.sh, which is not in",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, files, says):
    folder = write(tmp_path / "repo", files)
    proc = probe_cmd("check", CLAUDE, "--hooks", str(folder), results=tmp_path / "out")
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert re.search(says, proc.stderr), proc.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_scenario_and_bad_scenario_file(tmp_path):
    with pytest.raises(InputError, match="unknown scenario 'nope'"):
        scenarios.load("nope")
    bad = tmp_path / "mine.yaml"
    bad.write_text(yaml.safe_dump({"turns": [{"tool": "teleport"}]}))
    with pytest.raises(InputError, match=r"invalid scenario .*mine.yaml:2: turns.0"):
        scenarios.load(str(bad))
    good = tmp_path / "mine-too.yaml"
    good.write_text(yaml.safe_dump({"turns": [{"tool": "shell", "command": "ls"}, {"text": "done"}]}))
    mine = scenarios.load(str(good))
    assert mine.name == "mine-too" and set(mine.events) == {*scenarios.SESSION, *scenarios.TOOL}


@pytest.mark.parametrize(
    "inv, decision",
    [
        ({"exit_code": 0, "output": '{"permissionDecision": "deny"}'}, "deny"),
        (
            {"exit_code": 0, "output": '{"hookSpecificOutput": {"permissionDecision": "deny", "additionalContext": "c"}}'},
            "deny+context",
        ),
        ({"exit_code": 0, "output": '{"permissionDecision": "deny",'}, "error: stdout is not valid JSON"),
        ({"exit_code": 0, "output": "[1]"}, "error: stdout is a JSON list, not an object"),
        ({"exit_code": 0, "output": "hello"}, "text"),
        ({"exit_code": 2, "output": ""}, "block (exit 2)"),
        ({"exit_code": 1, "output": "", "stderr": "Traceback ...\nValueError: x\n"}, "error: exit 1, an error"),
        ({"exit_code": 0, "output": ""}, None),
        ({"exit_code": 0, "output": '{"modifiedArgs": {}}'}, "rewrite"),
        ({"exit_code": 0, "output": '{"continue": true}'}, "json (no decision)"),
    ],
)
def test_what_a_hook_answered(inv, decision):
    """An answer as the agent's docs define one; or the error that makes it none."""
    answer = check.answer_of(inv, frozenset({2}))
    said = f"error: {answer.error}" if answer.error else answer.decision
    assert said is None if decision is None else (said or "").startswith(decision)


def test_matchers():
    assert check.matcher_matches(None, ["bash"]) and check.matcher_matches("*", [])
    assert check.matcher_matches("Bash|Write", ["Bash"]) and not check.matcher_matches("Bash", ["bash"])


def shim_launcher(tmp_path: Path, hooks: dict) -> tuple[Path, Path]:
    """The watched shell as the check installs it: a launcher of shim.py with its config (here
    not bound over the system's shells: the launcher itself is the shell, bash the real one)."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name in ("shim.py", "hook.py", "hooklib.py"):
        shutil.copy(SHIM.parent / name, bin_ / name)
    records = tmp_path / "records"
    records.mkdir()
    bash = os.path.realpath(shutil.which("bash") or "/bin/bash")
    config = {"records": str(records), "log": str(records / "shells.jsonl"), "real": {bash: bash}, "hooks": hooks}
    (bin_ / "shim.json").write_text(json.dumps(config))
    launcher = bin_ / "watched-shell"
    launcher.write_text(
        f"#!{os.path.realpath(sys.executable)} -SEs\nimport sys\nsys.path.insert(0, {str(bin_)!r})\nimport shim\n"
        f"sys.exit(shim.main({str(bin_ / 'shim.json')!r}))\n"
    )
    launcher.chmod(0o755)
    return launcher, records


def shim_run(tmp_path: Path, command: str, stdin: bytes) -> tuple[subprocess.CompletedProcess[bytes], dict]:
    launcher, records = shim_launcher(tmp_path, {command: [{"key": "0-preToolUse", "event": "preToolUse"}]})
    proc = subprocess.run([str(launcher), "--norc", "--noprofile", "-c", command], input=stdin, capture_output=True, timeout=30)
    [record] = [json.loads(p.read_text()) for p in records.glob("*.json")]
    return proc, record


@pytest.mark.parametrize(
    "args, string",
    [
        (["-c", "echo a"], "echo a"),
        (["--norc", "--noprofile", "-c", "echo a"], "echo a"),
        (["-c", "-l", "echo a"], "echo a"),
        (["-lc", "echo a", "name", "arg"], "echo a"),
        (["-o", "pipefail", "-c", "echo a"], "echo a"),
        (["script.sh", "-c"], None),
        (["-l"], None),
        ([], None),
    ],
)
def test_the_shims_reading_of_a_shells_arguments(args, string):
    from probes.runner.shim import command_string

    assert command_string(args) == string


def test_a_shell_that_is_no_hook_is_logged_and_replaced_by_the_real_one(tmp_path):
    launcher, records = shim_launcher(tmp_path, {"hook.sh": [{"key": "0-preToolUse", "event": "preToolUse"}]})
    proc = subprocess.run([str(launcher), "-c", "echo $0 ran"], capture_output=True, text=True, timeout=30)
    assert proc.stdout == f"{launcher} ran\n"  # the real shell, with the argv the shell was given
    [line] = [json.loads(x) for x in (records / "shells.jsonl").read_text().splitlines()]
    assert line["command"] == "echo $0 ran" and line["ancestors"][0] == os.getpid()
    assert not list(records.glob("*.json"))  # no hook record


def test_a_step_is_found_in_the_string_its_shell_was_started_with():
    cmd = "curl -s -o fetched.txt 'file:///etc/hostname'; echo ran > curl-ran.txt"
    claude_style = "source snap && eval '" + cmd.replace("'", "'\\''") + "' < /dev/null && pwd -P >| /tmp/cwd"
    assert check.command_ran(cmd, ["env", claude_style])
    assert check.command_ran(cmd, [cmd]) and not check.command_ran(cmd, ["env", "curl -s"])


def test_the_shim_passes_bytes_and_exit_code_through(tmp_path):
    proc, record = shim_run(tmp_path, "cat; printf 'err\\xff' >&2; exit 3", b'{"a": 1}')
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, b'{"a": 1}', b"err\xff")
    assert record["payload"] == {"a": 1} and record["exit_code"] == 3 and record["output"] == '{"a": 1}'


def test_the_shim_dies_of_the_commands_signal(tmp_path):
    proc, record = shim_run(tmp_path, "kill -SEGV $$", b"{}")
    assert proc.returncode == -signal.SIGSEGV
    assert record["crashed_with"] == "SIGSEGV"


def test_the_users_files_are_never_touched(tmp_path):
    folder = shutil.copytree(EXAMPLE, tmp_path / "repo", symlinks=True)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    agent, configs, hooks = check.prepare("copilot", folder)
    ws = tmp_path / "ws"
    check.copy_folder(folder, ws)
    check.install_hooks(ws, configs, hooks, {hooks[0].key})
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    written = json.loads((ws / ".github/hooks/policy.json").read_text())["hooks"]["preToolUse"]
    assert [e["bash"] for e in written] == [hooks[0].command, check.NEUTRAL, check.NEUTRAL]  # the user's, as written
    assert written[0]["timeoutSec"] == 10  # the rest of each entry as written


def test_the_folder_is_copied_with_its_links_modes_and_without_git(tmp_path):
    """A link inside the folder is copied as a link (never followed); a file's mode is kept
    (the example's broken hook is mode 644); .git is left out, a submodule's too."""
    folder = write(tmp_path / "repo", {"scripts/a.sh": "echo a\n", "scripts/plain.sh": "x", ".git/HEAD": "x", "sub/.git": "x"})
    (folder / "scripts" / "plain.sh").chmod(0o644)
    (folder / ".claude").mkdir()
    (folder / ".claude" / "a.sh").symlink_to("../scripts/a.sh")
    (folder / "dangling").symlink_to("scripts/gone.sh")
    check.check_folder(folder)
    ws = tmp_path / "ws"
    check.copy_folder(folder, ws)
    assert os.readlink(ws / ".claude" / "a.sh") == "../scripts/a.sh" and os.readlink(ws / "dangling") == "scripts/gone.sh"
    assert (ws / "scripts" / "a.sh").stat().st_mode & 0o777 == 0o755
    assert (ws / "scripts" / "plain.sh").stat().st_mode & 0o777 == 0o644
    assert not (ws / ".git").exists() and not (ws / "sub" / ".git").exists()


def test_a_folder_entry_made_after_the_check_is_still_refused_by_the_copy(tmp_path):
    folder = write(tmp_path / "repo", {"a.txt": "x"})
    check.check_folder(folder)
    os.mkfifo(folder / "late")
    with pytest.raises(InputError, match="late is a FIFO"):
        check.copy_folder(folder, tmp_path / "ws")


def test_a_script_outside_the_folder_is_one_line(tmp_path):
    config = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "bash ../shared/x.sh"}]}]}}
    folder = write(tmp_path / "repo", {".claude/settings.json": config})
    write(tmp_path, {"shared/x.sh": "true"})
    with pytest.raises(InputError, match=r"PreToolUse hook runs \.\./shared/x.sh, outside .*the check copies the folder only"):
        check.prepare("claude", folder)


def test_evidence_readers_would_refuse_is_not_written(tmp_path):
    """Every record of a version is checked as a reader reads it before any is written: one
    over the size readers accept is one line, and none of them is written."""
    from probes.evidence.model import Evidence, load_evidence, save_evidence

    committed = Evidence.model_validate(load_evidence(ROOT / "results" / "claude" / "2.1.328" / "payload-pretool.json"))
    out = tmp_path / "out" / "claude" / "2.1.328"
    fine = committed.model_copy(update={"recipe": "check-fine"})
    huge = committed.model_copy(update={"recipe": "check-huge", "observations": {"x": "y" * (9 * 1024 * 1024)}})
    with pytest.raises(InputError, match=r"check-huge.json of claude 2.1.328 would be unreadable: \d+ bytes, over the limit"):
        check.save_checked([(out / "check-fine.json", fine), (out / "check-huge.json", huge)])
    assert not (tmp_path / "out").exists()
    check.save_checked([(out / "check-fine.json", fine)])
    save_evidence(tmp_path / "same" / "check-fine.json", fine)
    assert (out / "check-fine.json").read_bytes() == (tmp_path / "same" / "check-fine.json").read_bytes()
    assert sorted(p.name for p in (out.parent / "_blobs").iterdir()) == sorted(p.name for p in (tmp_path / "_blobs").iterdir())
    assert load_evidence(out / "check-fine.json") == load_evidence(tmp_path / "same" / "check-fine.json")


def test_action_runs_probe_check_with_its_inputs():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert all("shell" in s for s in steps if "run" in s)
    text = (ROOT / "action.yml").read_text()
    for name in action["inputs"]:
        assert f"inputs.{name}" in text, f"input {name} is never used"
    assert "probe check" in text
    assert os.access(EXAMPLE / ".github/hooks/deny-rm.sh", os.X_OK) and not os.access(
        EXAMPLE / ".github/hooks/broken.sh", os.X_OK
    )


def session(ran: bool, records: dict | None = None, texts: tuple[str, ...] = ()) -> check.Session:
    step = {"kind": "shell", "tool": "bash", "ran": ran, "control_ran": True, "command": "curl x"}
    return check.Session(None, records or {}, [step], ["bash"], list(texts), [], True)


HOOK = check.Configured("0-preToolUse", "p.json", "preToolUse", "pre_tool", None, 10, "x.sh")


SHELL = scenarios.BUILTIN["shell"]


def inv(**kw) -> dict:
    return {"exit_code": 0, "output": "", "stderr": "", "killed_by": None, "killed_by_signal": None, "duration_s": 0.1, **kw}


@pytest.mark.parametrize(
    "hooked, verdict, treated",
    [
        (session(False, {HOOK.key: [inv(output='{"permissionDecision": "deny"}')]}), "effective", None),
        (session(True, {HOOK.key: [inv(output='{"permissionDecision": "deny"}')]}), "ignored", "fail-open"),
        (session(True, {HOOK.key: [inv(exit_code=126, stderr="Permission denied")]}), "broken", "fail-open"),
        (session(False, {HOOK.key: [inv(killed_by="cli", killed_by_signal="SIGTERM")]}), "broken", "fail-closed"),
        (session(True, {HOOK.key: [inv(output="{oops")]}), "broken", "fail-open"),
        (session(False, {HOOK.key: [inv(exit_code=1)]}), "broken", "fail-closed"),
        (session(True, {HOOK.key: [inv(exit_code=1, stderr="ValueError")]}), "broken", "fail-open"),
        (session(False, {HOOK.key: [inv(exit_code=2, stderr="policy: no curl")]}), "effective", None),
        (session(True, {HOOK.key: [inv(exit_code=2)]}), "ignored", "fail-open"),
        (session(True, {HOOK.key: [inv()]}), "passive", None),
        (session(True, {HOOK.key: [inv(output='{"additionalContext": "CTX"}')]}, ("... CTX ...",)), "effective", None),
        (session(True, {}), "not-fired", None),
    ],
)
def test_verdicts_against_the_control(hooked, verdict, treated):
    report = check.verdict_of(HOOK, SHELL, hooked, session(True), frozenset({2}))
    assert (report["verdict"], report["treated"]) == (verdict, treated), report
    assert check.ok(report) == (verdict in ("effective", "passive"))


def test_a_hook_whose_matcher_matches_no_tool_is_not_expected():
    hook = check.Configured("0-PreToolUse", "s.json", "PreToolUse", "pre_tool", "Bash", None, "x.sh")
    report = check.verdict_of(hook, SHELL, session(True), session(True), frozenset({2}))
    assert report["verdict"] == "not-fired" and not report["expected"] and check.ok(report)
    assert "matches none of the tools called (bash)" in report["reason"]


def hook_report(command: str, verdict: str, treated: str | None = None, reason: str = "why") -> dict:
    return {
        "source": ".claude/settings.json",
        "event": "PreToolUse",
        "canonical": "pre_tool",
        "matcher": "Bash",
        "command": command,
        "fired": 1,
        "exit_code": 0,
        "decision": None,
        "verdict": verdict,
        "treated": treated,
        "reason": reason,
        "expected": True,
    }


def report_of(version: str, hooks: list[dict], met: bool = True) -> dict:
    step = {"kind": "shell", "tool": "Bash", "ran": not met, "control_ran": True, "command": "curl x"}
    expectation = {"command": "curl x", "expect": "blocked", "ran": not met, "control_ran": True, "met": met}
    return {
        "agent": "claude",
        "version": version,
        "requested": version,
        "scenario": "commands",
        "steps": [step],
        "hooks": hooks,
        "evidence": "e.json",
        "control_evidence": "c.json",
        "expectations": [expectation],
    }


def test_a_hook_is_named_by_its_script_and_the_table_ends_with_a_summary(monkeypatch):
    deny = hook_report('"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-curl.sh', "effective")
    broken = hook_report('"$(git rev-parse --show-toplevel)"/hooks/raises.py', "broken", "fail-open", "x" * 300)
    assert check.hook_name(deny) == ".claude/hooks/no-curl.sh (PreToolUse [Bash])"
    assert check.hook_name(broken) == "hooks/raises.py (PreToolUse [Bash])"
    monkeypatch.delenv("COLUMNS", raising=False)
    text = check.table(report_of("2.1.328", [deny, broken]))  # piped: each reason whole, on its line
    assert "2 hooks: 1 effective, 1 broken" in text and "broken (fail-open)" in text
    assert "ok   'curl x' expected blocked: did not run (without the hooks: ran)" in text
    assert "x" * 300 in text
    monkeypatch.setenv("COLUMNS", "120")
    fitted = check.table(report_of("2.1.328", [deny, broken]))  # a terminal's width: wrapped whole
    table_lines = fitted.split("ok   'curl x'")[0].splitlines()
    assert max(len(line) for line in table_lines) <= 120 and fitted.count("x") == text.count("x")


def test_versions_are_one_table_that_marks_what_differs():
    a = report_of("2.1.296", [hook_report("a.sh", "effective")])
    b = report_of("2.1.328", [hook_report("a.sh", "ignored", "fail-open")], met=False)
    text = check.versions_table([a, b])
    assert text.splitlines()[0] == "claude 2.1.296, 2.1.328, scenario commands"
    row = next(line for line in text.splitlines() if line.startswith("*a.sh"))
    assert row.split()[-3:] == ["effective", "ignored", "(fail-open)"] and "* differs between versions" in text
    same = check.versions_table([a, a])
    assert "*" not in same and "the same on every version" in same


def test_the_action_annotates_broken_and_ignored_hooks_and_unmet_expectations():
    hooks = [hook_report("ok.sh", "passive"), hook_report("b.sh", "broken", "fail-closed", "exit 1\n50%")]
    lines = check.workflow_commands([report_of("2.1.328", hooks, met=False)])
    assert lines[0] == (
        "::error file=.claude/settings.json,title=probe check: b.sh (PreToolUse [Bash])"
        "::claude 2.1.328: broken (fail-closed): exit 1%0A50%25"
    )
    assert lines[1].startswith("::error title=probe check: expected blocked::claude 2.1.328: 'curl x' expected blocked, ran")
    assert len(lines) == 2
