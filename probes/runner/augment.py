"""Augment's own API (Auggie CLI), as the scripted model answers it. The CLI's tenant URL is the
model's root (AUGMENT_SESSION_AUTH's tenantURL) and every call is a POST of JSON to a path under
it, with a User-Agent `augment.cli/VERSION (commit ...)/MODE` (0.36.0):

- `get-models`: the model list and the tenant's feature flags; `feature_flags.enable_hooks`
  gates every hook (0.36.0 runs none without it), so it is served true.
- `chat-stream`: one model turn. The request holds the turn's `nodes` (type 0 text_node, type 1
  tool_result_node, type 4 ide_state_node), the earlier exchanges in `chat_history` (each its
  request_message, request_nodes, response_text, response_nodes), the tools in
  `tool_definitions` ({name, input_schema_json}); no system prompt (the server keeps it), only
  `user_guidelines`, `workspace_guidelines` and `rules`. The answer is NDJSON, one BackChatResult
  a line ({text, nodes, stop_reason}): a tool call is a response node of type 5 with
  `tool_use {tool_use_id, tool_name, input_json}`, stop reason 3 (TOOL_USE_REQUESTED); a text,
  `text` and a type 0 node, stop reason 1 (END_TURN).
- everything else it calls at start (0.36.0: settings/get-mcp-tenant-configs,
  settings/get-mcp-user-configs, agents/list-remote-tools, report-error): answered with the
  least that converts (`{}`, no remote tools), and logged like the rest.

Here a request is only read as a chat (augment_as_chat) and a reply only given its shape;
model.py plans it. Standard library only, copied into every run beside model.py."""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .contract import Reply

UA_PREFIX = "augment."  # augment.cli/0.36.0 (commit 7c61e5bb)/noninteractive
CHAT = "chat-stream"
MODELS = "get-models"
TEXT, TOOL_RESULT, TOOL_USE = 0, 1, 5  # node types (request: text, tool result; response: tool use)
END_TURN, TOOL_USE_REQUESTED = 1, 3  # stop reasons
# What a start-up call other than the two above is answered (its converter fails on `{}`).
MINIMAL: dict[str, Any] = {"agents/list-remote-tools": {"tools": []}}


def augment_route(path: str, user_agent: str) -> str | None:
    """The endpoint an Augment client called (path without its leading slash), or None for a
    request of another dialect: any call whose User-Agent is Augment's, and the two model
    endpoints by path alone."""
    endpoint = path.split("?")[0].lstrip("/")
    if user_agent.startswith(UA_PREFIX) or endpoint in (CHAT, MODELS):
        return endpoint
    return None


def answer(endpoint: str, model: str) -> dict[str, Any]:
    """Any call but chat-stream: get-models lists one model, its default, and hooks on; the
    rest get the least their converters take."""
    if endpoint == MODELS:
        info = {"name": model, "suggested_prefix_char_count": 1000, "suggested_suffix_char_count": 1000}
        return {"default_model": model, "models": [info], "feature_flags": {"enable_hooks": True}}
    return dict(MINIMAL.get(endpoint, {}))


def _node_text(node: dict[str, Any]) -> str:
    """A request node as text: a text node's content; any other but IDE state as its JSON (a
    hook's context may arrive in a node of its own)."""
    kind = node.get("type")
    if kind == TEXT:
        return str((node.get("text_node") or {}).get("content") or "")
    if kind == 4 or kind == TOOL_RESULT:
        return ""
    return json.dumps(node, sort_keys=True)


def _request(message: str, nodes: list[Any]) -> list[dict[str, Any]]:
    """A user turn's messages: its tool results (role tool) first, then its text (role user)."""
    nodes = [n for n in nodes if isinstance(n, dict)]
    out: list[dict[str, Any]] = []
    for n in nodes:
        if n.get("type") == TOOL_RESULT:
            result = n.get("tool_result_node") or {}
            out.append({"role": "tool", "content": str(result.get("content") or "")})
    text = "\n".join(t for t in [message, *(_node_text(n) for n in nodes)] if t)
    if text or not out:
        out.append({"role": "user", "content": text})
    return out


def _response(text: str, nodes: list[Any]) -> dict[str, Any]:
    """An assistant turn: its text and its tool calls."""
    calls = [
        {
            "id": u.get("tool_use_id"),
            "type": "function",
            "function": {"name": u.get("tool_name"), "arguments": u.get("input_json") or ""},
        }
        for n in nodes
        if isinstance(n, dict) and n.get("type") == TOOL_USE and isinstance(u := n.get("tool_use"), dict)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    return message


def augment_as_chat(body: dict[str, Any]) -> dict[str, Any]:
    """A chat-stream request as the chat-completions body the script logic reads: system (the
    guidelines and rules it sends instead of a system prompt), each earlier exchange as its
    user turn and assistant turn, then this turn's; tools with their schemas."""
    messages: list[dict[str, Any]] = []
    for exchange in body.get("chat_history") or []:
        if not isinstance(exchange, dict):
            continue
        messages += _request(str(exchange.get("request_message") or ""), exchange.get("request_nodes") or [])
        messages.append(_response(str(exchange.get("response_text") or ""), exchange.get("response_nodes") or []))
    messages += _request(str(body.get("message") or ""), body.get("nodes") or [])
    tools = []
    for t in body.get("tool_definitions") or []:
        try:
            schema = json.loads(t.get("input_schema_json") or "{}")
        except ValueError:
            schema = {}
        tools.append({"type": "function", "function": {"name": t.get("name", ""), "parameters": schema}})
    rules = body.get("rules") or []
    system = [
        body.get("user_guidelines"),
        body.get("workspace_guidelines"),
        *(r if isinstance(r, str) else json.dumps(r) for r in rules),
    ]
    return {
        "model": body.get("model") or None,
        "stream": True,
        "system": "\n".join(s for s in system if isinstance(s, str) and s),
        "messages": messages,
        "tools": tools,
    }


def chat_lines(reply: Reply) -> list[bytes]:
    """A chat-stream answer, NDJSON: the content line, then the stop reason's."""
    if "tool" in reply:
        use = {
            "tool_use_id": "toolu_" + uuid.uuid4().hex[:20],
            "tool_name": reply["tool"],
            "input_json": json.dumps(reply.get("arguments")),
        }
        lines: list[dict[str, Any]] = [
            {"text": "", "nodes": [{"id": 1, "type": TOOL_USE, "content": "", "tool_use": use}]},
            {"text": "", "nodes": [], "stop_reason": TOOL_USE_REQUESTED},
        ]
    else:
        text = reply.get("text") or ""
        lines = [
            {"text": text, "nodes": [{"id": 0, "type": TEXT, "content": text}]},
            {"text": "", "nodes": [], "stop_reason": END_TURN},
        ]
    return [json.dumps(line).encode() + b"\n" for line in lines]
