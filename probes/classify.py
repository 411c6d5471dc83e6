"""Classifiers: from what a session left behind to an outcome label and named observations.

Each takes a session, the parts of the evidence record named in SESSION_KEYS (so committed
evidence can be classified again), and returns (outcome, observations). Every observation a
classifier reports is always present; "not observed" is an explicit None, False or empty
value, never a missing key. A recipe's `subject` is the canonical event under test.
"""

from __future__ import annotations

import re

SENTINEL_RE = re.compile(r"PROBE-[A-Z0-9-]+")
GATED = ("pre_tool", "permission_request")  # events whose answer decides whether a tool runs

SESSION_KEYS = (
    "subject",
    "cli_cwd",
    "hooks",
    "invocations",
    "invocations_by_event",
    "model_requests",
    "model_request_count",
    "side_effects",
    "cli",
    "transcript",
)


# ---------------------------------------------------------------- reading a session


def count(session: dict, canonical: str) -> int:
    """Invocations of a canonical event: exact even when the evidence keeps only a sample."""
    natives = {h["native"] for h in session["hooks"] if h["canonical"] == canonical}
    return sum(n for event, n in session["invocations_by_event"].items() if event in natives)


def of_event(session: dict, canonical: str) -> list[dict]:
    return [i for i in session["invocations"] if i["canonical_event"] == canonical]


def first(session: dict, canonical: str | None) -> dict | None:
    return next(iter(of_event(session, canonical)), None)


def hook_spec(session: dict, canonical: str | None) -> dict | None:
    return next((h for h in session["hooks"] if h["canonical"] == canonical), None)


def side_effect_at(session: dict, step: int | None = 0, path: str | None = None) -> float | None:
    """When a scripted step's tool (or a watched file) left its file, in seconds after the CLI
    started; None if it never did."""
    return next(
        (
            m["offset_s"]
            for m in session["side_effects"]
            if (path is None and m["step"] == step) or (path is not None and m["path"] == path)
        ),
        None,
    )


def tool_ran(session: dict) -> bool:
    return side_effect_at(session) is not None


def hook_end(inv: dict | None) -> str | None:
    """How a hook process ended: "exit N", a signal name, or None if it never ended."""
    if inv is None:
        return None
    if inv["killed_by_signal"]:
        return inv["killed_by_signal"]
    if inv.get("extension_result") == "threw":
        return "threw"
    return None if inv["exit_code"] is None else f"exit {inv['exit_code']}"


def hook_failed(inv: dict) -> bool:
    return inv["killed_by"] is not None or inv["exit_code"] not in (0, None) or inv.get("extension_result") == "threw"


def sentinels(hook: dict | None) -> list[str]:
    """Sentinel words (PROBE-...) a hook prints, to look for in later model requests."""
    return sorted(set(SENTINEL_RE.findall(" ".join(hook_texts(hook)))))


def hook_texts(hook: dict | None) -> list[str]:
    """Every string a hook prints: its stdout text or the strings inside its JSON, its stderr."""
    b = (hook or {}).get("behavior") or {}
    out: list[str] = []

    def walk(v):
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(b.get("stdout"))
    walk(b.get("stderr"))
    return out


def find_in_requests(session: dict, words: list[str], after: float | None) -> dict:
    """Did model requests made after `after` contain each word; where (by role); verbatim?"""
    roles: dict[str, set[str]] = {w: set() for w in words}
    verbatim = {w: False for w in words}
    for req in session["model_requests"]:
        if after is not None and req["offset_s"] < after:
            continue
        for w in words:
            seen = req["sentinels"].get(w)
            if seen:
                roles[w].update(seen["roles"])
                verbatim[w] = verbatim[w] or seen["verbatim"]
    found = {w: sorted(r) for w, r in roles.items()}
    return {"reached": bool(words) and all(found.values()), "where": found, "verbatim": bool(words) and all(verbatim.values())}


def in_cli_output(session: dict, words: list[str]) -> bool:
    text = session["cli"].get("stdout_tail", "") + session["cli"].get("stderr_tail", "")
    return bool(words) and all(w in text for w in words)


def requests_after(session: dict, t: float, main_only: bool = True) -> list[dict]:
    return [
        r
        for r in session["model_requests"]
        if r["offset_s"] >= t and (not main_only or (r["tools"] and not (r.get("reply") or {}).get("subagent")))
    ]


def ended_by_itself(session: dict) -> bool:
    return not session["cli"]["timed_out"]


