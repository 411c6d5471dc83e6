"""The wire formats the scripted model answers in: OpenAI chat completions (Copilot),
Anthropic messages (Claude Code), OpenAI Responses (Codex CLI), each streamed (server-sent events) or whole. A reply is a
script step already chosen (model.plan_reply); here it only takes its dialect's shape.
Standard library only, copied into every run beside model.py."""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .contract import ApiError, Reply


def _sse(event: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


# ---------------------------------------------------------------- an API error (a script's error step)
# Anthropic's error types by status (its API errors page); an OpenAI-shaped body carries the
# same `type`, a Gemini one its google.rpc status name.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
GEMINI_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
}


def error_type(error: ApiError) -> str:
    return error.get("type") or ERROR_TYPES.get(error.get("status", 500), "api_error")


def error_body(error: ApiError, path: str) -> dict[str, Any]:
    """The error's JSON body in the shape of the API `path` belongs to."""
    message, status = error.get("message", "probe: scripted API error"), error.get("status", 500)
    if gemini_route(path):
        return {"error": {"code": status, "message": message, "status": GEMINI_STATUSES.get(status, "INTERNAL")}}
    if path.endswith("/messages"):
        return {"type": "error", "error": {"type": error_type(error), "message": message}}
    return {"error": {"message": message, "type": error_type(error), "param": None, "code": None}}  # chat, responses


def openai_chunks(reply: Reply, model: str) -> list[bytes]:
    cid = "chatcmpl-" + uuid.uuid4().hex[:12]
    base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    if "tool" in reply:
        args = json.dumps(reply.get("arguments"))
        call = {"index": 0, "id": "call_" + uuid.uuid4().hex[:12], "type": "function"}
        out.append(chunk({"tool_calls": [{**call, "function": {"name": reply["tool"], "arguments": ""}}]}))
        half = len(args) // 2  # two fragments: clients must assemble them
        for part in (args[:half], args[half:]):
            out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}))
        out.append(chunk({}, "tool_calls"))
    else:
        out.append(chunk({"content": reply.get("text")}))
        out.append(chunk({}, "stop"))
    out.append(_sse(None, {**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}))
    out.append(_sse(None, "[DONE]"))
    return out


