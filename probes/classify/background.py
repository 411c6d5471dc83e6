"""Background hooks (Claude Code's `async` and `asyncRewake`): does the CLI wait for a slow hook
before what it gates (the tool, or for other events the first model request), and what becomes
of a hook still running when a `-p` session ends?"""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words, seconds, went_on
from probes.classify.session import GATED, SessionRecord, first, hook_end, requests_after, side_effect_at

ENDING = ("stop", "session_end")  # events after the last turn: the CLI exits after them


class BackgroundObs(TypedDict):
    hook_fired: bool
    gate_s: float | None  # when what the hook gates happened (the tool ran, the first model request)
    gate_delay_s: float | None  # seconds from the hook's start to it
    hook_end_s: float | None  # when the hook ended (exited or was killed), after the CLI started
    hook_lifetime_s: float | None
    hook_end: str | None
    hook_finished: bool  # it exited by itself
    hook_killed_by: str | None  # cli, or harness: still running when the CLI had exited
    cli_wall_s: float
    session_timed_out: bool


def say_background(outcome: str, obs: Observations, event: str | None) -> str:
    hook, (gated, onward) = hook_words(event), went_on(event)
    if event in ENDING:
        gated, onward = "the CLI's exit", "the CLI exited"
    after = seconds(obs.get("gate_delay_s"))
    ahead = f"{gated} did not wait for {hook} ({onward} {after} after it started)"
    return {
        "waited": f"the CLI waited for {hook} to end before {gated} went on" + (f" ({after} after it started)" if after else ""),
        "background-finished": f"{ahead}, which then finished",
        "background-killed": f"{ahead}, and the CLI killed it when the session ended",
        "background-orphaned": f"{ahead}, and the CLI exited leaving it running",
        "held": f"the session was still waiting on {hook} when the run's budget ran out",
        "no-progress": f"{gated} never went on after {hook}",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


@classifier(
    "background",
    key="gate_delay_s",
    reads=("subject", "invocations", "side_effects", "model_requests", "cli"),
    says=say_background,
)
def background(session: SessionRecord) -> tuple[str, BackgroundObs]:
    """A hook that takes seconds (sleeps) with or without `async`: `waited` when what it gates
    (the tool; after a stop or session-end hook the CLI's exit; else the next model request)
    came after its end; otherwise `background-` and how it ended: `finished` (exited by itself),
    `killed` (by the CLI, e.g. at a -p session's teardown), `orphaned` (alive when the CLI exited)."""
    subject = session["subject"]
    inv = first(session, subject)
    if subject in GATED:
        gate = side_effect_at(session)
    elif subject in ENDING:  # what a hook at the end gates is the CLI's exit
        gate = None if session["cli"]["timed_out"] else session["cli"]["wall_s"]
    else:
        later = requests_after(session, inv["start_offset_s"] if inv else 0.0)
        gate = later[0]["offset_s"] if later else None
    duration = inv["duration_s"] if inv else None
    end = round(inv["start_offset_s"] + duration, 3) if inv and duration is not None else None
    obs: BackgroundObs = {
        "hook_fired": inv is not None,
        "gate_s": gate,
        "gate_delay_s": round(gate - inv["start_offset_s"], 3) if inv and gate is not None else None,
        "hook_end_s": end,
        "hook_lifetime_s": duration,
        "hook_end": hook_end(inv),
        "hook_finished": bool(inv and inv["exit_code"] is not None and not inv["killed_by"]),
        "hook_killed_by": inv["killed_by"] if inv else None,
        "cli_wall_s": session["cli"]["wall_s"],
        "session_timed_out": session["cli"]["timed_out"],
    }
    if inv is None:
        return "no-hook", obs
    if gate is None:
        return ("held" if session["cli"]["timed_out"] else "no-progress"), obs
    if end is not None and gate >= end:
        return "waited", obs
    if obs["hook_finished"]:
        return "background-finished", obs
    return ("background-orphaned" if inv["killed_by"] == "harness" else "background-killed"), obs
