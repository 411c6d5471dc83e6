"""The probe's MCP server (probes/runner/mcp_server.py), started as the CLI starts it and
spoken to in newline-delimited JSON-RPC 2.0."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from probes.runner.contract import HookRecord, McpConfig

SERVER = Path(__file__).parents[3] / "probes" / "runner" / "mcp_server.py"


class Session:
    def __init__(self, tmp: Path, config: McpConfig) -> None:
        shutil.copy(SERVER, tmp / "mcp_server.py")
        (tmp / "mcp.json").write_text(json.dumps(config))
        self.proc = subprocess.Popen(
            [sys.executable, "-S", "-E", "-s", str(tmp / "mcp_server.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.records = Path(config["records"])
        self.next_id = 0

    def send(self, method: str, params: dict[str, Any] | None = None, notify: bool = False) -> dict[str, Any] | None:
        assert self.proc.stdin and self.proc.stdout
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            self.next_id += 1
            msg["id"] = self.next_id
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        if notify:
            return None
        reply: dict[str, Any] = json.loads(self.proc.stdout.readline())
        assert reply["jsonrpc"] == "2.0" and reply["id"] == self.next_id
        return reply

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        assert self.proc.wait(timeout=10) == 0

    def saved(self) -> list[HookRecord]:
        names = sorted(self.records.glob("*.json"), key=lambda p: int(p.name.split("-")[0]))
        return [json.loads(p.read_text()) for p in names]


@pytest.fixture
def session(tmp_path: Path) -> Any:
    records = tmp_path / "records"
    records.mkdir()
    config: McpConfig = {
        "records": str(records),
        "hooks": {
            "0-pre_tool": {"event": "PreToolUse", "answer": {"body": {"decision": "block", "reason": "PROBE-MCP"}}},
            "1-stop": {"event": "Stop", "answer": {"body": "not json", "status": 500}},
        },
        "tools": {},
    }
    s = Session(tmp_path, config)
    yield s
    if s.proc.poll() is None:
        s.proc.kill()


def initialise(s: Session) -> dict[str, Any]:
    reply = s.send("initialize", {"protocolVersion": "2025-11-25", "clientInfo": {"name": "claude-code", "version": "9.9.9"}})
    assert reply is not None
    s.send("notifications/initialized", notify=True)
    return reply


def test_initialize_echoes_the_protocol_and_records_the_connection(session: Session) -> None:
    reply = initialise(session)
    assert reply["result"]["protocolVersion"] == "2025-11-25"
    assert reply["result"]["capabilities"] == {"tools": {}}
    listed = session.send("tools/list")
    assert listed is not None
    assert [t["name"] for t in listed["result"]["tools"]] == ["record", "probe_tool"]
    session.close()
    (server,) = session.saved()
    assert server["key"] == "mcp-server" and server["handler_type"] == "mcp_server"
    assert server["pid"] == session.proc.pid
    payload = server["payload"]
    assert payload["client"]["version"] == "9.9.9"
    assert payload["initialize_at"] == server["started_at"] <= payload["initialized_at"] == server["ended_at"]
    assert payload["tools_listed_at"] >= payload["initialized_at"]


def test_a_hook_call_is_recorded_by_its_key_and_answered_as_scripted(session: Session) -> None:
    initialise(session)
    reply = session.send("tools/call", {"name": "record", "arguments": {"probe_key": "0-pre_tool", "tool_name": "Bash"}})
    assert reply is not None
    assert reply["result"] == {
        "content": [{"type": "text", "text": '{"decision": "block", "reason": "PROBE-MCP"}'}],
        "isError": False,
    }
    error = session.send("tools/call", {"name": "record", "arguments": {"probe_key": "1-stop"}})
    assert error is not None and error["result"]["isError"] is True and error["result"]["content"][0]["text"] == "not json"
    session.close()
    _, pre, stop = session.saved()
    assert (pre["key"], pre["event"], pre["handler_type"]) == ("0-pre_tool", "PreToolUse", "mcp_tool")
    assert pre["payload"] == {"probe_key": "0-pre_tool", "tool_name": "Bash"}
    assert pre["exit_code"] == 0 and pre["ended_at"] is not None and pre["ended_at"] >= pre["started_at"]
    assert pre["output"] == '{"decision": "block", "reason": "PROBE-MCP"}'
    assert (stop["event"], stop["exit_code"], stop["output"]) == ("Stop", 1, "not json")


def test_the_models_own_call_and_unknown_methods(session: Session) -> None:
    initialise(session)
    reply = session.send("tools/call", {"name": "probe_tool", "arguments": {"description": "probe step"}})
    assert reply is not None and reply["result"]["content"][0]["text"] == "{}"
    unknown = session.send("resources/list")
    assert unknown is not None and unknown["error"]["code"] == -32601
    session.close()
    _, call = session.saved()
    assert (call["key"], call["event"], call["handler_type"]) == ("mcp-probe_tool", "tools/call", "mcp_server")
    assert call["payload"] == {"tool": "probe_tool", "arguments": {"description": "probe step"}}


def test_a_call_that_asks_elicits_from_the_client_first(session: Session) -> None:
    """A call whose arguments carry `elicit` sends elicitation/create, handles what the client
    sends meanwhile after the call, and records and returns the client's answer."""
    initialise(session)
    assert session.proc.stdin and session.proc.stdout
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "probe_tool", "arguments": {"elicit": "form"}}}
    session.proc.stdin.write(json.dumps(call) + "\n")
    session.proc.stdin.flush()
    asked = json.loads(session.proc.stdout.readline())
    assert asked["method"] == "elicitation/create" and asked["id"] == "probe-elicit"
    assert asked["params"]["message"].startswith("PROBE-ELICIT") and asked["params"]["requestedSchema"]["required"] == ["answer"]
    ping = {"jsonrpc": "2.0", "id": 8, "method": "ping"}  # sent while the elicitation waits: answered after the call
    answer = {"jsonrpc": "2.0", "id": "probe-elicit", "result": {"action": "accept", "content": {"answer": "yes"}}}
    session.proc.stdin.write(json.dumps(ping) + "\n" + json.dumps(answer) + "\n")
    session.proc.stdin.flush()
    result = json.loads(session.proc.stdout.readline())
    assert result["id"] == 7 and json.loads(result["result"]["content"][0]["text"])["result"] == answer["result"]
    assert json.loads(session.proc.stdout.readline()) == {"jsonrpc": "2.0", "id": 8, "result": {}}
    session.close()
    _, rec = session.saved()
    elicited = rec["payload"]["elicitation"]
    assert elicited["result"] == {"action": "accept", "content": {"answer": "yes"}}
    assert elicited["asked_at"] <= elicited["answered_at"] <= rec["ended_at"]
