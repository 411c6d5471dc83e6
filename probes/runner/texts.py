"""A request's messages as text, for either dialect (OpenAI chat completions, Anthropic
messages): what the scripted model reads to place a request and logs for the harness.
Standard library only (the runner's side)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .contract import Message

Body = dict[str, Any]  # a request body as the CLI sent it


def opening_user_text(body: Body) -> str:
    """The user messages before the first answer: VS Code's subagent gets its task in a second
    user message, after one of workspace context; a parent's later tool results never count."""
    texts = []
    for m in body.get("messages") or []:
        if m.get("role") not in ("user", "system"):
            break
        if m.get("role") == "user":
            texts.append(content_text(m.get("content")))
    return "\n".join(texts)


def content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if not isinstance(block, dict):
            parts.append(str(block))
        elif block.get("type") in ("text", "input_text", "output_text"):
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            parts.append(content_text(block.get("content")))
        elif block.get("type") == "tool_use":
            parts.append(json.dumps(block.get("input"), sort_keys=True))
    return "\n".join(parts)


def conversation(body: Body) -> list[Message]:
    """The request's messages as [{"role", "text"}], system first, for either dialect.
    Anthropic tool results arrive as user messages; they are labelled role "tool"."""
    out: list[Message] = []
    system = body.get("system")
    if system:
        out.append({"role": "system", "text": content_text(system)})
    for m in body.get("messages") or []:
        role = m.get("role", "")
        content = m.get("content")
        blocks = content if isinstance(content, list) else []
        if role == "user" and blocks and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
            role = "tool"
        text = content_text(content)
        for call in m.get("tool_calls") or []:
            text += "\n" + call.get("function", {}).get("arguments", "")
        out.append({"role": role, "text": text})
    return out


# A CLI that defers its tools offers the model a search that loads them (Claude Code 2.1.69's
# ToolSearch offers nothing else): the model loads the step's tool with it first, unscripted.
TOOL_SEARCH = "ToolSearch"


def searched_only(message: Mapping[str, Any]) -> bool:
    """An assistant message whose only tool calls load tools (TOOL_SEARCH): not a scripted turn."""
    calls = [c.get("function", {}).get("name") for c in message.get("tool_calls") or []]
    content = message.get("content")
    if isinstance(content, list):
        calls += [b.get("name") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    return bool(calls) and all(name == TOOL_SEARCH for name in calls)


# Assistant messages a CLI writes into the conversation itself, not turns the model played:
# Qwen Code before 0.15 acknowledges its own environment context (Gemini CLI's old opening).
CANNED_ACKS = frozenset({"Got it. Thanks for the context!"})


def played_turn(message: Mapping[str, Any]) -> bool:
    """An assistant message the model played (not one of CANNED_ACKS, nor a tool search)."""
    if message.get("role") != "assistant" or searched_only(message):
        return False
    return message.get("tool_calls") is not None or content_text(message.get("content")).strip() not in CANNED_ACKS
