"""Hook evaluations: a prompt hook (Claude Code's `type: prompt`) is a question the CLI sends
its model, known by its system prompt and placed by the PROBE-HOOK-<key> its text starts with
(pipeline/plan.py writes it). An agent hook (`type: agent`) is a sub-agent conversation with
the same marks whose tools include StructuredOutput: its verdict is a call of that tool. The
scripted model answers as the recipe scripts; a hook evaluation that names no key the plan
scripts is answered as not JSON and recorded, never guessed. Standard library only (the
runner's side)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:
    from .contract import HOOK_SENTINEL, HookAnswer, Reply
else:  # run as a script (runner.py), with its files beside it
    from contract import HOOK_SENTINEL, HookAnswer, Reply

# Claude Code's system prompts for a prompt hook (2.1.14, 2.1.328: "You are evaluating a hook in
# Claude Code."; 2.1.92 to 2.1.203: "You are evaluating a hook condition in Claude Code."; Stop:
# "You are evaluating a stop-condition hook in Claude Code.") and an agent hook ("You are
# evaluating a PreToolUse hook ...", Stop: "You are verifying a stop condition ...").
ASKED = re.compile(
    r"You are (?:evaluating|verifying) an? (?:[\w-]{1,40} ){0,2}?(?:hook|stop condition)(?: condition)? in Claude Code"
)
KEY = re.compile(re.escape(HOOK_SENTINEL) + r"(\d{1,3}-[a-z_]{1,40})")
UNPLACED = "unplaced"  # a hook evaluation whose text names no hook of the plan
NOT_JSON = "probe: this answer is not JSON"
# The tool an agent hook's sub-agent gives its verdict with (Claude Code 2.1.328: "When done,
# return your result using the StructuredOutput tool"); its offer marks the evaluation an agent's.
AGENT_TOOL = "StructuredOutput"
NOT_OFFERED = "probe: no StructuredOutput tool was offered, so no verdict can be given"


def hook_key(system: str, user_texts: list[str]) -> str | None:
    """The key of the hook a request evaluates (UNPLACED when it names none), or None when the
    request is not a hook evaluation. The last user text naming a key is the hook's: a Stop
    hook's request carries the conversation before it."""
    if not ASKED.search(system):
        return None
    for text in reversed(user_texts):
        m = KEY.search(text)
        if m:
            return m.group(1)
    return UNPLACED


def verdict(answer: HookAnswer) -> dict[str, Any]:
    """The scripted {"ok", "reason"} (and "impossible" when set)."""
    out: dict[str, Any] = {"ok": answer.get("ok", True), "reason": answer.get("reason", "probe: scripted verdict")}
    if answer.get("impossible"):
        out["impossible"] = True
    return out


def answer_text(answer: HookAnswer | None) -> str:
    """The model's answer: {"ok", "reason"} as JSON, or text that is not."""
    if answer is None or answer.get("malformed"):
        return NOT_JSON
    return json.dumps(verdict(answer))


def reply(key: str, answer: HookAnswer | None, tools: Collection[str], messages: list[dict[str, Any]], system: str = "") -> Reply:
    """The answer to one request of a hook's evaluation. A prompt hook's: the verdict as JSON
    text. An agent hook's (StructuredOutput offered): a call of that tool with the verdict, at
    whichever of its turns (`turn`: assistant messages so far); `malformed` and an unscripted key
    get text instead, so the sub-agent never gives one, as does a turn of an agent's evaluation
    (its system prompt names the tool) that no longer offers the tool (2.1.118, after a tool
    call). `hold_s`: a slow or hung answer."""
    out: Reply
    agent = AGENT_TOOL in tools or AGENT_TOOL in system
    if AGENT_TOOL in tools and answer is not None and not answer.get("malformed"):
        out = {"tool": AGENT_TOOL, "arguments": verdict(answer)}
    elif agent and AGENT_TOOL not in tools:
        out = {"text": NOT_OFFERED}
    else:
        out = {"text": answer_text(answer)}
    out["aux"], out["hook"] = True, key
    if agent:
        out["turn"] = sum(1 for m in messages if m.get("role") == "assistant")
    if answer and (answer.get("hang") or answer.get("seconds")):
        out["hold_s"] = None if answer.get("hang") else answer.get("seconds")
    return out


def payload(text: str, key: str) -> Any:
    """The event's JSON the CLI put into the hook's text (for $ARGUMENTS), after its key; None
    when there is none that parses."""
    start = text.find(HOOK_SENTINEL + key)
    brace = text.find("{", start) if start >= 0 else -1
    if brace < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, brace)
    except ValueError:
        return None
    return value
