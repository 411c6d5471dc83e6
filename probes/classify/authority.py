"""Authority: a hook answers (allow, deny, rewrite, stop): is the action let through, and does
its reason reach the model?"""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words, went_on
from probes.classify.session import (
    SessionRecord,
    count,
    find_in_requests,
    first,
    hook_end,
    hook_spec,
    in_cli_output,
    of_event,
    payload_field,
    requests_after,
    sentinels,
    tool_ran,
)


class DecisionObs(TypedDict):
    tool_ran: bool
    hook_fired: bool
    hook_exit: str | None
    hook_output_chars: int
    reason_reached_model: bool
    reason_location: dict[str, list[str]]
    reason_verbatim: bool
    reason_shown_to_user: bool
    model_requests_after_hook: int


def reason(obs: Observations, key: str = "reason_reached_model") -> str:
    return "its reason reached the model" if obs.get(key) else "its reason did not reach the model"


def say_decision(outcome: str, obs: Observations, event: str | None) -> str:
    hook, (gated, onward) = hook_words(event), went_on(event)
    end = obs.get("hook_exit") or "no exit status"
    return {
        "denied": f"{hook} that answered deny ({end}) stopped {gated}; {reason(obs)}",
        "blocked": f"{hook} that answered block ({end}) stopped the prompt before the model; {reason(obs)}",
        "allowed": f"{hook} answered ({end}) and {onward}",
        "passed": f"{hook} answered ({end}) and the prompt went on to the model",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_rewrite(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event)
    return {
        "rewritten": f"the tool ran with the arguments {hook} rewrote",
        "original": f"the tool ran with its original arguments: {hook}'s rewrite was not applied",
        "both": f"the tool ran with both the original and {hook}'s rewritten arguments",
        "neither": f"the tool ran with neither the original nor {hook}'s rewritten arguments",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_halt(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event)
    return {
        "halted": f"{hook} that asked the session to stop ended it; {reason(obs, 'stop_reason_reached_model')}",
        "continued": f"the session went on after {hook} asked it to stop",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_stop_loop(outcome: str, obs: Observations, event: str | None) -> str:
    n = obs.get("stop_invocations")
    return {
        "unbounded": f"a stop hook that always blocks was called {n} times, still going when the run's budget ran out",
        "bounded": f"a stop hook that always blocks was called {n} times, then the CLI ended the session by itself",
        "single-stop": "a stop hook that always blocks was called once and the session ended",
        "no-stop": "the stop hook never ran",
    }.get(outcome, "")


@classifier(
    "decision",
    key="reason_reached_model",
    says=say_decision,
    reads=("subject", "hooks", "invocations", "side_effects", "model_requests", "cli"),
)
def decision(session: SessionRecord) -> tuple[str, DecisionObs]:
    """A hook answers (exit code, JSON, text): is the action let through, and does the
    hook's reason reach the model? Pre-tool and permission hooks gate the tool; a
    prompt-submit hook gates the model call; a stop hook gates the end of the turn."""
    subject = session["subject"]
    inv = first(session, subject)
    words = sentinels(hook_spec(session, subject))
    seen = find_in_requests(session, words, inv["start_offset_s"] if inv else None)
    obs: DecisionObs = {
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


class RewriteObs(TypedDict):
    hook_fired: bool
    original_ran: bool
    modified_ran: bool
    hook_exit: str | None


REWRITE_LABELS = {(False, True): "rewritten", (True, False): "original", (True, True): "both", (False, False): "neither"}


@classifier("rewrite", reads=("subject", "invocations", "side_effects"), says=say_rewrite)
def rewrite(session: SessionRecord) -> tuple[str, RewriteObs]:
    """A pre-tool hook rewrites the tool's arguments: which command ran?"""
    inv = first(session, session["subject"])
    watched = [m["path"] for m in session["side_effects"] if m["kind"] == "watched"]
    original, modified = tool_ran(session), bool(watched)
    obs: RewriteObs = {
        "hook_fired": inv is not None,
        "original_ran": original,
        "modified_ran": modified,
        "hook_exit": hook_end(inv),
    }
    if inv is None:
        return "no-hook", obs
    return REWRITE_LABELS[original, modified], obs


class HaltObs(TypedDict):
    hook_fired: bool
    tool_ran: bool
    model_requests_after_hook: int
    stop_reason_shown_to_user: bool
    stop_reason_reached_model: bool
    cli_exit_code: int | None


@classifier("halt", reads=("subject", "hooks", "invocations", "side_effects", "model_requests", "cli"), says=say_halt)
def halt(session: SessionRecord) -> tuple[str, HaltObs]:
    """A hook asks the session to stop (Claude `continue: false`): does it?"""
    inv = first(session, session["subject"])
    words = sentinels(hook_spec(session, session["subject"]))
    after = requests_after(session, inv["start_offset_s"]) if inv else []
    obs: HaltObs = {
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


class StopLoopObs(TypedDict):
    stop_invocations: int
    stop_hook_active_first: object
    stop_hook_active_later: list[str]
    model_requests: int
    session_timed_out: bool


@classifier(
    "stop-loop",
    key="stop_invocations",
    says=say_stop_loop,
    reads=("hooks", "invocations", "invocations_by_event", "model_request_count", "cli"),
)
def stop_loop(session: SessionRecord) -> tuple[str, StopLoopObs]:
    """A stop hook that always blocks: does the CLI end the loop by itself?"""
    stops = of_event(session, "stop")
    active = [payload_field(i, "stop_hook_active") for i in stops if isinstance(i["payload"], dict)]
    obs: StopLoopObs = {
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