# ---------------------------------------------------------------- liveness


def liveness(session: dict):
    """A hook misbehaves (hangs, crashes, exits non-zero): does the session go on past it?
    "Going on" is the tool running for pre-tool and permission hooks, the prompt reaching the
    model for prompt-submit hooks, and for other events the session making progress after the
    hook started (a later model request, or the CLI ending by itself)."""
    subject = session["subject"]
    inv = first(session, subject)
    spec = hook_spec(session, subject)
    effect = side_effect_at(session)
    if inv is None:
        progress = None
    elif subject in GATED:
        progress = effect
    elif subject == "prompt_submit":  # going on means the prompt reached the model
        later = requests_after(session, inv["start_offset_s"])
        progress = later[0]["offset_s"] if later else None
    else:
        later = requests_after(session, inv["start_offset_s"])
        progress = later[0]["offset_s"] if later else (session["cli"]["wall_s"] if ended_by_itself(session) else None)
    obs = {
        "tool_ran": effect is not None,
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "hook_killed": bool(inv and inv["killed_by"] == "cli"),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_timeout_s": spec["timeout_s"] if spec else None,
        "hook_lifetime_s": inv["duration_s"] if inv else None,
        "tool_delay_s": round(effect - inv["start_offset_s"], 3) if inv and effect is not None else None,
        "progress_delay_s": round(progress - inv["start_offset_s"], 3) if inv and progress is not None else None,
        "cli_exit_code": session["cli"]["exit_code"],
        "session_timed_out": session["cli"]["timed_out"],
    }
    reason = find_in_requests(session, sentinels(spec), inv["start_offset_s"] if inv else None)
    obs["reason_reached_model"], obs["reason_location"] = reason["reached"], reason["where"]
    if inv is None:
        return "no-hook", obs
    if inv["killed_by"] == "harness" and ended_by_itself(session):
        return "abandoned", obs  # the CLI went on (or exited) and left the hook running
    if progress is None:
        return ("held" if session["cli"]["timed_out"] else ("fail-closed" if hook_failed(inv) else "denied")), obs
    if not hook_failed(inv):
        return "allowed", obs
    return "fail-open", obs


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
    """A hook outlives its timeout (ignores SIGTERM): how, and how soon, does it die?"""
    inv = first(session, session["subject"])
    effect = side_effect_at(session)
    obs = {
        "tool_ran": effect is not None,
        "hook_signals": inv["signals_received"] if inv else [],
        "hook_end": hook_end(inv),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_lifetime_s": inv["duration_s"] if inv else None,
        "sigterm_to_death_s": (
            round(inv["gone_offset_s"] - inv["first_signal_offset_s"], 3)
            if inv and inv["first_signal_offset_s"] is not None and inv["gone_offset_s"] is not None and inv["killed_by"] == "cli"
            else None
        ),
        "tool_delay_s": round(effect - inv["start_offset_s"], 3) if inv and effect is not None else None,
        "session_timed_out": session["cli"]["timed_out"],
    }
    if inv is None:
        return "no-hook", obs
    if session["cli"]["timed_out"] and effect is None:
        return "held", obs
    return signal_fate(inv), obs


def grandchild(session: dict):
    """A hook leaves a process behind: does the CLI kill it, and when?"""
    inv = first(session, session["subject"])
    gc = (inv or {}).get("grandchild")
    obs = {
        "tool_ran": tool_ran(session),
        "hook_end": hook_end(inv),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "grandchild_left": gc is not None,
        "grandchild_killed": bool(gc and gc["killed_by"] == "cli"),
        "grandchild_alive_at_cli_exit": bool(gc and gc["alive_at_cli_exit"]),
        "grandchild_time_to_death_s": (
            round(gc["died_offset_s"] - inv["start_offset_s"], 3) if gc and gc["died_offset_s"] is not None else None
        ),
        "tool_delay_s": (round(side_effect_at(session) - inv["start_offset_s"], 3) if inv and tool_ran(session) else None),
        "cli_wall_s": session["cli"]["wall_s"],
        "session_timed_out": session["cli"]["timed_out"],
    }
    if gc is None:
        return "no-grandchild", obs
    return ("grandchild-killed" if obs["grandchild_killed"] else "grandchild-orphaned"), obs


