"""Liveness: a hook misbehaves (hangs, crashes, outlives its timeout, leaves a process, keeps
its stdin open, shares its event): does the session go on, and what happens to the hook?"""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words, seconds, went_on
from probes.classify.session import (
    GATED,
    Invocation,
    SessionRecord,
    ended_by_itself,
    find_in_requests,
    first,
    hook_end,
    hook_failed,
    hook_spec,
    of_event,
    requests_after,
    sentinels,
    side_effect_at,
    since,
    tool_delay,
    tool_ran,
    tools_ran,
)


class LivenessObs(TypedDict):
    tool_ran: bool
    tools_ran: int  # how many of the scripted tool calls ran
    hook_fired: bool
    hook_exit: str | None
    hook_killed: bool
    hook_killed_by: str | None
    hook_timeout_s: float | None
    hook_lifetime_s: float | None
    tool_delay_s: float | None
    progress_delay_s: float | None
    cli_exit_code: int | None
    session_timed_out: bool
    reason_reached_model: bool
    reason_location: dict[str, list[str]]


PROMPT_ENDS = ("ok", "not ok", "not JSON")  # a prompt hook's end (session.verdict_words)


def say_liveness(outcome: str, obs: Observations, event: str | None) -> str:
    hook, (gated, onward) = hook_words(event), went_on(event)
    end = obs.get("hook_exit") or "no exit status"
    after = f", {seconds(obs.get('progress_delay_s'))} after the hook started" if seconds(obs.get("progress_delay_s")) else ""
    if end in PROMPT_ENDS or (obs.get("hook_exit") is None and obs.get("hook_killed_by") is None):
        # a prompt hook (its model's answer) or a hook that never ended: no exit to name
        how = f"whose model answered {end}" if end in PROMPT_ENDS else "that never answered"
        verb = {
            "fail-open": f"did not stop {gated}: {onward}{after}",
            "fail-closed": f"stopped {gated}",
            "allowed": f"let {gated} go on: {onward}",
        }
        if outcome in verb:
            return f"{hook} {how} {verb[outcome]}"
    if outcome == "fail-open" and obs.get("hook_killed"):
        t = obs.get("hook_timeout_s")
        at = f"its {t:g} s timeout" if isinstance(t, (int, float)) else "its timeout"
        if obs.get("hook_killed_by") == "cli":
            return f"{hook} still running at {at} was killed by the CLI ({end}) and {onward} anyway{after}"
        return f"{hook} still running at {at} was not waited for: {onward} anyway{after}"
    return {
        "fail-open": f"{hook} that ended with {end} did not stop {gated}: {onward}{after}",
        "fail-closed": f"{hook} that ended with {end} stopped {gated}",
        "allowed": f"{hook} ended with {end} and {onward}",
        "denied": f"{hook} ended with {end} and {gated} did not go on",  # the CLI refused it (no one to ask)
        "held": f"the session was still waiting on {hook} when the run's budget ran out",
        "abandoned": f"{hook} was left running: the CLI went on (or exited) without ending it",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_lifetime(outcome: str, obs: Observations, event: str | None) -> str:
    hook, after = hook_words(event), seconds(obs.get("sigterm_to_death_s"))
    return {
        "terminated": f"{hook} that outlived its timeout ended {after or 'soon'} after the CLI's SIGTERM",
        "killed": f"the CLI killed {hook} that ignores SIGTERM" + (f", {after} after its SIGTERM" if after else ""),
        "held": f"the session was still waiting on {hook} that ignores SIGTERM when the run's budget ran out",
        # the session went on and the hook was still alive when the run ended (Cline 2.14.0)
        "orphaned": f"the session went on without {hook} that ignores SIGTERM, which the CLI never killed",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_grandchild(outcome: str, obs: Observations, event: str | None) -> str:
    hook, after = hook_words(event), seconds(obs.get("grandchild_time_to_death_s"))
    return {
        "grandchild-killed": f"the CLI killed the process {hook} left behind"
        + (f", {after} after the hook started" if after else ""),
        "grandchild-orphaned": f"the process {hook} left behind outlived the hook: the CLI did not kill it",
        "held-by-stdout": f"a process {hook} left holding its stdout kept the session waiting until the run's budget ran out",
        "held-by-grandchild": f"a process {hook} left behind kept the session waiting until the run's budget ran out",
        "no-grandchild": f"{hook} left no process behind",
    }.get(outcome, "")


def say_stdin(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event)
    return {
        "closed": f"the CLI closed {hook}'s stdin after the payload",
        "open": f"the CLI left {hook}'s stdin open after the payload",
        "unread": f"{hook} did not read its stdin to the end, so whether the CLI closes it was not seen",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_parallel(outcome: str, obs: Observations, event: str | None) -> str:
    hook, n = hook_words(event).split(" ", 1)[1], obs.get("hooks_fired")
    return {
        "parallel": f"{n} {hook}s on one event ran side by side, overlapping {seconds(obs.get('overlap_s'))}",
        "serial": f"{n} {hook}s on one event ran one after another",
        "single": f"the one {hook} on the event ran"
        if obs.get("hooks_registered") == 1
        else f"only one of the {hook}s on one event ran",
        "no-hook": f"none of the {hook}s ran",
    }.get(outcome, "")


@classifier(
    "liveness",
    key="progress_delay_s",
    says=say_liveness,
    reads=("subject", "hooks", "invocations", "side_effects", "model_requests", "cli"),
)
def liveness(session: SessionRecord) -> tuple[str, LivenessObs]:
    """A hook misbehaves (hangs, crashes, exits non-zero): does the session go on past it?
    "Going on" is the tool running for pre-tool and permission hooks, the prompt reaching the
    model for prompt-submit hooks, and for other events the session making progress after the
    hook started (a later model request, or the CLI ending by itself)."""
    subject = session["subject"]
    inv = first(session, subject)
    spec = hook_spec(session, subject)
    effect = side_effect_at(session)
    progress: float | None
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
    reason = find_in_requests(session, sentinels(spec), inv["start_offset_s"] if inv else None)
    obs: LivenessObs = {
        "tool_ran": effect is not None,
        "tools_ran": tools_ran(session),
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "hook_killed": bool(inv and inv["killed_by"] == "cli"),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_timeout_s": spec["timeout_s"] if spec else None,
        "hook_lifetime_s": inv["duration_s"] if inv else None,
        "tool_delay_s": tool_delay(inv, effect),
        "progress_delay_s": since(inv, progress),
        "cli_exit_code": session["cli"]["exit_code"],
        "session_timed_out": session["cli"]["timed_out"],
        "reason_reached_model": reason["reached"],
        "reason_location": reason["where"],
    }
    if inv is None:
        return "no-hook", obs
    if inv["killed_by"] == "harness" and ended_by_itself(session):
        return "abandoned", obs  # the CLI went on (or exited) and left the hook running
    if progress is None:
        return ("held" if session["cli"]["timed_out"] else ("fail-closed" if hook_failed(inv) else "denied")), obs
    if not hook_failed(inv):
        return "allowed", obs
    return "fail-open", obs


def signal_fate(inv: Invocation) -> str:
    """How a hung hook process ended: "terminated" by SIGTERM, "killed" by SIGKILL after
    surviving SIGTERM, "orphaned" (still running when the CLI exited), or "exited"."""
    if inv["killed_by"] == "harness":
        return "orphaned"
    if inv["killed_by_signal"] == "SIGTERM":
        return "terminated"
    if inv["killed_by_signal"]:
        return "killed"
    return "exited"


class LifetimeObs(TypedDict):
    tool_ran: bool
    hook_signals: list[str]
    hook_end: str | None
    hook_killed_by: str | None
    hook_lifetime_s: float | None
    sigterm_to_death_s: float | None
    tool_delay_s: float | None
    session_timed_out: bool


@classifier("hook-lifetime", key="sigterm_to_death_s", reads=("subject", "invocations", "side_effects", "cli"), says=say_lifetime)
def hook_lifetime(session: SessionRecord) -> tuple[str, LifetimeObs]:
    """A hook outlives its timeout (ignores SIGTERM): how, and how soon, does it die?"""
    inv = first(session, session["subject"])
    effect = side_effect_at(session)
    signalled, gone = (inv["first_signal_offset_s"], inv["gone_offset_s"]) if inv else (None, None)
    obs: LifetimeObs = {
        "tool_ran": effect is not None,
        "hook_signals": inv["signals_received"] if inv else [],
        "hook_end": hook_end(inv),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "hook_lifetime_s": inv["duration_s"] if inv else None,
        "sigterm_to_death_s": (
            round(gone - signalled, 3)
            if inv and signalled is not None and gone is not None and inv["killed_by"] == "cli"
            else None
        ),
        "tool_delay_s": tool_delay(inv, effect),
        "session_timed_out": session["cli"]["timed_out"],
    }
    if inv is None:
        return "no-hook", obs
    if session["cli"]["timed_out"] and effect is None:
        return "held", obs
    return signal_fate(inv), obs


class GrandchildObs(TypedDict):
    tool_ran: bool
    hook_end: str | None
    hook_killed_by: str | None
    grandchild_left: bool
    grandchild_killed: bool
    grandchild_alive_at_cli_exit: bool
    grandchild_time_to_death_s: float | None
    tool_delay_s: float | None
    cli_wall_s: float
    session_timed_out: bool


@classifier(
    "grandchild",
    key="grandchild_time_to_death_s",
    reads=("subject", "hooks", "invocations", "side_effects", "cli"),
    says=say_grandchild,
)
def grandchild(session: SessionRecord) -> tuple[str, GrandchildObs]:
    """A hook leaves a process behind: does the CLI kill it, and when? A hook that exited by
    itself while the tool then never ran within the budget held the CLI through what its
    grandchild kept open: `held-by-stdout` when the grandchild holds the hook's stdout."""
    inv = first(session, session["subject"])
    gc = inv.get("grandchild") if inv else None
    spec = hook_spec(session, session["subject"])
    behavior = spec["behavior"] if spec else None
    holds_stdout = bool(behavior and behavior.get("grandchild") == "stdout")
    obs: GrandchildObs = {
        "tool_ran": tool_ran(session),
        "hook_end": hook_end(inv),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "grandchild_left": gc is not None,
        "grandchild_killed": bool(gc and gc["killed_by"] == "cli"),
        "grandchild_alive_at_cli_exit": bool(gc and gc["alive_at_cli_exit"]),
        "grandchild_time_to_death_s": since(inv, gc["died_offset_s"] if gc else None),
        "tool_delay_s": tool_delay(inv, side_effect_at(session)),
        "cli_wall_s": session["cli"]["wall_s"],
        "session_timed_out": session["cli"]["timed_out"],
    }
    if gc is None or inv is None:
        return "no-grandchild", obs
    exited = inv["killed_by"] is None and inv["exit_code"] is not None
    if exited and not obs["tool_ran"] and obs["session_timed_out"] and obs["grandchild_alive_at_cli_exit"]:
        return ("held-by-stdout" if holds_stdout else "held-by-grandchild"), obs
    return ("grandchild-killed" if obs["grandchild_killed"] else "grandchild-orphaned"), obs


class StdinObs(TypedDict):
    hook_fired: bool
    stdin_eof: bool | None
    payload_parsed: bool
    hook_exit: str | None
    tool_ran: bool


@classifier("stdin", key="stdin_eof", reads=("subject", "invocations", "side_effects"), says=say_stdin)
def classify_stdin(session: SessionRecord) -> tuple[str, StdinObs]:
    """Does the CLI close the hook's stdin after the payload (end of input)?"""
    inv = first(session, session["subject"])
    obs: StdinObs = {
        "hook_fired": inv is not None,
        "stdin_eof": inv["stdin_eof"] if inv else None,
        "payload_parsed": bool(inv and inv["payload"] is not None),
        "hook_exit": hook_end(inv),
        "tool_ran": tool_ran(session),
    }
    if inv is None:
        return "no-hook", obs
    return {True: "closed", False: "open", None: "unread"}[inv["stdin_eof"]], obs


class ParallelObs(TypedDict):
    hooks_registered: int
    hooks_fired: int
    start_order: list[int | None]
    overlap_s: float
    start_gap_s: float | None
    tool_ran: bool


@classifier("parallel", key="overlap_s", reads=("subject", "hooks", "invocations", "side_effects"), says=say_parallel)
def parallel(session: SessionRecord) -> tuple[str, ParallelObs]:
    """Several hooks on one event: run side by side or one after another, in what order?"""
    invs = of_event(session, session["subject"])
    spans = [(i["start_offset_s"], i["gone_offset_s"]) for i in invs]
    overlap = 0.0
    if len(spans) >= 2:
        (s1, e1), (s2, e2) = spans[0], spans[1]
        if e1 is not None and e2 is not None:
            overlap = max(0.0, min(e1, e2) - max(s1, s2))
    keys = [h["native"] for h in session["hooks"] if h["canonical"] == session["subject"]]
    obs: ParallelObs = {
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
