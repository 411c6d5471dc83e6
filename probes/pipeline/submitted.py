"""Prompt hooks whose text the CLI submits as if a person typed it (Copilot CLI's sessionStart
`type: prompt`: not a question it asks its model, as Claude Code's are, answered.py). The
scripted model plays such a turn like any other and logs it; here each submission becomes an
invocation of its hook, placed by the PROBE-HOOK-<key> its text starts with (plan.py writes
it; the CLI may put its own context before it, e.g. Copilot's <current_datetime>)."""

from __future__ import annotations

from probes.evidence.model import Invocation
from probes.pipeline.answered import no_process
from probes.pipeline.plan import Hooks
from probes.runner.contract import HOOK_SENTINEL, ModelLogEntry


def submissions(log: list[ModelLogEntry], hooks: Hooks, t0: float) -> list[Invocation]:
    """Each time a prompt hook's text is new input of the main conversation (a request with
    tools that is no hook's evaluation or sub-agent: a user message holding it after the last
    assistant message, so later requests of the same turn, a fresh session's and a resumed
    one's each count once): an invocation at that request, no process, no payload. Its
    `output` is the model's reply when that request answers the hook's text itself (its
    message is the latest user one), else None: it went to the model with another prompt
    after it (a person's, sent in the same request)."""
    keys = {r.key: hooks.sidecar.get(r.key) for r in hooks.registrations if r.handler_type == "prompt"}
    out: list[Invocation] = []
    for r in log if keys else []:
        reply = r.get("reply") or {}
        if not r["tools"] or reply.get("hook") or reply.get("subagent") or reply.get("aux"):
            continue
        said = max((i for i, m in enumerate(r["messages"]) if m["role"] == "assistant"), default=-1)
        users = [i for i, m in enumerate(r["messages"]) if m["role"] == "user" and i > said]
        for key, entry in keys.items():
            held = [i for i in users if HOOK_SENTINEL + key in r["messages"][i]["text"]]
            alone = bool(held) and held[-1] == users[-1]
            for _ in held:
                out.append(
                    no_process(
                        key,
                        entry,
                        t0,
                        r["t"],
                        r["t"],
                        payload=None,
                        output=reply.get("text") if alone else None,
                        handler_type="prompt",
                    )
                )
    return out
