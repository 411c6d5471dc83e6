"""`probe check` on a repository's hooks that are no command, on the real Claude Code: a
command hook beside a prompt, an agent, an http and an mcp_tool PreToolUse hook, each reported
fired with its type (answered in the user's place by the check, which says so and what it
changed in its copy); the same hooks where the scenario never reaches their event: not fired."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import CLAUDE, probe_cmd, write

AUDIT = "#!/bin/sh\ncat >/dev/null\n"
HOOKS = [
    {"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/audit.sh'},
    {"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "timeout": 30},
    {"type": "agent", "prompt": "Check that the command is safe: $ARGUMENTS", "statusMessage": "checking"},
    {"type": "http", "url": "https://hooks.example.com/pre", "headers": {"Authorization": "Bearer sekrit-value-123"}},
    {"type": "mcp_tool", "server": "audit", "tool": "log_call", "input": {"cmd": "${tool_input}"}},
]
FILES = {".claude/settings.json": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": HOOKS}]}}, ".claude/audit.sh": AUDIT}


def checked(tmp_path: Path, *extra: str) -> tuple[int, dict, str]:
    folder = write(tmp_path / "repo", FILES)
    proc = probe_cmd("check", CLAUDE, "--hooks", str(folder), "--json", *extra, results=tmp_path / "out", timeout=300)
    assert proc.returncode in (0, 4), proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stdout


def test_each_type_of_hook_is_reported_fired_with_its_type_and_what_the_check_answered(real_tools, tmp_path):
    code, report, out = checked(tmp_path, "--strict")
    assert code == 0 and report["version"] == CLAUDE.split("@")[1], report
    by_type = {h["type"]: h for h in report["hooks"]}
    assert list(by_type) == ["command", "prompt", "agent", "http", "mcp_tool"]
    for kind, h in by_type.items():
        assert (h["verdict"], h["expected"]) == ("passive", True), h
        assert h["fired"] >= 1, h
        if kind != "command":
            assert h["payload"], h  # the event's JSON, or the mcp tool's input
            assert h["changed"], h
    assert by_type["prompt"]["payload"]["hook_event_name"] == "PreToolUse"
    assert "evaluated by the check's scripted model, not yours" in by_type["prompt"]["reason"]
    assert by_type["http"]["delivery"]["status"] == 200
    assert "sekrit-value-123" not in out  # the header's value redacted
    assert "not to https://hooks.example.com/pre" in by_type["http"]["changed"]
    assert "the harness's MCP server offering 'log_call'" in by_type["mcp_tool"]["changed"]
    assert "changed" not in by_type["command"]
    settings = json.loads((tmp_path / "repo" / ".claude/settings.json").read_text())
    assert settings == FILES[".claude/settings.json"]  # the user's file untouched


def test_hooks_on_an_event_the_scenario_never_reaches_are_not_fired(real_tools, tmp_path):
    code, report, _ = checked(tmp_path, "--scenario", "prompt", "--strict")
    assert code == 0, report
    assert [h["type"] for h in report["hooks"]] == ["command", "prompt", "agent", "http", "mcp_tool"]
    for h in report["hooks"]:
        assert (h["verdict"], h["fired"], h["expected"]) == ("not-fired", 0, False), h
        assert h["reason"] == "scenario prompt does not exercise pre_tool", h


def test_other_events_fire_and_an_if_the_call_does_not_match_is_said(real_tools, tmp_path):
    settings = {
        "hooks": {
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "Did the assistant finish? $ARGUMENTS"}]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://localhost:9999/post"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "agent", "prompt": "Check the prompt: $ARGUMENTS"}]}],
            "PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "Commits only: $ARGUMENTS", "if": "Bash(git commit:*)"}]}],
        }
    }
    folder = write(tmp_path / "repo", {".claude/settings.json": settings})
    proc = probe_cmd("check", CLAUDE, "--hooks", str(folder), "--json", results=tmp_path / "out", timeout=300)
    assert proc.returncode == 0, proc.stderr
    stop, post, submit, guarded = json.loads(proc.stdout)["hooks"]
    kinds = [(h["type"], h["verdict"]) for h in (stop, post, submit)]
    assert kinds == [("prompt", "passive"), ("http", "passive"), ("agent", "passive")]
    assert (stop["payload"]["hook_event_name"], post["payload"]["hook_event_name"]) == ("Stop", "PostToolUse")
    assert (guarded["verdict"], guarded["expected"]) == ("not-fired", True)  # `echo ran > ...` is no git commit
    assert guarded["reason"].endswith("(its `if` 'Bash(git commit:*)' may not match the tool call)")