def openai_message(reply: Reply, model: str) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": reply.get("text")}
    finish = "stop"
    if "tool" in reply:
        msg["tool_calls"] = [
            {
                "id": "call_" + uuid.uuid4().hex[:12],
                "type": "function",
                "function": {"name": reply["tool"], "arguments": json.dumps(reply.get("arguments"))},
            }
        ]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _anthropic_block(reply: Reply) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(content_block_start block, full block, stop_reason)."""
    if "tool" in reply:
        tid = "toolu_" + uuid.uuid4().hex[:20]
        return (
            {"type": "tool_use", "id": tid, "name": reply["tool"], "input": {}},
            {"type": "tool_use", "id": tid, "name": reply["tool"], "input": reply.get("arguments")},
            "tool_use",
        )
    return {"type": "text", "text": ""}, {"type": "text", "text": reply.get("text")}, "end_turn"


def _anthropic_envelope(model: str, content: list[dict[str, Any]], stop_reason: str | None, tokens: int) -> dict[str, Any]:
    return {
        "id": "msg_" + uuid.uuid4().hex[:20],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": tokens},
    }


def anthropic_events(reply: Reply, model: str) -> list[bytes]:
    start, _, stop_reason = _anthropic_block(reply)
    message = _anthropic_envelope(model, [], None, 1)
    out = [
        _sse("message_start", {"type": "message_start", "message": message}),
        _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
    ]
    if "tool" in reply:
        args = json.dumps(reply.get("arguments"))
        half = len(args) // 2
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in (args[:half], args[half:])]
    else:
        deltas = [{"type": "text_delta", "text": reply.get("text", "")}]
    for d in deltas:
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": d}))
    delta = {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None}, "usage": {"output_tokens": 5}}
    out += [
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _sse("message_delta", delta),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return out


def anthropic_message(reply: Reply, model: str) -> dict[str, Any]:
    _, block, stop_reason = _anthropic_block(reply)
    return _anthropic_envelope(model, [block], stop_reason, 5)


# ---------------------------------------------------------------- Gemini API (Gemini CLI)
# POST .../models/MODEL:generateContent, or :streamGenerateContent?alt=sse (server-sent
# events, each a whole GenerateContentResponse). The request is read as a chat: contents of
# role "user" / "model", parts of text, functionCall, functionResponse.

GEMINI_METHODS = (":generateContent", ":streamGenerateContent")


def gemini_route(path: str) -> tuple[str, bool] | None:
    """(model, streamed) of a Gemini API path, or None for any other path."""
    path = path.split("?")[0]
    for method in GEMINI_METHODS:
        if path.endswith(method):
            return path[: -len(method)].rsplit("/", 1)[-1], method == ":streamGenerateContent"
    return None


def _gemini_text(parts: Any) -> str:
    return "\n".join(p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str))


def gemini_as_chat(body: dict[str, Any], model: str, stream: bool) -> dict[str, Any]:
    """A Gemini request as the chat-completions body the script logic reads: system, messages
    (a model turn is "assistant", a turn of function responses is "tool"), tools."""
    messages: list[dict[str, Any]] = []
    for content in body.get("contents") or []:
        parts = [p for p in content.get("parts") or [] if isinstance(p, dict)]
        calls = [p["functionCall"] for p in parts if isinstance(p.get("functionCall"), dict)]
        responses = [p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)]
        if content.get("role") == "model":
            tool_calls = [{"function": {"name": c.get("name"), "arguments": json.dumps(c.get("args"))}} for c in calls]
            messages.append({"role": "assistant", "content": _gemini_text(parts), "tool_calls": tool_calls})
        elif responses and not _gemini_text(parts):
            messages.append({"role": "tool", "content": "\n".join(json.dumps(r.get("response")) for r in responses)})
        else:
            messages.append({"role": "user", "content": _gemini_text(parts)})
    tools = [
        {"function": {"name": d.get("name", ""), "parameters": d.get("parametersJsonSchema") or d.get("parameters") or {}}}
        for t in body.get("tools") or []
        for d in t.get("functionDeclarations") or []
    ]
    system = body.get("systemInstruction") or (body.get("config") or {}).get("systemInstruction")
    return {
        "model": model,
        "stream": stream,
        "system": _gemini_text(system.get("parts")) if isinstance(system, dict) else system,
        "messages": messages,
        "tools": tools,
    }


def gemini_callable(chat: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """The chat with only the tools the request lets the model call, as the API honours
    toolConfig.functionCallingConfig: mode NONE, none; mode ANY with allowedFunctionNames, those
    (an empty list is no list: the API's protobuf cannot tell them apart)."""
    config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
    allowed = config.get("allowedFunctionNames") if config.get("mode") in ("ANY", "VALIDATED") else None
    if config.get("mode") == "NONE":
        allowed = []
    elif not allowed:
        return chat
    return {**chat, "tools": [t for t in chat["tools"] if t["function"]["name"] in allowed]}


def gemini_response(reply: Reply, model: str) -> dict[str, Any]:
    if "tool" in reply:
        part: dict[str, Any] = {"functionCall": {"name": reply["tool"], "args": reply.get("arguments") or {}}}
    else:
        part = {"text": reply.get("text") or ""}
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": model,
        "responseId": uuid.uuid4().hex[:20],
    }


def gemini_chunks(reply: Reply, model: str) -> list[bytes]:
    """A text in two chunks (clients must join them), a function call whole (the API never
    splits one); the finish reason on the last chunk."""
    whole = gemini_response(reply, model)
    if "tool" in reply:
        return [_sse(None, whole)]
    text = reply.get("text") or ""
    half = len(text) // 2
    first = {**whole, "candidates": [{"content": {"role": "model", "parts": [{"text": text[:half]}]}, "index": 0}]}
    last = {**whole, "candidates": [{**whole["candidates"][0], "content": {"role": "model", "parts": [{"text": text[half:]}]}}]}
    return [_sse(None, first), _sse(None, last)]


# ---------------------------------------------------------------- OpenAI Responses (Codex CLI)