def stdin(session: dict):
    """Does the CLI close the hook's stdin after the payload (end of input)?"""
    inv = first(session, session["subject"])
    obs = {
        "hook_fired": inv is not None,
        "stdin_eof": inv["stdin_eof"] if inv else None,
        "payload_parsed": bool(inv and inv["payload"] is not None),
        "hook_exit": hook_end(inv),
        "tool_ran": tool_ran(session),
    }
    if inv is None:
        return "no-hook", obs
    return {True: "closed", False: "open", None: "unread"}[inv["stdin_eof"]], obs


def parallel(session: dict):
    """Several hooks on one event: run side by side or one after another, in what order?"""
    invs = of_event(session, session["subject"])
    spans = [(i["start_offset_s"], i["gone_offset_s"]) for i in invs]
    overlap = 0.0
    if len(spans) >= 2 and all(e is not None for _, e in spans[:2]):
        (s1, e1), (s2, e2) = spans[0], spans[1]
        overlap = max(0.0, min(e1, e2) - max(s1, s2))
    keys = [h["native"] for h in session["hooks"] if h["canonical"] == session["subject"]]
    obs = {
        "hooks_registered": len(keys),
        "hooks_fired": len(invs),
        "start_order": [i.get("config_index") for i in invs],
        "overlap_s": round(overlap, 3),
        "start_gap_s": round(spans[1][0] - spans[0][0], 3) if len(spans) >= 2 else None,
        "tool_ran": tool_ran(session),
    }
    if len(invs) < 2:
        return ("single" if invs else "no-hook"), obs
    return ("parallel" if overlap > 0.2 else "serial"), obs


# ---------------------------------------------------------------- authority


def decision(session: dict):
    """A hook answers (exit code, JSON, text): is the action let through, and does the
    hook's reason reach the model? Pre-tool and permission hooks gate the tool; a
    prompt-submit hook gates the model call; a stop hook gates the end of the turn."""
    subject = session["subject"]
    inv = first(session, subject)
    spec = hook_spec(session, subject)
    words = sentinels(spec)
    seen = find_in_requests(session, words, inv["start_offset_s"] if inv else None)
    obs = {
        "tool_ran": tool_ran(session),
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "hook_output_chars": len(inv["output"] or "") if inv else 0,
        "reason_reached_model": seen["reached"],
        "reason_location": seen["where"],
        "reason_verbatim": seen["verbatim"],
        "reason_shown_to_user": in_cli_output(session, words),
        "model_requests_after_hook": len(requests_after(session, inv["start_offset_s"])) if inv else 0,
    }
    if inv is None:
        return "no-hook", obs
    if subject == "prompt_submit":
        return ("passed" if obs["model_requests_after_hook"] else "blocked"), obs
    return ("allowed" if obs["tool_ran"] else "denied"), obs


def rewrite(session: dict):
    """A pre-tool hook rewrites the tool's arguments: which command ran?"""
    inv = first(session, session["subject"])
    watched = [m["path"] for m in session["side_effects"] if m["kind"] == "watched"]
    original, modified = tool_ran(session), bool(watched)
    obs = {"hook_fired": inv is not None, "original_ran": original, "modified_ran": modified, "hook_exit": hook_end(inv)}
    if inv is None:
        return "no-hook", obs
    return {(False, True): "rewritten", (True, False): "original", (True, True): "both", (False, False): "neither"}[
        original, modified
    ], obs


def halt(session: dict):
    """A hook asks the session to stop (Claude `continue: false`): does it?"""
    inv = first(session, session["subject"])
    words = sentinels(hook_spec(session, session["subject"]))
    after = requests_after(session, inv["start_offset_s"]) if inv else []
    obs = {
        "hook_fired": inv is not None,
        "tool_ran": tool_ran(session),
        "model_requests_after_hook": len(after),
        "stop_reason_shown_to_user": in_cli_output(session, words),
        "stop_reason_reached_model": find_in_requests(session, words, inv["start_offset_s"] if inv else None)["reached"],
        "cli_exit_code": session["cli"]["exit_code"],
    }
    if inv is None:
        return "no-hook", obs
    return ("continued" if after else "halted"), obs


def stop_loop(session: dict):
    """A stop hook that always blocks: does the CLI end the loop by itself?"""
    stops = of_event(session, "stop")
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


# ---------------------------------------------------------------- context


