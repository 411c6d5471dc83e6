"""The scripted model's OpenAI Responses dialect (Codex CLI) over real HTTP on loopback: a
request's `input` items read as a conversation, replies as streamed Responses events."""

from __future__ import annotations

import json

import pytest

from tests.helpers import SCRIPT, log_entries, request, sse
from tests.helpers import AnyAgentModel as ScriptedModel

EXEC = {
    "type": "function",
    "name": "exec_command",
    "parameters": {
        "type": "object",
        "properties": {"cmd": {"type": "string"}, "workdir": {"type": "string"}},
        "required": ["cmd"],
        "additionalProperties": False,
    },
}
SPAWN = {"type": "function", "name": "spawn_agent", "parameters": {}}
NAMESPACE = {"type": "namespace", "name": "multi_agent_v1", "tools": [SPAWN]}
FIRST = [
    {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sys"}]},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
]


@pytest.fixture
def server(tmp_path):
    """A ScriptedModel as the runner starts it, stopped when the test ends."""
    started: list[ScriptedModel] = []

    def start(script=SCRIPT):
        started.append(ScriptedModel(script, tmp_path / "model.jsonl").__enter__())
        return started[-1]

    yield start
    for model in started:
        model.__exit__(None, None, None)


def body(items, stream=True):
    return {"model": "probe-model", "stream": stream, "input": items, "tools": [EXEC, NAMESPACE, {"type": "web_search"}]}


def test_stream_function_call_then_text(server):
    model = server()
    status, ctype, raw = request(model.port, "/v1/responses", body(FIRST))
    assert status == 200 and ctype == "text/event-stream"
    events = sse(raw)
    names = [e for e, _ in events]
    assert names[0] == "response.created" and names[-1] == "response.completed"
    datas = [json.loads(d) for _, d in events]
    assert [d["sequence_number"] for d in datas] == list(range(len(datas)))
    assert all(d["type"] == e for (e, _), d in zip(events, datas, strict=True))
    deltas = "".join(d["delta"] for d in datas if d["type"] == "response.function_call_arguments.delta")
    done = next(d["item"] for d in datas if d["type"] == "response.output_item.done")
    assert done["type"] == "function_call" and done["name"] == "exec_command"
    assert json.loads(deltas) == json.loads(done["arguments"]) == {"cmd": "echo hi"}  # only the schema's fields
    assert datas[-1]["response"]["output"] == [done] and datas[-1]["response"]["status"] == "completed"

    call = {"type": "function_call", "name": "exec_command", "arguments": done["arguments"], "call_id": done["call_id"]}
    output = {"type": "function_call_output", "call_id": done["call_id"], "output": "hi\n"}
    _, _, raw = request(model.port, "/v1/responses", body([*FIRST, call, output]))
    datas = [json.loads(d) for _, d in sse(raw)]
    text = "".join(d["delta"] for d in datas if d["type"] == "response.output_text.delta")
    item = datas[-1]["response"]["output"][0]
    assert text == "done" and item["type"] == "message" and item["content"][0]["text"] == "done"

    first, second = log_entries(model)
    assert first["path"] == "/v1/responses" and first["stream"] is True
    assert first["tools"] == ["exec_command", "spawn_agent"]  # a namespace's tools are listed too
    assert first["messages"] == [{"role": "system", "text": "sys"}, {"role": "user", "text": "go"}]
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "tool"]
    assert second["messages"][3]["text"] == "hi\n" and second["reply"]["turn"] == 1


def test_non_stream_reply_is_one_response(server):
    model = server()
    status, ctype, raw = request(model.port, "/v1/responses", body(FIRST, stream=False))
    reply = json.loads(raw)
    assert status == 200 and ctype == "application/json"
    assert reply["object"] == "response" and reply["status"] == "completed"
    assert reply["output"][0]["type"] == "function_call" and json.loads(reply["output"][0]["arguments"]) == {"cmd": "echo hi"}


def test_assistant_output_text_is_read_back(server):
    """An earlier assistant message comes back as output_text: it counts as a turn and its text
    is in the log (a hook's reason echoed by the model would be read from there)."""
    model = server([{"text": "first"}, {"text": "second"}])
    said = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "first"}]}
    again = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "more"}]}
    request(model.port, "/v1/responses", body([*FIRST, said, again]))
    (entry,) = log_entries(model)
    assert entry["messages"][2] == {"role": "assistant", "text": "first"} and entry["reply"]["text"] == "second"
