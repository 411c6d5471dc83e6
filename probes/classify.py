"""Classifiers: from what a session left behind to an outcome label and named observations.

Each takes a Session and returns (outcome, observations). Every observation a classifier
reports is always present; "not observed" is an explicit None or False, never a missing key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SENTINEL_RE = re.compile(r"PROBE-[A-Z0-9-]+")


@dataclass
class Session:
    """What one probe session left behind, before redaction."""

    recipe: object  # recipes.Recipe
    invocations: list[dict]  # evidence-shaped invocation dicts, in start order
    requests: list[dict]  # model requests with full message texts
    markers: list[dict]  # per tool step: {"step", "kind", "path", "at" (mtime or None)}
    cli: dict  # runner result
    hook_specs: dict = field(default_factory=dict)  # registration key -> recipes.Hook


def first(session: Session, canonical: str) -> dict | None:
    return next((i for i in session.invocations if i["canonical_event"] == canonical), None)


def tool_ran(session: Session, step: int = 0) -> bool:
    marks = [m for m in session.markers if m["step"] == step]
    return bool(marks and marks[0]["at"] is not None)


def hook_end(inv: dict | None) -> str | None:
    """How a hook process ended: "exit N", a signal name, or None if it never ended."""
    if inv is None:
        return None
    if inv["killed_by_signal"]:
        return inv["killed_by_signal"]
    return None if inv["exit_code"] is None else f"exit {inv['exit_code']}"


def sentinels(spec) -> list[str]:
    """Sentinel words a recipe's hook prints, to look for in later model requests."""
    b = spec.behavior
    text = " ".join(str(x) for x in (b.stdout, b.stderr) if x)
    return sorted(set(SENTINEL_RE.findall(text)))


def find_in_requests(session: Session, words: list[str], after: float | None) -> dict:
    """Did a model request that started after `after` contain each word, and where?"""
    where: dict[str, list[str]] = {}
    for req in session.requests:
        if after is not None and req["t"] < after:
            continue
        for msg in req["messages"]:
            for w in words:
                if w in msg["text"] and msg["role"] not in where.setdefault(w, []):
                    where[w].append(msg["role"])
    found = {w: sorted(where.get(w, [])) for w in words}
    return {"reached": bool(words) and all(found.values()), "where": found}


def pretool_liveness(session: Session):
    """A pre-tool hook that misbehaves (hangs, crashes): does the tool run anyway?"""
    inv = first(session, "pre_tool")
    ran = tool_ran(session)
    spec = next((s for s in session.hook_specs.values() if s.event == "pre_tool"), None)
    marker_at = session.markers[0]["at"] if session.markers else None
    obs = {
        "tool_ran": ran,
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "hook_killed": bool(inv and inv["killed_by"] == "cli"),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_timeout_s": spec.timeout_s if spec else None,
        "tool_delay_s": round(marker_at - inv["_started"], 3) if inv and marker_at else None,
        "hook_lifetime_s": round(inv["_died"] - inv["_started"], 3) if inv and inv["_died"] else None,
        "session_timed_out": session.cli["timed_out"],
    }
    if inv is None:
        return "no-hook", obs
    failed = inv["killed_by"] is not None or inv["exit_code"] not in (0, None)
    if session.cli["timed_out"] and not ran:
        return "held", obs
    if not failed:
        return ("allowed" if ran else "denied"), obs
    return ("fail-open" if ran else "fail-closed"), obs


def pretool_decision(session: Session):
    """A pre-tool hook answers (exit code, JSON): is the tool denied, and does the reason
    reach the model?"""
    inv = first(session, "pre_tool")
    ran = tool_ran(session)
    spec = next((s for s in session.hook_specs.values() if s.event == "pre_tool"), None)
    words = sentinels(spec) if spec else []
    seen = find_in_requests(session, words, inv["_started"] if inv else None)
    obs = {
        "tool_ran": ran,
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "reason_reached_model": seen["reached"],
        "reason_location": seen["where"],
    }
    if inv is None:
        return "no-hook", obs
    return ("allowed" if ran else "denied"), obs


def value_type(value) -> str | None:
    if value is None:
        return None
    return {dict: "object", list: "array", str: "string", bool: "boolean",
            int: "number", float: "number"}.get(type(value), type(value).__name__)


def payload(session: Session):
    """Record the payload of every event in a session with one shell call."""
    inv = first(session, "pre_tool")
    by_event: dict[str, list[str]] = {}
    for i in session.invocations:
        if isinstance(i["payload"], dict):
            by_event.setdefault(i["event"], sorted(i["payload"]))
    pl = inv["payload"] if inv and isinstance(inv["payload"], dict) else {}
    args_key = next((k for k in ("toolArgs", "tool_input", "toolInput") if k in pl), None)
    obs = {
        "tool_ran": tool_ran(session),
        "fields": sorted(pl),
        "tool_name": pl.get("toolName", pl.get("tool_name")),
        "tool_args_key": args_key,
        "tool_args_type": value_type(pl.get(args_key)) if args_key else None,
        "timestamp_type": value_type(pl.get("timestamp")),
        "fields_by_event": by_event,
        "event_order": [i["event"] for i in session.invocations],
    }
    return ("recorded" if pl else "not-recorded"), obs


CLASSIFIERS = {
    "pretool-liveness": pretool_liveness,
    "pretool-decision": pretool_decision,
    "payload": payload,
}
