"""The hooks the run answers itself, not processes: a prompt hook's evaluation (a question
the CLI sends its model), an agent hook's (a sub-agent conversation: its requests are one
evaluation) and an http hook's delivery (a POST to the run's receiver), all served by the
scripted model and logged with it; here each becomes an invocation of its hook."""

from __future__ import annotations

import json
from typing import Any

from probes.evidence.model import Invocation, iso
from probes.pipeline.plan import Hooks
from probes.runner.contract import HOOK_SENTINEL, HookEntry, ModelLogEntry
from probes.runner.evaluations import AGENT_TOOL
from probes.runner.evaluations import payload as payload_of_text


def no_process(key: str, entry: HookEntry | None, t0: float, began: float, ended: float | None, **fields: Any) -> Invocation:
    """An invocation of a hook that is no process of its own (no pid, argv, env or exit):
    begun at `began`, ended at `ended` (None: never), with the given fields."""
    return Invocation(
        event=entry["event"] if entry else key,
        canonical_event=entry["canonical"] if entry else key,
        argv=[],
        cwd="",
        cwd_relative="",
        config_index=int(key.split("-")[0]) if key[:1].isdigit() else None,
        env={},
        pid=0,
        started_at=iso(began) or "",
        start_offset_s=round(began - t0, 3),
        ended_at=iso(ended),
        gone_offset_s=round(ended - t0, 3) if ended else None,
        duration_s=round(ended - began, 3) if ended else None,
        exit_code=None,
        killed_by_signal=None,
        killed_by=None,
        signals_received=[],
        first_signal_offset_s=None,
        stderr=None,
        **fields,
    )


def evaluations(log: list[ModelLogEntry], hooks: Hooks, t0: float) -> list[Invocation]:
    """Each prompt hook's evaluation and http hook's delivery the run answered, as an
    invocation of that hook: no process; its payload the event's JSON (in the hook's text, or
    the body posted), its output the verdict or the body answered, ended when that was given
    (never, for one held until the run ended)."""
    out: list[Invocation] = []
    agents: dict[str, tuple[int, float]] = {}  # key -> its agent evaluation under way: index in out, began
    types = {reg.key: reg.handler_type for reg in hooks.registrations}
    for r in log:
        reply = r.get("reply") or {}
        key = reply.get("hook")
        if not key:
            continue
        entry = hooks.sidecar.get(key)
        http = "status" in reply  # an http hook's delivery; else a prompt or agent hook's evaluation
        agent = types.get(key) == "agent" or AGENT_TOOL in r["tools"]  # (a later turn may not offer the tool)
        held = reply.get("hold_s", 0.0)
        ended = None if "hold_s" in reply and held is None else r["t"] + (held or 0.0)
        output = json.dumps(reply["arguments"]) if reply.get("tool") == AGENT_TOOL else reply.get("text")
        later = any(m["role"] == "assistant" for m in r["messages"])
        if agent and later and key in agents:  # a later turn of the sub-agent: its end moves on
            i, began = agents[key]
            out[i] = out[i].model_copy(
                update={
                    "ended_at": iso(ended),
                    "gone_offset_s": round(ended - t0, 3) if ended else None,
                    "duration_s": round(ended - began, 3) if ended else None,
                    "output": output,
                }
            )
            continue
        if agent:
            agents[key] = (len(out), r["t"])
        asked = next((m["text"] for m in reversed(r["messages"]) if m["role"] == "user" and HOOK_SENTINEL + key in m["text"]), "")
        out.append(
            no_process(
                key,
                entry,
                t0,
                r["t"],
                ended,
                payload=r.get("hook_payload") if http else payload_of_text(asked, key),
                output=output,
                handler_type="http" if http else "agent" if agent else "prompt",
                http={"status": reply.get("status"), "headers": r.get("headers") or {}} if http else None,
            )
        )
    return out