def context(session: dict):
    """A hook hands the model context (additionalContext, plain stdout): does its text reach
    the next model request, verbatim or altered, and in which part (system, user, tool)?"""
    subject = session["subject"]
    invs = of_event(session, subject)
    words = sorted({w for h in session["hooks"] if h["canonical"] == subject for w in sentinels(h)})
    start = invs[0]["start_offset_s"] if invs else None
    seen = find_in_requests(session, words, start)
    order, separator = sentinel_order(session, words)
    obs = {
        "hook_fired": bool(invs),
        "context_reached_model": seen["reached"],
        "context_location": seen["where"],
        "context_verbatim": seen["verbatim"],
        "context_shown_to_user": in_cli_output(session, words),
        "context_order": order,
        "context_separator": separator,
        "tool_ran": tool_ran(session),
    }
    if not invs:
        return "no-hook", obs
    if not seen["reached"]:
        partly = any(seen["where"].values())
        return ("partly-reached" if partly else "not-reached"), obs
    return ("reached-verbatim" if seen["verbatim"] else "reached-altered"), obs


def sentinel_order(session: dict, words: list[str]) -> tuple[list[str], str | None]:
    """Where several hooks' contexts land in one message: their order, and what separates
    the first two (read from the snippet kept around the first)."""
    if len(words) < 2:
        return [], None
    for req in session["model_requests"]:
        snips = [req["sentinels"].get(w, {}).get("snippet") for w in words]
        for w, snip in zip(words, snips, strict=True):
            others = [o for o in words if o != w and snip and o in snip]
            if snip and others:
                pos = sorted([w, *others], key=snip.index)
                a, b = pos[0], pos[1]
                between = snip[snip.index(a) : snip.index(b)]
                sep = between[between.rfind(".") + 1 :] if "." in between else between[len(a) :]
                return pos, sep[-40:]
    return [], None


# ---------------------------------------------------------------- contract


def value_type(value) -> str | None:
    if value is None:
        return None
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )


def payload(session: dict):
    """Record the payload the subject event's hook receives, and every other hooked event's."""
    inv = first(session, session["subject"])
    by_event: dict[str, list[str]] = {}
    for i in session["invocations"]:
        if isinstance(i["payload"], dict):
            by_event.setdefault(i["event"], sorted(i["payload"]))
    pl = inv["payload"] if inv and isinstance(inv["payload"], dict) else {}
    args_key = next((k for k in ("toolArgs", "tool_input", "toolInput") if k in pl), None)
    obs = {
        "tool_ran": tool_ran(session),
        "fields": sorted(pl),
        "field_types": {k: value_type(v) for k, v in sorted(pl.items())},
        "tool_name": pl.get("toolName", pl.get("tool_name")),
        "tool_args_field": args_key,
        "tool_args_type": value_type(pl.get(args_key)) if args_key else None,
        "timestamp_type": value_type(pl.get("timestamp")),
        "traceparent": "traceparent" in pl or any("traceparent" in str(k).lower() for k in pl),
        "fields_by_event": by_event,
        "event_order": [i["event"] for i in session["invocations"]],
    }
    return ("recorded" if pl else "not-recorded"), obs


def casing(pl: dict) -> str:
    keys = [k for k in pl if any(c.isupper() for c in k) or "_" in k]
    snake = sum("_" in k for k in keys)
    camel = sum(any(c.isupper() for c in k) for k in keys)
    return "snake_case" if snake and not camel else "camelCase" if camel and not snake else "mixed"


def payload_casing(session: dict):
    """Which casing do the subject hook's payload fields use?"""
    inv = first(session, session["subject"])
    pl = inv["payload"] if inv and isinstance(inv["payload"], dict) else None
    obs = {
        "hook_fired": inv is not None,
        "registered_as": inv["event"] if inv else None,
        "fields": sorted(pl or {}),
        "tool_name": (pl or {}).get("toolName", (pl or {}).get("tool_name")),
        "timestamp_type": value_type((pl or {}).get("timestamp")),
    }
    if pl is None:
        return "not-recorded", obs
    return casing(pl), obs


def tool_names(session: dict):
    """Which tool names reach pre-tool hooks for each scripted tool kind?"""
    replies = [r["reply"] for r in session["model_requests"] if (r.get("reply") or {}).get("tool")]
    kinds = {}
    for r in replies:
        kinds.setdefault(r["kind"], r["tool"])
    hooked = [
        i["payload"].get("toolName", i["payload"].get("tool_name"))
        for i in of_event(session, "pre_tool")
        if isinstance(i["payload"], dict)
    ]
    obs = {
        "tool_by_kind": kinds,
        "pre_tool_names": hooked,
        "kinds_hooked": sorted(k for k, name in kinds.items() if name in hooked),
        "missing_kinds": sorted({(r.get("reply") or {}).get("missing_tool") for r in session["model_requests"]} - {None}),
    }
    return f"{len(obs['kinds_hooked'])}-of-{len(kinds)}-hooked", obs


