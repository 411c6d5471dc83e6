"""The scripted model's Augment API dialect (Auggie) over real HTTP on loopback: get-models with
hooks on, the other start-up calls answered minimally, a chat-stream played as a chat (NDJSON,
a tool_use node then the stop reason), its history read back, each call logged."""

from __future__ import annotations

import json
import urllib.request

import pytest

from probes.runner.augment import augment_as_chat, augment_route
from tests.helpers import SCRIPT, log_entries, request
from tests.helpers import AnyAgentModel as ScriptedModel

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}, "cwd": {}, "wait": {}, "max_wait_seconds": {}}}
TOOLS = [{"name": "launch-process", "description": "run", "input_schema_json": json.dumps(SCHEMA), "tool_safety": 0}]
IDE = {"id": 2, "type": 4, "ide_state_node": {"workspace_folders": []}}
PROMPT = {"message": "", "nodes": [{"id": 1, "type": 0, "text_node": {"content": "go"}}, IDE], "chat_history": []}
USE = {"tool_use_id": "tu1", "tool_name": "launch-process", "input_json": '{"command": "echo hi"}'}
EXCHANGE = {
    "request_message": "",
    "response_text": "",
    "request_nodes": PROMPT["nodes"],
    "response_nodes": [{"id": 1, "type": 5, "content": "", "tool_use": USE}],
}
RESULT = {"id": 1, "type": 1, "tool_result_node": {"tool_use_id": "tu1", "content": "hi", "is_error": False}}
FOLLOW = {"message": "", "nodes": [IDE, RESULT], "chat_history": [EXCHANGE]}


@pytest.fixture
def model(tmp_path):
    with ScriptedModel(SCRIPT, tmp_path / "model.jsonl") as m:
        yield m


def start_up_call(port, path, body):
    """A call as Auggie makes it: its User-Agent is what routes a path the model does not know."""
    headers = {"Content-Type": "application/json", "User-Agent": "augment.cli/0.36.0 (commit 7c61e5bb)/noninteractive"}
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


def chat(port, body):
    status, _, raw = request(port, "/chat-stream", {**body, "tool_definitions": TOOLS, "mode": "CLI_NONINTERACTIVE"})
    assert status == 200
    return [json.loads(line) for line in raw.splitlines()]


def test_routes_by_augments_user_agent_or_the_model_endpoints():
    assert augment_route("/report-error", "augment.cli/0.36.0 (commit 7c61e5bb)/noninteractive") == "report-error"
    assert augment_route("/chat-stream", "x") == "chat-stream" and augment_route("/get-models", "") == "get-models"
    assert augment_route("/v1/chat/completions", "QwenCode/0.24.4") is None


def test_get_models_serves_hooks_on_and_start_up_calls_convert(model):
    _, _, raw = request(model.port, "/get-models", {})
    got = json.loads(raw)
    assert got["feature_flags"]["enable_hooks"] is True and got["models"][0]["name"] == got["default_model"]
    assert start_up_call(model.port, "/agents/list-remote-tools", {"tool_id_list": {}}) == {"tools": []}
    assert start_up_call(model.port, "/report-error", {"sanitized_message": "x"}) == {}
    entries = log_entries(model)
    assert [e["path"] for e in entries] == ["/get-models", "/agents/list-remote-tools", "/report-error"]
    assert entries[1]["user_agent"].startswith("augment.cli/0.36.0")


def test_a_turn_is_a_tool_use_node_then_the_next_a_text(model):
    first = chat(model.port, PROMPT)
    (node,) = first[0]["nodes"]
    assert node["type"] == 5 and node["tool_use"]["tool_name"] == "launch-process"
    args = json.loads(node["tool_use"]["input_json"])
    assert args["command"] == "echo hi" and args["wait"] is True and args["cwd"] == "."
    assert first[-1]["stop_reason"] == 3
    second = chat(model.port, FOLLOW)
    assert second[0]["text"] == "done" and second[-1]["stop_reason"] == 1
    entries = log_entries(model)
    assert [e["reply"].get("turn") for e in entries] == [0, 1] and entries[0]["tools"] == ["launch-process"]


def test_history_reads_as_user_assistant_tool_turns():
    body = augment_as_chat({**FOLLOW, "tool_definitions": TOOLS, "user_guidelines": "be brief"})
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool"] and body["system"] == "be brief"
    assert body["messages"][0]["content"] == "go" and body["messages"][2]["content"] == "hi"
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == "launch-process"
    assert body["tools"][0]["function"]["parameters"] == SCHEMA
