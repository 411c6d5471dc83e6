"""The scripted model's Gemini API dialect (Gemini CLI) over real HTTP on loopback."""

from __future__ import annotations

import json

import pytest

from probes.runner.dialects import gemini_as_chat, gemini_route
from tests.helpers import EXPECTED_ARGS, SCRIPT, log_entries, request, sse
from tests.helpers import AnyAgentModel as ScriptedModel

GEMINI_TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "run_shell_command",
                "description": "run a command",
                "parametersJsonSchema": {
                    "type": "object",
                    "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
                },
            },
            {"name": "read_file", "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}}}},
        ]
    }
]


@pytest.fixture
def server(tmp_path):
    started: list[ScriptedModel] = []

    def start(script=SCRIPT):
        started.append(ScriptedModel(script, tmp_path / "model.jsonl").__enter__())
        return started[-1]

    yield start
    for model in started:
        model.__exit__(None, None, None)


PROMPT = {"role": "user", "parts": [{"text": "go"}]}
CALL = {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": EXPECTED_ARGS}}]}
RESULT = {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command", "response": {"output": "hi\n"}}}]}


def gemini_stream(port, contents, tools=GEMINI_TOOLS):
    """The parts of every streamed chunk, and the last finish reason."""
    body = {"contents": contents, "tools": tools, "systemInstruction": {"parts": [{"text": "be brief"}]}}
    status, ctype, raw = request(port, "/v1beta/models/probe-model:streamGenerateContent?alt=sse", body)
    assert status == 200 and ctype == "text/event-stream"
    chunks = [json.loads(d) for _, d in sse(raw)]
    parts = [p for c in chunks for p in c["candidates"][0]["content"]["parts"]]
    finish = [c["candidates"][0].get("finishReason") for c in chunks]
    assert all(f is None for f in finish[:-1])
    return parts, finish[-1]


def test_route_names_the_model_and_whether_it_streams():
    assert gemini_route("/v1beta/models/gemini-3.5-flash:streamGenerateContent") == ("gemini-3.5-flash", True)
    assert gemini_route("/v1beta/models/probe-model:generateContent") == ("probe-model", False)
    assert gemini_route("/v1/chat/completions") is None
    assert gemini_route("/v1beta/models/probe-model:countTokens") is None


def test_stream_function_call_then_text_in_two_chunks(server):
    model = server()
    parts, finish = gemini_stream(model.port, [PROMPT])
    assert parts == [{"functionCall": {"name": "run_shell_command", "args": EXPECTED_ARGS}}]
    assert finish == "STOP"

    parts, finish = gemini_stream(model.port, [PROMPT, CALL, RESULT])
    assert len(parts) == 2 and "".join(p["text"] for p in parts) == "done"
    assert finish == "STOP"


def test_non_stream_and_its_log(server):
    model = server([{"tool": "view_file", "path": "a.txt"}, {"text": "done"}])
    body = {"contents": [PROMPT], "tools": GEMINI_TOOLS}
    status, _, raw = request(model.port, "/v1beta/models/probe-model:generateContent", body)
    assert status == 200
    reply = json.loads(raw)
    assert reply["candidates"][0]["content"]["parts"] == [{"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}]
    (entry,) = log_entries(model)
    assert entry["model"] == "probe-model" and entry["stream"] is False
    assert entry["tools"] == ["read_file", "run_shell_command"]
    assert [m["role"] for m in entry["messages"]] == ["user"]


def test_request_without_tools_is_aux(server):
    """Gemini CLI's side requests (e.g. a JSON answer wanted) carry no tools: not a turn."""
    model = server()
    parts, _ = gemini_stream(model.port, [PROMPT], tools=[])
    assert "".join(p["text"] for p in parts) == "ok"
    assert log_entries(model)[0]["reply"]["aux"] is True


def test_a_request_read_as_a_chat():
    chat = gemini_as_chat(
        {"contents": [PROMPT, CALL, RESULT], "systemInstruction": {"parts": [{"text": "sys"}]}, "tools": GEMINI_TOOLS}, "m", True
    )
    assert chat["system"] == "sys" and chat["model"] == "m" and chat["stream"] is True
    assert [m["role"] for m in chat["messages"]] == ["user", "assistant", "tool"]
    assert json.loads(chat["messages"][1]["tool_calls"][0]["function"]["arguments"]) == EXPECTED_ARGS
    assert "hi" in chat["messages"][2]["content"]
    assert [t["function"]["name"] for t in chat["tools"]] == ["run_shell_command", "read_file"]


def test_tool_config_limits_the_tools_the_model_may_call(server):
    """As the API does: mode NONE allows no call, allowedFunctionNames only those; the log still
    names every tool the CLI sent."""
    model = server()
    for config, called in (
        ({"mode": "NONE"}, False),
        ({"mode": "ANY", "allowedFunctionNames": ["read_file"]}, False),
        ({"mode": "AUTO", "allowedFunctionNames": []}, True),  # what Gemini CLI sends for a hook's AUTO
        ({}, True),
    ):
        body = {"contents": [PROMPT], "tools": GEMINI_TOOLS, "toolConfig": {"functionCallingConfig": config}}
        _, _, raw = request(model.port, "/v1beta/models/probe-model:generateContent", body)
        (part,) = json.loads(raw)["candidates"][0]["content"]["parts"]
        assert ("functionCall" in part) == called
    assert all(e["tools"] == ["read_file", "run_shell_command"] for e in log_entries(model))