def responses_as_chat(body: dict[str, Any]) -> dict[str, Any]:
    """A Responses API request (`input` items, flat `tools`) in the chat-completions shape the
    script logic reads: developer and user messages, each function call as an assistant turn,
    each call's output as a tool message. Tools of a `namespace` are listed by name too, and
    `tool_namespaces` says which namespace each of those is in (a call to it must name it:
    Codex 0.171.0's spawn_agent is in multi_agent_v1, and a call without it is unsupported)."""
    messages: list[dict[str, Any]] = []
    if body.get("instructions"):
        messages.append({"role": "system", "content": body["instructions"]})
    for item in body.get("input") or []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role = "system" if item.get("role") == "developer" else item.get("role", "user")
            messages.append({"role": role, "content": item.get("content")})
        elif kind in ("function_call", "custom_tool_call"):
            arguments = item.get("arguments", item.get("input", ""))
            call = {"id": item.get("call_id"), "type": "function", "function": {"name": item.get("name"), "arguments": arguments}}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output")
            messages.append({"role": "tool", "content": output if isinstance(output, str) else json.dumps(output)})
    tools, namespaces = [], {}
    listed = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    for outer in listed:
        for t in outer.get("tools") or [outer]:  # a namespace's too
            if t.get("type") == "function" and t.get("name"):
                tools.append({"type": "function", "function": {"name": t["name"], "parameters": t.get("parameters") or {}}})
                if t is not outer and isinstance(outer.get("name"), str):
                    namespaces[t["name"]] = outer["name"]
    return {**body, "messages": messages, "tools": tools, "tool_namespaces": namespaces}


def _response(model: str, status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_" + uuid.uuid4().hex[:24],
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": output,
        "usage": {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        },
    }


def _responses_item(reply: Reply, namespaces: Mapping[str, str]) -> dict[str, Any]:
    if "tool" in reply:
        namespace = namespaces.get(reply["tool"])
        return {
            "type": "function_call",
            "id": "fc_" + uuid.uuid4().hex[:24],
            "call_id": "call_" + uuid.uuid4().hex[:24],
            **({"namespace": namespace} if namespace else {}),
            "name": reply["tool"],
            "arguments": json.dumps(reply.get("arguments")),
            "status": "completed",
        }
    text = {"type": "output_text", "text": reply.get("text", ""), "annotations": []}
    mid = "msg_" + uuid.uuid4().hex[:24]
    return {"type": "message", "id": mid, "role": "assistant", "status": "completed", "content": [text]}


def responses_events(reply: Reply, model: str, namespaces: Mapping[str, str] | None = None) -> list[bytes]:
    """A streamed Responses reply: created, one output item (a function call whose arguments
    arrive in two deltas, or a message with one text delta), completed."""
    item = _responses_item(reply, namespaces or {})
    events: list[dict[str, Any]] = [{"type": "response.created", "response": _response(model, "in_progress", [])}]
    ref = {"output_index": 0, "item_id": item["id"]}
    if item["type"] == "function_call":
        args = item["arguments"]
        half = len(args) // 2  # two fragments: clients must assemble them
        events.append({"type": "response.output_item.added", "output_index": 0, "item": {**item, "arguments": ""}})
        events += [{"type": "response.function_call_arguments.delta", **ref, "delta": p} for p in (args[:half], args[half:])]
        events.append({"type": "response.function_call_arguments.done", **ref, "arguments": args})
    else:
        part = item["content"][0]
        events.append({"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}})
        events.append({"type": "response.content_part.added", **ref, "content_index": 0, "part": {**part, "text": ""}})
        events.append({"type": "response.output_text.delta", **ref, "content_index": 0, "delta": part["text"]})
        events.append({"type": "response.output_text.done", **ref, "content_index": 0, "text": part["text"]})
        events.append({"type": "response.content_part.done", **ref, "content_index": 0, "part": part})
    events.append({"type": "response.output_item.done", "output_index": 0, "item": item})
    events.append({"type": "response.completed", "response": _response(model, "completed", [item])})
    return [_sse(e["type"], {**e, "sequence_number": i}) for i, e in enumerate(events)]


def responses_message(reply: Reply, model: str, namespaces: Mapping[str, str] | None = None) -> dict[str, Any]:
    return _response(model, "completed", [_responses_item(reply, namespaces or {})])