def fired(session: dict):
    """Is the subject hook invoked at all (matchers, config keys, config files, trust)?"""
    invs = of_event(session, session["subject"])
    stderr = session["cli"].get("stderr_tail", "") + session["cli"].get("stdout_tail", "")
    obs = {
        "invocations": count(session, session["subject"]),
        "tool_ran": tool_ran(session),
        "hooks_registered": [h["native"] for h in session["hooks"]],
        "cli_mentions_hooks": sorted({ln.strip()[:200] for ln in stderr.splitlines() if "hook" in ln.lower()})[:5],
        "other_events_fired": sorted({i["event"] for i in session["invocations"] if i["canonical_event"] != session["subject"]}),
    }
    return ("fired" if invs else "not-fired"), obs


def inventory(session: dict):
    """Every event an agent version knows, hooked: how often each fired, in what order."""
    registered = sorted({h["native"] for h in session["hooks"]})
    counts = {e: session["invocations_by_event"].get(e, 0) for e in registered}
    fired_ = sorted(e for e, n in counts.items() if n)
    obs = {
        "counts": counts,
        "fired": fired_,
        "never_fired": sorted(e for e, n in counts.items() if not n),
        "order": [i["event"] for i in session["invocations"]],
        "tool_ran": tool_ran(session),
    }
    return f"{len(fired_)}-of-{len(registered)}-fired", obs


MARKER_VARS = (
    "COPILOT_CLI",
    "COPILOT_CLI_BINARY_VERSION",
    "COPILOT_PROJECT_DIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDECODE",
    "CLAUDE_CODE_SESSION_ID",
    "AI_AGENT",
    "COPILOT_PLUGIN_ROOT",
    "CLAUDE_PLUGIN_ROOT",
    "PLUGIN_ROOT",
    "TRACEPARENT",
    "COPILOT_HOME",
    "HOME",
)


def env(session: dict):
    """The environment a hook is given: names, project and version markers, secrets passed,
    and against the CLI's own environment, the names it lacks (stripped) and gained (added)."""
    inv = first(session, session["subject"])
    e = inv["env"] if inv else {}
    obs = {
        "hook_fired": inv is not None,
        "env_names": sorted(e),
        "markers": {k: (k in e) for k in MARKER_VARS},
        "secrets_passed": sorted(k for k, v in e.items() if v == "<redacted>" or k.endswith(("_KEY", "_TOKEN"))),
        "traceparent_in_env": any(k.lower() == "traceparent" for k in e),
    }
    cli_env = session["cli"].get("env_names")  # absent from evidence older than this field
    obs["stripped"] = sorted(set(cli_env) - set(e)) if cli_env is not None and inv else None
    obs["added"] = sorted(set(e) - set(cli_env)) if cli_env is not None and inv else None
    return ("recorded" if inv else "no-hook"), obs


def cwd(session: dict):
    """The working directory a hook runs in: the project root, or the session's cwd?"""
    inv = first(session, session["subject"])
    rel = inv["cwd_relative"] if inv else None
    payload_cwd = (inv["payload"] or {}).get("cwd") if inv and isinstance(inv["payload"], dict) else None
    obs = {"hook_cwd": rel, "cli_cwd": session["cli_cwd"], "payload_cwd": payload_cwd}
    if inv is None:
        return "no-hook", obs
    if session["cli_cwd"] == ".":
        return "cli-at-root", obs  # root and session directory are one: the reference case
    if rel == session["cli_cwd"]:
        return "session-cwd", obs
    return ("project-root" if rel == "." else "other"), obs


def subagent(session: dict):
    """A session starts a subagent: which hooks fire for the child, with what payload?"""
    child_tools = [i for i in of_event(session, "pre_tool") if "probe-subagent" in str(i["payload"])]
    starts, stops = of_event(session, "subagent_start"), of_event(session, "subagent_stop")
    ran = any(m["kind"] == "watched" for m in session["side_effects"])
    parts = [name for name, hit in (("start", starts), ("stop", stops), ("child-tools", child_tools)) if hit]
    obs = {
        "subagent_ran": ran,
        "subagent_start": len(starts),
        "subagent_stop": len(stops),
        "child_pre_tool": len(child_tools),
        "subagent_start_fields": sorted(starts[0]["payload"] or {}) if starts else [],
        "subagent_stop_fields": sorted(stops[0]["payload"] or {}) if stops else [],
        "child_pre_tool_fields": sorted(child_tools[0]["payload"] or {}) if child_tools else [],
        "subagent_tool": next(
            (r["reply"]["tool"] for r in session["model_requests"] if (r.get("reply") or {}).get("kind") == "subagent"), None
        ),
    }
    if not ran and not parts:
        return "no-subagent", obs
    return "+".join(parts) if parts else "no-subagent-hooks", obs


