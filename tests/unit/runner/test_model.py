"""The scripted model server over real HTTP on loopback."""

from __future__ import annotations

import json

import pytest

from tests.helpers import EXPECTED_ARGS, SCRIPT, log_entries, request, sse
from tests.helpers import AnyAgentModel as ScriptedModel

OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "run a command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}}},
        },
    }
]


ANTHROPIC_TOOLS = [
    {
        "name": "Bash",
        "description": "run a command",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}}},
    }
]


@pytest.fixture
def server(tmp_path):
    """Start a ScriptedModel as the runner does; it stops at once when the test ends."""

    def start(script=SCRIPT):
        model = ScriptedModel(script, tmp_path / "model.jsonl").__enter__()
        started.append(model)
        return model

    started: list[ScriptedModel] = []
    yield start
    for model in started:
        model.__exit__(None, None, None)


def openai_stream(port, messages, tools=OPENAI_TOOLS):
    status, ctype, raw = request(
        port, "/v1/chat/completions", {"model": "gpt-probe", "stream": True, "tools": tools, "messages": messages}
    )
    assert status == 200 and ctype == "text/event-stream"
    datas = [d for _, d in sse(raw)]
    assert datas[-1] == "[DONE]"
    chunks = [json.loads(d) for d in datas[:-1]]
    calls: dict[int, dict] = {}
    text, finish = "", None
    for chunk in chunks:
        for choice in chunk["choices"]:
            delta = choice["delta"]
            text += delta.get("content") or ""
            for frag in delta.get("tool_calls") or []:
                call = calls.setdefault(frag["index"], {"name": "", "arguments": ""})
                fn = frag.get("function") or {}
                call["name"] += fn.get("name") or ""
                call["arguments"] += fn.get("arguments") or ""
            finish = choice["finish_reason"] or finish
    return calls, text, finish


def anthropic_stream(port, messages, tools=ANTHROPIC_TOOLS):
    status, ctype, raw = request(
        port,
        "/v1/messages?beta=true",
        {"model": "claude-probe", "stream": True, "max_tokens": 100, "tools": tools, "messages": messages},
    )
    assert status == 200 and ctype == "text/event-stream"
    events = [(e, json.loads(d)) for e, d in sse(raw)]
    for name, data in events:
        assert data["type"] == name
    return events


def test_openai_stream_tool_call_then_text(server):
    model = server()
    calls, text, finish = openai_stream(model.port, [{"role": "user", "content": "go"}])
    assert list(calls) == [0]
    assert calls[0]["name"] == "bash"
    assert json.loads(calls[0]["arguments"]) == EXPECTED_ARGS
    assert finish == "tool_calls"
    assert text == ""

    history = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": json.dumps(EXPECTED_ARGS)}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "hi\n"},
    ]
    calls, text, finish = openai_stream(model.port, history)
    assert calls == {}
    assert text == "done"
    assert finish == "stop"


def test_openai_non_stream(server):
    model = server()
    _, ctype, raw = request(
        model.port,
        "/v1/chat/completions",
        {"model": "gpt-probe", "tools": OPENAI_TOOLS, "messages": [{"role": "user", "content": "go"}]},
    )
    assert ctype == "application/json"
    choice = json.loads(raw)["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    (call,) = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "bash"
    assert json.loads(call["function"]["arguments"]) == EXPECTED_ARGS

    _, _, raw = request(
        model.port,
        "/v1/chat/completions",
        {
            "model": "gpt-probe",
            "tools": OPENAI_TOOLS,
            "messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "x"}],
        },
    )
    choice = json.loads(raw)["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert choice["message"] == {"role": "assistant", "content": "done"}


def test_anthropic_stream_tool_use(server):
    model = server()
    events = anthropic_stream(model.port, [{"role": "user", "content": "go"}])
    names = [e for e, _ in events]
    deltas = [d for e, d in events if e == "content_block_delta"]
    assert len(deltas) >= 1
    assert names == (
        ["message_start", "content_block_start"]
        + ["content_block_delta"] * len(deltas)
        + ["content_block_stop", "message_delta", "message_stop"]
    )
    block = events[1][1]["content_block"]
    assert block["type"] == "tool_use" and block["name"] == "Bash"
    assert block["id"].startswith("toolu_")
    assert all(d["delta"]["type"] == "input_json_delta" for d in deltas)
    assert json.loads("".join(d["delta"]["partial_json"] for d in deltas)) == EXPECTED_ARGS
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_anthropic_stream_text_after_tool_result(server):
    model = server()
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": EXPECTED_ARGS}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hi"}]},
    ]
    events = anthropic_stream(model.port, history)
    assert events[1][1]["content_block"]["type"] == "text"
    text = "".join(d["delta"]["text"] for e, d in events if e == "content_block_delta")
    assert text == "done"
    assert events[-2][1]["delta"]["stop_reason"] == "end_turn"


