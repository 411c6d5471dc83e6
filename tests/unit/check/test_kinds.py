"""`probe check` reads a repository's hooks that are no command (Claude Code's prompt, agent,
http and mcp_tool handlers, Copilot CLI's prompt hooks): parsed with their type, the check's copy
pointing each at what answers it in the user's place (and nothing else changed), the verdict
from its records, and what the report says of it. Parsing only: the real CLI is in
tests/real/test_check_kinds.py."""

from __future__ import annotations

import json

import pytest

from probes import check
from probes.agents import AGENTS
from probes.agents.config import user_entries
from probes.catalog import scenarios
from probes.check import kinds
from probes.check.config import ConfigFile, configured
from probes.check.workspace import install_hooks
from probes.errors import InputError

CLAUDE_SRC = AGENTS["claude"].hook_sources[0]  # type: ignore[attr-defined]
COPILOT_SRC = AGENTS["copilot"].hook_sources[0]  # type: ignore[attr-defined]
SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "audit.sh"},
                    {"type": "prompt", "prompt": "Is $ARGUMENTS safe?", "timeout": 20, "if": "Bash(rm:*)"},
                    {"type": "agent", "prompt": "Check the command.", "statusMessage": "checking"},
                    {"type": "http", "url": "https://hooks.example.com/pre", "headers": {"Authorization": "Bearer $TOKEN"}},
                    {"type": "mcp_tool", "server": "github", "tool": "audit", "input": {"cmd": "${tool_input}"}, "async": True},
                ],
            }
        ]
    }
}


def parsed(data=SETTINGS, agent="claude", src=CLAUDE_SRC):
    entries = user_entries(src, data, "s.json")
    config = ConfigFile(src, None, ".claude/settings.json", data, entries)  # type: ignore[arg-type]
    return config, configured(AGENTS[agent], [config])


def test_each_handler_type_is_read_with_what_names_it():
    _, hooks = parsed()
    assert [(h.type, h.command, h.matcher, h.timeout_s) for h in hooks] == [
        ("command", "audit.sh", "Bash", None),
        ("prompt", "Is $ARGUMENTS safe?", "Bash", 20.0),
        ("agent", "Check the command.", "Bash", None),
        ("http", "https://hooks.example.com/pre", "Bash", None),
        ("mcp_tool", "github/audit", "Bash", None),
    ]
    assert hooks[4].mcp == ("github", "audit")
    assert all(h.why_not is None for h in hooks)  # Claude Code runs all five
    assert [h.key for h in hooks][:2] == ["0-pretooluse", "1-pretooluse"]  # read back from a prompt (evaluations.KEY)


@pytest.mark.parametrize(
    "hook, says",
    [
        ({"type": "prompt"}, 'has a prompt hook without "prompt"'),
        ({"type": "agent", "prompt": 3}, 'has an agent hook without "prompt"'),
        ({"type": "http"}, 'has an http hook without "url"'),
        ({"type": "mcp_tool", "server": "s"}, 'has an mcp_tool hook without "server" and "tool"'),
        ({"type": 7}, 'has a hook whose "type" is not a string'),
    ],
)
def test_a_hook_without_what_names_it_is_one_line(hook, says):
    with pytest.raises(InputError, match=f"^s.json: hooks.PreToolUse.0. {says}"):
        user_entries(CLAUDE_SRC, {"hooks": {"PreToolUse": [{"hooks": [hook]}]}}, "s.json")


def test_copilot_prompt_hooks_and_unknown_types_are_not_judged_and_say_why():
    data = {"version": 1, "hooks": {"sessionStart": [{"type": "prompt", "prompt": "Read the README first."}]}}
    _, [hook] = parsed(data, "copilot", COPILOT_SRC)
    assert hook.type == "prompt" and "only in interactive sessions" in (hook.why_not or "")
    _, [other] = parsed({"hooks": {"Stop": [{"hooks": [{"type": "function", "name": "x"}]}]}})
    assert other.type == "function" and "runs no function hooks that the harness knows of" in (other.why_not or "")
    report = check.verdict_of(hook, scenarios.BUILTIN["shell"], session(), session(), frozenset({2}))
    assert (report["verdict"], report["type"]) == ("not-judged", "prompt") and check.ok(report)
    assert "changed" not in report and "interactive sessions" in report["reason"]


def test_the_checks_copy_points_each_hook_at_its_stand_in_and_keeps_every_other_field(tmp_path):
    config, hooks = parsed()
    written = install_hooks(tmp_path, [config], hooks, {h.key for h in hooks})
    assert written == [tmp_path / ".claude/settings.json"]
    copy = json.loads(written[0].read_text())["hooks"]["PreToolUse"][0]["hooks"]
    original = SETTINGS["hooks"]["PreToolUse"][0]["hooks"]
    assert copy[0] == original[0] and copy[4] == original[4]  # the command and the mcp_tool hook as written
    assert copy[1] == {**original[1], "prompt": "PROBE-HOOK-1-pretooluse Is $ARGUMENTS safe?"}
    assert copy[2] == {**original[2], "prompt": "PROBE-HOOK-2-pretooluse Check the command."}
    assert copy[3] == {**original[3], "url": "http://127.0.0.1:{port}/hook/3-pretooluse"}  # headers kept
    assert config.data == SETTINGS  # the user's parsed file untouched
    assert "PROBE-HOOK-1-pretooluse" in (kinds.changed(hooks[1]) or "")
    assert "not to https://hooks.example.com/pre" in (kinds.changed(hooks[3]) or "")
    assert "'github' is the harness's MCP server offering 'audit'" in (kinds.changed(hooks[4]) or "")
    answers = kinds.answers(hooks, {h.key for h in hooks})
    assert answers == {
        "1-pretooluse": {"ok": True, "reason": kinds.OK_REASON},
        "2-pretooluse": {"ok": True, "reason": kinds.OK_REASON},
        "3-pretooluse": {"body": ""},  # 200, an empty body
    }


