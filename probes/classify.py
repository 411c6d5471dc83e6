"""Classifiers: from what a session left behind to an outcome label and named observations.

Each takes a session: the evidence record's hooks, invocations, model_requests,
side_effects and cli (so committed evidence can be classified again), and returns
(outcome, observations). Every observation a classifier
reports is always present; "not observed" is an explicit None or False, never a missing key.
"""

from __future__ import annotations

import re

SENTINEL_RE = re.compile(r"PROBE-[A-Z0-9-]+")


SESSION_KEYS = ("hooks", "invocations", "invocations_by_event", "model_requests",
                "model_request_count", "side_effects", "cli")


def count(session: dict, canonical: str) -> int:
    """Invocations of a canonical event: exact even when the evidence keeps only a sample."""
    natives = {h["native"] for h in session["hooks"] if h["canonical"] == canonical}
    return sum(n for event, n in session["invocations_by_event"].items() if event in natives)


def first(session: dict, canonical: str) -> dict | None:
    return next((i for i in session["invocations"] if i["canonical_event"] == canonical), None)


def hook_spec(session: dict, canonical: str) -> dict | None:
    return next((h for h in session["hooks"] if h["canonical"] == canonical), None)


def side_effect_at(session: dict, step: int = 0) -> float | None:
    """When the tool of scripted step `step` left its side effect (seconds after CLI start)."""
    return next((m["offset_s"] for m in session["side_effects"] if m["step"] == step), None)


def hook_end(inv: dict | None) -> str | None:
    """How a hook process ended: "exit N", a signal name, or None if it never ended."""
    if inv is None:
        return None
    if inv["killed_by_signal"]:
        return inv["killed_by_signal"]
    return None if inv["exit_code"] is None else f"exit {inv['exit_code']}"


def sentinels(hook: dict | None) -> list[str]:
    """Sentinel words a hook prints, to look for in later model requests."""
    b = (hook or {}).get("behavior") or {}
    text = " ".join(str(b.get(k)) for k in ("stdout", "stderr") if b.get(k))
    return sorted(set(SENTINEL_RE.findall(text)))


def find_in_requests(session: dict, words: list[str], after: float | None) -> dict:
    """Did a model request made after `after` contain each word, and where (by role)?"""
    where: dict[str, set[str]] = {w: set() for w in words}
    for req in session["model_requests"]:
        if after is not None and req["offset_s"] < after:
            continue
        for w in words:
            where[w].update(req["sentinels"].get(w, []))
    found = {w: sorted(r) for w, r in where.items()}
    return {"reached": bool(words) and all(found.values()), "where": found}


def pretool_liveness(session: Session):
    """A pre-tool hook that misbehaves (hangs, crashes): does the tool run anyway?"""
    inv = first(session, "pre_tool")
    effect = side_effect_at(session)
    ran = effect is not None
    spec = hook_spec(session, "pre_tool")
    obs = {
        "tool_ran": ran,
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "hook_killed": bool(inv and inv["killed_by"] == "cli"),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_timeout_s": spec["timeout_s"] if spec else None,
        "tool_delay_s": round(effect - inv["start_offset_s"], 3) if inv and ran else None,
        "hook_lifetime_s": inv["duration_s"] if inv else None,
        "session_timed_out": session["cli"]["timed_out"],
    }
    if inv is None:
        return "no-hook", obs
    failed = inv["killed_by"] is not None or inv["exit_code"] not in (0, None)
    if session["cli"]["timed_out"] and not ran:
        return "held", obs
    if not failed:
        return ("allowed" if ran else "denied"), obs
    return ("fail-open" if ran else "fail-closed"), obs


