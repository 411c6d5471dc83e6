"""Hook evaluations: a prompt hook (Claude Code's `type: prompt`) is a question the CLI sends
its model, known by its system prompt and placed by the PROBE-HOOK-<key> its text starts with
(pipeline/plan.py writes it). The scripted model answers as the recipe scripts; a hook
evaluation that names no key the plan scripts is answered as not JSON and recorded, never
guessed. Standard library only (the runner's side)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:
    from .contract import HOOK_SENTINEL, HookAnswer
else:  # run as a script (runner.py), with its files beside it
    from contract import HOOK_SENTINEL, HookAnswer

# Claude Code's system prompts for a prompt hook (2.1.14, 2.1.328: "You are evaluating a hook in
# Claude Code."; 2.1.92 to 2.1.203: "You are evaluating a hook condition in Claude Code."; Stop:
# "You are evaluating a stop-condition hook in Claude Code.") and an agent hook ("You are
# evaluating a PreToolUse hook ...", Stop: "You are verifying a stop condition ...").
ASKED = re.compile(r"You are (?:evaluating|verifying) an? (?:[\w-]{1,40} ){0,2}?(?:hook|stop condition)(?: condition)? in Claude Code")
KEY = re.compile(re.escape(HOOK_SENTINEL) + r"(\d{1,3}-[a-z_]{1,40})")
UNPLACED = "unplaced"  # a hook evaluation whose text names no hook of the plan
NOT_JSON = "probe: this answer is not JSON"


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


def answer_text(answer: HookAnswer | None) -> str:
    """The model's answer: {"ok", "reason"} as JSON, or text that is not."""
    if answer is None or answer.get("malformed"):
        return NOT_JSON
    out: dict[str, Any] = {"ok": answer.get("ok", True), "reason": answer.get("reason", "probe: scripted verdict")}
    if answer.get("impossible"):
        out["impossible"] = True
    return json.dumps(out)


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