def test_a_command_only_folder_stays_byte_for_byte_and_an_other_hook_left_out_is_neutral(tmp_path):
    only = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a.sh"}]}]}}
    config, hooks = parsed(only)
    assert install_hooks(tmp_path, [config], hooks, {hooks[0].key}) == []
    config, hooks = parsed()
    install_hooks(tmp_path, [config], hooks, {hooks[0].key})  # the command hook alone
    copy = json.loads((tmp_path / ".claude/settings.json").read_text())["hooks"]["PreToolUse"][0]["hooks"]
    assert copy[0] == {"type": "command", "command": "audit.sh"}
    assert copy[1:] == [{"type": "command", "command": check.NEUTRAL}] * 4


def session(records: dict | None = None) -> check.Session:
    step = {"kind": "shell", "tool": "Bash", "ran": True, "control_ran": True, "command": None}
    return check.Session(None, records or {}, [step], ["Bash"], [], [], True)


def test_a_fired_hook_of_another_type_is_passive_with_its_payload_and_who_answered():
    _, hooks = parsed()
    http = hooks[3]
    headers = {"Authorization": "[REDACTED]"}
    delivered = {"payload": {"hook_event_name": "PreToolUse"}, "http": {"status": 200, "headers": headers}}
    report = check.verdict_of(http, scenarios.BUILTIN["shell"], session({http.key: [delivered]}), session(), frozenset({2}))
    assert (report["verdict"], report["type"], report["fired"]) == ("passive", "http", 1)
    assert report["payload"] == {"hook_event_name": "PreToolUse"} and report["delivery"]["status"] == 200
    assert "delivered to the check's receiver, not your URL" in report["reason"]
    assert report["changed"].startswith("the check's copy sends it to the run's loopback receiver")
    stop = check.Configured("0-stop", "s.json", "Stop", "stop", None, None, "Done?", type="prompt")
    missed = check.verdict_of(stop, scenarios.BUILTIN["shell"], session(), session(), frozenset({2}))
    assert missed["verdict"] == "not-fired" and missed["payload"] is None and missed["expected"]
    guarded = hooks[1]  # `if: Bash(rm:*)`
    missed = check.verdict_of(guarded, scenarios.BUILTIN["shell"], session(), session(), frozenset({2}))
    assert missed["reason"].endswith("(its `if` 'Bash(rm:*)' may not match the tool call)")


def test_the_report_names_each_by_type_and_states_what_the_check_changed():
    _, hooks = parsed()
    reports = [check.verdict_of(h, scenarios.BUILTIN["shell"], session(), session(), frozenset({2})) for h in hooks]
    assert check.hook_name(reports[3]) == "http https://hooks.example.com/pre (PreToolUse [Bash])"
    assert check.hook_name(reports[0]) == "audit.sh (PreToolUse [Bash])"
    text = check.table(
        {
            "agent": "claude",
            "version": "2.1.328",
            "requested": "2.1.328",
            "scenario": "shell",
            "steps": [],
            "hooks": reports,
            "evidence": "e.json",
            "control_evidence": "c.json",
        }
    )
    assert "  prompt Is $ARGUMENTS safe? (PreToolUse [Bash]): the check's copy starts its prompt with PROBE-HOOK-1" in text
    assert "  mcp_tool github/audit (PreToolUse [Bash]): kept as written; its server 'github'" in text


def test_the_mcp_server_started_as_a_users_server_offers_its_tool_and_records_the_call(tmp_path):
    """runner/mcp_server.py NAME: the tools mcp.json offers under NAME, each call recorded as its hook's."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    server = Path(kinds.__file__).parents[1] / "runner" / "mcp_server.py"
    shutil.copy(server, tmp_path / "mcp_server.py")
    (tmp_path / "records").mkdir()
    config = {
        "records": str(tmp_path / "records"),
        "hooks": {"4-pretooluse": {"event": "PreToolUse", "answer": {"body": ""}}},
        "tools": {},
        "offered": {"github": {"audit": "4-pretooluse"}},
    }
    (tmp_path / "mcp.json").write_text(json.dumps(config))
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "audit", "arguments": {"cmd": "ls"}}},
    ]
    proc = subprocess.run(
        [sys.executable, "-S", "-E", "-s", str(tmp_path / "mcp_server.py"), "github"],
        input="".join(json.dumps(c) + "\n" for c in calls),
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    )
    listed, called = (json.loads(line) for line in proc.stdout.splitlines())
    assert "audit" in [t["name"] for t in listed["result"]["tools"]]
    assert called["result"] == {"content": [{"type": "text", "text": ""}], "isError": False}
    records = [json.loads(p.read_text()) for p in (tmp_path / "records").glob("*.json")]
    [record] = [r for r in records if r["handler_type"] == "mcp_tool"]  # beside the server's own
    assert (record["key"], record["handler_type"], record["payload"]) == ("4-pretooluse", "mcp_tool", {"cmd": "ls"})