def test_anthropic_non_stream(server):
    model = server()
    _, ctype, raw = request(
        model.port,
        "/v1/messages",
        {"model": "claude-probe", "max_tokens": 100, "tools": ANTHROPIC_TOOLS, "messages": [{"role": "user", "content": "go"}]},
    )
    assert ctype == "application/json"
    msg = json.loads(raw)
    assert msg["type"] == "message" and msg["stop_reason"] == "tool_use"
    (block,) = msg["content"]
    assert block["type"] == "tool_use" and block["name"] == "Bash"
    assert block["input"] == EXPECTED_ARGS

    _, _, raw = request(
        model.port,
        "/v1/messages",
        {
            "model": "claude-probe",
            "max_tokens": 100,
            "tools": ANTHROPIC_TOOLS,
            "messages": [{"role": "user", "content": "go"}, {"role": "assistant", "content": "x"}],
        },
    )
    msg = json.loads(raw)
    assert msg["stop_reason"] == "end_turn"
    assert msg["content"] == [{"type": "text", "text": "done"}]


def test_request_without_tools_is_aux_and_not_a_turn(server):
    model = server()
    _, _, raw = request(
        model.port,
        "/v1/messages",
        {"model": "claude-probe", "max_tokens": 10, "messages": [{"role": "user", "content": "title please"}]},
    )
    assert json.loads(raw)["content"] == [{"type": "text", "text": "ok"}]
    # the scripted conversation still starts at step 0
    _, _, raw = request(
        model.port,
        "/v1/messages",
        {"model": "claude-probe", "max_tokens": 10, "tools": ANTHROPIC_TOOLS, "messages": [{"role": "user", "content": "go"}]},
    )
    assert json.loads(raw)["content"][0]["type"] == "tool_use"
    aux, scripted = log_entries(model)
    assert aux["reply"] == {"text": "ok", "aux": True}
    assert scripted["reply"]["turn"] == 0


def test_past_end_of_script_last_text_repeats(server):
    model = server([{"text": "first"}, {"tool": "shell", "command": "true"}, {"text": "last"}])
    for turns in (3, 4, 7):
        messages = [{"role": "user", "content": "go"}]
        messages += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}] * turns
        _, _, raw = request(model.port, "/v1/chat/completions", {"tools": OPENAI_TOOLS, "messages": messages})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "last"


def test_missing_tool_kind_yields_text(server):
    model = server([{"tool": "subagent", "prompt": "p"}])
    _, _, raw = request(
        model.port, "/v1/messages", {"max_tokens": 10, "tools": ANTHROPIC_TOOLS, "messages": [{"role": "user", "content": "go"}]}
    )
    msg = json.loads(raw)
    assert msg["stop_reason"] == "end_turn"
    assert "'subagent'" in msg["content"][0]["text"]
    (entry,) = log_entries(model)
    assert entry["reply"]["missing_tool"] == "subagent"


def test_tool_choice_follows_client_tools_and_schema(server):
    model = server([{"tool": "create_file", "path": "a.txt", "content": "hello\n"}])
    openai_tools = [
        {
            "type": "function",
            "function": {"name": "create", "parameters": {"type": "object", "properties": {"path": {}, "file_text": {}}}},
        }
    ]
    anthropic_tools = [
        {"name": "Write", "input_schema": {"type": "object", "properties": {"file_path": {}, "content": {}}}},
        {"name": "Bash", "input_schema": {"properties": {"command": {}}}},
    ]
    calls, _, _ = openai_stream(model.port, [{"role": "user", "content": "go"}], openai_tools)
    assert calls[0]["name"] == "create"
    assert json.loads(calls[0]["arguments"]) == {"path": "a.txt", "file_text": "hello\n"}
    _, _, raw = request(
        model.port, "/v1/messages", {"max_tokens": 10, "tools": anthropic_tools, "messages": [{"role": "user", "content": "go"}]}
    )
    (block,) = json.loads(raw)["content"]
    assert block["name"] == "Write"
    assert block["input"] == {"file_path": "a.txt", "content": "hello\n"}