def pretool_decision(session: Session):
    """A pre-tool hook answers (exit code, JSON): is the tool denied, and does the reason
    reach the model?"""
    inv = first(session, "pre_tool")
    ran = side_effect_at(session) is not None
    seen = find_in_requests(session, sentinels(hook_spec(session, "pre_tool")),
                            inv["start_offset_s"] if inv else None)
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
    for i in session["invocations"]:
        if isinstance(i["payload"], dict):
            by_event.setdefault(i["event"], sorted(i["payload"]))
    pl = inv["payload"] if inv and isinstance(inv["payload"], dict) else {}
    args_key = next((k for k in ("toolArgs", "tool_input", "toolInput") if k in pl), None)
    obs = {
        "tool_ran": side_effect_at(session) is not None,
        "fields": sorted(pl),
        "tool_name": pl.get("toolName", pl.get("tool_name")),
        "tool_args_field": args_key,
        "tool_args_type": value_type(pl.get(args_key)) if args_key else None,
        "timestamp_type": value_type(pl.get("timestamp")),
        "fields_by_event": by_event,
        "event_order": [i["event"] for i in session["invocations"]],
    }
    return ("recorded" if pl else "not-recorded"), obs




def signal_fate(inv: dict) -> str:
    """How a hung hook process ended: "terminated" by SIGTERM, "killed" by SIGKILL after
    surviving SIGTERM, "orphaned" (still running when the CLI exited), or "exited"."""
    if inv["killed_by"] == "harness":
        return "orphaned"
    if inv["killed_by_signal"] == "SIGTERM":
        return "terminated"
    if inv["killed_by_signal"]:
        return "killed"
    return "exited"


def hook_lifetime(session: dict):
    """A pre-tool hook outlives its timeout (ignores SIGTERM): how, and how soon, does it die?"""
    inv = first(session, "pre_tool")
    effect = side_effect_at(session)
    obs = {
        "tool_ran": effect is not None,
        "hook_signals": inv["signals_received"] if inv else [],
        "hook_end": hook_end(inv),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_lifetime_s": inv["duration_s"] if inv else None,
        "sigterm_to_death_s": (round(inv["gone_offset_s"] - inv["first_signal_offset_s"], 3)
                               if inv and inv["first_signal_offset_s"] is not None
                               and inv["gone_offset_s"] is not None and inv["killed_by"] == "cli" else None),
        "tool_delay_s": round(effect - inv["start_offset_s"], 3) if inv and effect is not None else None,
        "session_timed_out": session["cli"]["timed_out"],
    }
    if inv is None:
        return "no-hook", obs
    if session["cli"]["timed_out"] and effect is None:
        return "held", obs
    return signal_fate(inv), obs


def grandchild(session: dict):
    """A pre-tool hook leaves a process behind: does the CLI kill it, and when?"""
    inv = first(session, "pre_tool")
    gc = (inv or {}).get("grandchild")
    obs = {
        "tool_ran": side_effect_at(session) is not None,
        "hook_end": hook_end(inv),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "grandchild_left": gc is not None,
        "grandchild_killed": bool(gc and gc["killed_by"] == "cli"),
        "grandchild_alive_at_cli_exit": bool(gc and gc["alive_at_cli_exit"]),
        "grandchild_time_to_death_s": (round(gc["died_offset_s"] - inv["start_offset_s"], 3)
                                       if gc and gc["died_offset_s"] is not None else None),
        "cli_wall_s": session["cli"]["wall_s"],
    }
    if gc is None:
        return "no-grandchild", obs
    return ("grandchild-killed" if obs["grandchild_killed"] else "grandchild-orphaned"), obs


def stop_loop(session: dict):
    """A stop hook that always blocks: does the CLI end the loop by itself?"""
    stops = [i for i in session["invocations"] if i["canonical_event"] == "stop"]
    active = [i["payload"].get("stop_hook_active") for i in stops if isinstance(i["payload"], dict)]
    obs = {
        "stop_invocations": count(session, "stop"),
        "stop_hook_active_first": active[0] if active else None,
        "stop_hook_active_later": sorted({str(a) for a in active[1:]}),
        "model_requests": session["model_request_count"],
        "session_timed_out": session["cli"]["timed_out"],
    }
    if session["cli"]["timed_out"]:
        return "unbounded", obs
    if obs["stop_invocations"] > 1:
        return "bounded", obs
    return ("single-stop" if stops else "no-stop"), obs


CLASSIFIERS = {
    "pretool-liveness": pretool_liveness,
    "pretool-decision": pretool_decision,
    "payload": payload,
    "hook-lifetime": hook_lifetime,
    "grandchild": grandchild,
    "stop-loop": stop_loop,
}