# ---------------------------------------------------------------- interactive sessions


def payload_field(inv: dict, *names: str):
    pl = inv["payload"] if isinstance(inv["payload"], dict) else {}
    return next((pl[n] for n in names if n in pl), None)


def starts(session: dict) -> list[float]:
    """When the CLI was started (interactive sessions: every start step), in seconds."""
    return [s["offset_s"] for s in session.get("transcript") or [] if s["do"] == "start"] or [0.0]


def lifecycle(session: dict):
    """An interactive session: which session-start sources and session-end reasons the hooks
    got, how often each event fired, across starts, /clear and exit. The label is the answer
    for the subject event: the session-start source after the last start, the session-end
    reasons in order, or the count of session starts and prompt submits."""
    last_start = starts(session)[-1]
    sources = [payload_field(i, "source") for i in of_event(session, "session_start")]
    after = [payload_field(i, "source") for i in of_event(session, "session_start") if i["start_offset_s"] >= last_start]
    reasons = [payload_field(i, "reason") for i in of_event(session, "session_end")]
    ids = {payload_field(i, "session_id", "sessionId") for i in session["invocations"]} - {None}
    obs = {
        "session_start_sources": sources,
        "sources_after_last_start": after,
        "session_end_reasons": reasons,
        "session_ids": len(ids),
        "counts": {
            e: count(session, e) for e in ("session_start", "prompt_submit", "stop", "session_end") if hook_spec(session, e)
        },
        "starts": len(starts(session)),
        "tool_ran": tool_ran(session),
    }
    subject = session["subject"]
    if subject == "session_start":
        return (str(after[-1]) if after else "no-hook"), obs
    if subject == "session_end":
        return ("+".join(map(str, reasons)) if reasons else "no-hook"), obs
    return f"{count(session, 'session_start')}-starts-{count(session, 'prompt_submit')}-prompts", obs


def approval(session: dict):
    """A pre-tool hook asks for permission in a terminal: is a prompt shown, and does the
    person's answer run the tool or skip it? After a no: does the model get called again?"""
    answered = next((s for s in session.get("transcript") or [] if s["do"] == "answer"), None)
    inv = first(session, session["subject"])
    shown = bool(answered and answered["ok"])
    ran = tool_ran(session)
    obs = {
        "hook_fired": inv is not None,
        "prompt_shown": shown,
        "answer": answered["text"] if answered else None,
        "tool_ran": ran,
        "model_called_after_answer": bool(answered and requests_after(session, answered["offset_s"])),
        "stop_fired": count(session, "stop") > 0 if hook_spec(session, "stop") else None,
    }
    if inv is None:
        return "no-hook", obs
    return f"{'prompted' if shown else 'not-prompted'}-{'ran' if ran else 'skipped'}", obs


CLASSIFIERS = {
    "liveness": liveness,
    "hook-lifetime": hook_lifetime,
    "grandchild": grandchild,
    "stdin": stdin,
    "parallel": parallel,
    "decision": decision,
    "rewrite": rewrite,
    "halt": halt,
    "stop-loop": stop_loop,
    "context": context,
    "payload": payload,
    "payload-casing": payload_casing,
    "tool-names": tool_names,
    "fired": fired,
    "inventory": inventory,
    "env": env,
    "cwd": cwd,
    "subagent": subagent,
    "lifecycle": lifecycle,
    "approval": approval,
}


def label(classifier: str, session: dict):
    """The recipe's classifier on a session; an interactive session the driver could not take
    through its steps is labelled `could-not-drive`, with the step and the screen it saw."""
    failed = next((s for s in session.get("transcript") or [] if not s["ok"]), None)
    if failed:
        return "could-not-drive", {"tty_error": f"{failed['do']}: {failed['state']}", "screen": failed["screen"][-1500:]}
    return CLASSIFIERS[classifier](session)