def test_shell_arguments_only_fill_schema_properties(server):
    model = server()
    tools = [{"name": "bash", "input_schema": {"properties": {"command": {}}}}]
    _, _, raw = request(
        model.port, "/v1/messages", {"max_tokens": 10, "tools": tools, "messages": [{"role": "user", "content": "go"}]}
    )
    (block,) = json.loads(raw)["content"]
    assert block["name"] == "bash"
    assert block["input"] == {"command": "echo hi"}


def test_every_request_is_logged(server):
    model = server()
    request(
        model.port,
        "/v1/messages?beta=true",
        {
            "model": "claude-probe",
            "max_tokens": 10,
            "tools": ANTHROPIC_TOOLS,
            "system": [{"type": "text", "text": "be brief"}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "file.txt"}]},
            ],
        },
    )
    request(
        model.port,
        "/v1/chat/completions",
        {
            "model": "gpt-probe",
            "tools": OPENAI_TOOLS,
            "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}],
        },
    )
    first, second = log_entries(model)
    assert first["seq"] == 1 and second["seq"] == 2
    assert first["path"] == "/v1/messages"
    assert first["model"] == "claude-probe"
    assert first["tools"] == ["Bash"]
    assert first["user_agent"] == "probe-test/1.0"
    assert first["messages"] == [
        {"role": "system", "text": "be brief"},
        {"role": "user", "text": "go"},
        {"role": "assistant", "text": '{"command": "ls"}'},
        {"role": "tool", "text": "file.txt"},
    ]
    assert second["path"] == "/v1/chat/completions"
    assert second["model"] == "gpt-probe"
    assert second["tools"] == ["bash"]
    assert second["messages"] == [{"role": "system", "text": "sys"}, {"role": "user", "text": "go"}]


def test_count_tokens_and_models(server):
    model = server()
    status, _, raw = request(
        model.port, "/v1/messages/count_tokens", {"model": "claude-probe", "messages": [{"role": "user", "content": "hi"}]}
    )
    assert status == 200 and json.loads(raw) == {"input_tokens": 10}
    status, _, raw = request(model.port, "/v1/models", method="GET")
    assert status == 200
    assert [m["id"] for m in json.loads(raw)["data"]] == ["probe-model"]
    assert [e["path"] for e in log_entries(model)] == ["/v1/messages/count_tokens", "/v1/models"]


def test_each_marked_prompt_plays_its_own_script():
    """An interactive session's second prompt starts its own script, whatever came before;
    a conversation with no marked prompt counts turns over the whole conversation."""
    from tests.helpers import any_agent_reply as plan_reply

    tools = [
        {
            "type": "function",
            "function": {"name": "bash", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}},
        }
    ]
    prompts = {"PROBE-PROMPT-1": [{"tool": "shell", "command": "echo 1"}, {"text": "one"}], "PROBE-PROMPT-2": [{"text": "two"}]}
    first = [{"role": "user", "content": "go (PROBE-PROMPT-1)"}]
    done_first = first + [
        {"role": "assistant", "content": None},
        {"role": "tool", "content": "ok"},
        {"role": "assistant", "content": "one"},
    ]
    second = done_first + [{"role": "user", "content": "again (PROBE-PROMPT-2)"}]
    reply = lambda messages: plan_reply({"messages": messages, "tools": tools}, [{"text": "global"}], None, prompts)  # noqa: E731
    assert reply(first)["tool"] == "bash"
    assert reply(done_first[:3])["text"] == "one"
    assert reply(second) == {"text": "two", "turn": 0}
    assert reply([{"role": "user", "content": "unmarked"}])["text"] == "global"
