"""Hooks that are not processes, on the real Claude Code: a prompt hook's evaluation reaches
the scripted model, which answers the scripted verdict (an agent hook's sub-agent: a call of its
StructuredOutput tool); an http hook's delivery reaches the run's receiver, which answers the
scripted body. Each is recorded as an invocation."""

from __future__ import annotations

import json

import pytest

from tests.helpers import CLAUDE, probe_cmd


def run(tmp_path, recipe: str) -> dict:
    proc = probe_cmd("run", CLAUDE, recipe, "--json", results=tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize(
    ("recipe", "control", "labels"),
    [
        ("prompt-pretool-deny", "prompt-pretool-allow", ("denied", "allowed")),
        ("prompt-stop-not-ok", "prompt-stop-ok", ("bounded", "single-stop")),
        ("http-pretool-deny", "http-pretool-allow", ("denied", "allowed")),
        ("agent-pretool-deny", "agent-pretool-allow", ("denied", "allowed")),
        ("agent-stop-not-ok", "agent-stop-ok", ("bounded", "single-stop")),
    ],
)
def test_the_run_answers_a_hook_that_is_not_a_process(real_tools, tmp_path, recipe, control, labels):
    ev, ctl = run(tmp_path, recipe), run(tmp_path, control)
    assert (ev["outcome"], ctl["outcome"]) == labels
    kind = recipe.split("-")[0]
    (inv, *_) = ev["invocations"]
    assert inv["handler_type"] == kind and inv["pid"] == 0
    assert isinstance(inv["payload"], dict) and inv["payload"]["hook_event_name"] in ("PreToolUse", "Stop")
    assert ev["hooks"][0]["handler"]["type"] == kind
    # each invocation is an evaluation (a Stop block's feedback quoting the hook's text in the
    # main conversation is no invocation: 9 stop evaluations, not 17)
    assert all(isinstance(i["payload"], dict) for i in ev["invocations"])


def test_an_http_post_tool_hook_is_delivered_with_its_headers(real_tools, tmp_path):
    ev = run(tmp_path, "http-posttool-fired")
    assert ev["outcome"] == "fired"
    post = [i for i in ev["invocations"] if i["event"] == "PostToolUse"]
    assert post and post[0]["http"]["status"] == 200
    headers = {k.lower(): v for k, v in post[0]["http"]["headers"].items()}
    assert headers["x-probe"] == "PROBE-HEADER" and headers["content-type"].startswith("application/json")


def test_an_agent_hook_gets_its_verdict_through_structured_output(real_tools, tmp_path):
    ev = run(tmp_path, "agent-pretool-deny")
    (asked,) = [r for r in ev["model_requests"] if (r["reply"] or {}).get("hook") == "0-pre_tool"]
    assert "StructuredOutput" in asked["tools"] and asked["reply"]["tool"] == "StructuredOutput"
    assert asked["reply"]["arguments"]["ok"] is False
    (inv,) = ev["invocations"]
    assert inv["handler_type"] == "agent" and json.loads(inv["output"])["ok"] is False


def test_an_agent_hook_that_never_calls_structured_output_is_one_invocation_and_fails_open(real_tools, tmp_path):
    ev = run(tmp_path, "agent-pretool-malformed")
    asked = [r for r in ev["model_requests"] if (r["reply"] or {}).get("hook") == "0-pre_tool"]
    assert len(asked) >= 2 and all("tool" not in r["reply"] for r in asked)  # the CLI asks again for the tool
    (inv,) = ev["invocations"]
    assert inv["handler_type"] == "agent" and inv["duration_s"] is not None
    assert ev["outcome"] == "fail-open" and ev["observations"]["hook_exit"] == "not JSON"


@pytest.mark.parametrize(
    ("recipe", "control", "labels"),
    [
        ("mcp-tool-pretool-deny", "mcp-tool-pretool-allow", ("denied", "allowed")),
        ("mcp-tool-session-start", "mcp-tool-session-start-control", ("skipped-before-connect", "called")),
        ("matcher-mcp-pretool", "matcher-mcp-pretool-control", ("fired", "not-fired")),
    ],
)
def test_the_probe_mcp_server_is_started_by_the_cli_and_records_each_call(real_tools, tmp_path, recipe, control, labels):
    ev, ctl = run(tmp_path, recipe), run(tmp_path, control)
    assert (ev["outcome"], ctl["outcome"]) == labels
    assert "--mcp-config" in ev["cli"]["argv"] and "--strict-mcp-config" in ev["cli"]["argv"]
    (server,) = [i for i in ev["invocations"] if i["event"] == "mcp_server"]
    assert server["handler_type"] == "mcp_server" and server["pid"] > 0  # a process the CLI started
    assert server["payload"]["client"]["name"] == "claude-code" and server["gone_offset_s"] >= server["start_offset_s"]


def test_an_mcp_tool_hook_calls_the_server_with_its_interpolated_input(real_tools, tmp_path):
    ev = run(tmp_path, "mcp-tool-pretool-deny")
    (call,) = [i for i in ev["invocations"] if i.get("handler_type") == "mcp_tool"]
    assert call["event"] == "PreToolUse" and call["pid"] > 0
    assert call["payload"]["probe_key"] == "0-pre_tool" and call["payload"]["tool_name"] == "Bash"
    assert json.loads(call["payload"]["tool_input"])["command"].startswith("echo ran")  # ${tool_input} as JSON
    assert ev["hooks"][0]["handler"]["type"] == "mcp_tool" and ev["hooks"][0]["handler"]["server"] == "probe"
    assert ev["observations"]["reason_reached_model"] is True


def test_an_agent_hooks_sub_agent_plays_its_tool_turns_then_gives_its_verdict(real_tools, tmp_path):
    ev = run(tmp_path, "agent-pretool-deny-after-read")
    asked = [r for r in ev["model_requests"] if (r["reply"] or {}).get("hook") == "0-pre_tool"]
    assert [r["reply"].get("tool") for r in asked] == ["Read", "StructuredOutput"]
    (inv,) = ev["invocations"]
    assert inv["handler_type"] == "agent" and inv["duration_s"] > 0
    assert ev["outcome"] == "denied"
