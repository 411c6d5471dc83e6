"""A request's messages as text, for either dialect (OpenAI chat completions, Anthropic
messages): what the scripted model reads to place a request and logs for the harness.
Standard library only (the runner's side)."""

from __future__ import annotations

import json
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
