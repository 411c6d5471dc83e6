"""Interactive sessions: a person in a terminal starts, prompts, answers, clears and exits."""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words
from probes.classify.session import SessionRecord, count, first, hook_spec, of_event, payload_field, requests_after, tool_ran
from probes.runner.contract import HOOK_SENTINEL


def starts(session: SessionRecord) -> list[float]:
    """When the CLI was started (interactive sessions: every start step), in seconds."""
    return [s["offset_s"] for s in session.get("transcript") or [] if s["do"] == "start"] or [0.0]


class LifecycleObs(TypedDict):
    session_start_sources: list[object]
    sources_after_last_start: list[object]
    session_end_reasons: list[object]
    session_ids: int
    counts: dict[str, int]
    starts: int
    tool_ran: bool


def say_lifecycle(outcome: str, obs: Observations, event: str | None) -> str:
    if outcome == "no-hook":
        return f"{hook_words(event)} never ran"
    if event == "session_start":
        return f"after the last start in a terminal, {hook_words(event)} was given the source {outcome}"
    if event == "session_end":
        return f"{hook_words(event)} was given the reasons {outcome.replace('+', ', then ')}"
    started, _, prompts, _ = (outcome.split("-") + ["", "", "", ""])[:4]
    return f"over a terminal session, session-start hooks ran {started} time(s) and prompt-submit hooks {prompts}"


def say_approval(outcome: str, obs: Observations, event: str | None) -> str:
    hook, answer = hook_words(event), obs.get("answer")
    asked = (
        f"the CLI asked in the terminal, the person answered {answer!r}" if obs.get("prompt_shown") else "no question was shown"
    )
    return f"{hook} asked for permission: {asked}, and the tool {'ran' if obs.get('tool_ran') else 'did not run'}"


@classifier(
    "lifecycle",
    reads=("subject", "hooks", "invocations", "invocations_by_event", "side_effects", "transcript"),
    says=say_lifecycle,
)
def lifecycle(session: SessionRecord) -> tuple[str, LifecycleObs]:
    """An interactive session: which session-start sources and session-end reasons the hooks
    got, how often each event fired, across starts, /clear and exit. The label is the answer
    for the subject event: the session-start source after the last start, the session-end
    reasons in order, or the count of session starts and prompt submits."""
    last_start = starts(session)[-1]
    sources = [payload_field(i, "source") for i in of_event(session, "session_start")]
    after = [payload_field(i, "source") for i in of_event(session, "session_start") if i["start_offset_s"] >= last_start]
    reasons = [payload_field(i, "reason") for i in of_event(session, "session_end")]
    ids = {payload_field(i, "session_id", "sessionId") for i in session["invocations"]} - {None}
    obs: LifecycleObs = {
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


class ApprovalObs(TypedDict):
    hook_fired: bool
    prompt_shown: bool
    answer: str | None
    tool_ran: bool
    model_called_after_answer: bool
    stop_fired: bool | None


@classifier(
    "approval",
    reads=("subject", "hooks", "invocations", "invocations_by_event", "side_effects", "model_requests", "transcript"),
    says=say_approval,
)
def approval(session: SessionRecord) -> tuple[str, ApprovalObs]:
    """A pre-tool hook asks for permission in a terminal: is a prompt shown, and does the
    person's answer run the tool or skip it? After a no: does the model get called again?"""
    answered = next((s for s in session.get("transcript") or [] if s["do"] == "answer"), None)
    inv = first(session, session["subject"])
    shown = bool(answered and answered["ok"])
    ran = tool_ran(session)
    obs: ApprovalObs = {
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


# A prompt hook whose text the CLI submits as if a person typed it (Copilot CLI's sessionStart
# prompt hooks; pipeline/submitted.py records each submission).
TYPED = "PROBE-PROMPT-"  # a prompt the terminal driver typed (plan.terminal_plan marks each)


class SubmittedObs(TypedDict):
    hook_fired: bool  # any hook on the subject event ran (a command in the control)
    submissions: int  # in the whole session (every start)
    offset_s: float | None  # when the model was first sent its text after the last start
    after_ready_s: float | None  # ... after that start's input box was ready (interactive)
    roles: list[str]  # the message roles its text came in
    answered_alone: bool  # that request answered it (its text the latest user message)
    reply: str | None
    typed_prompt_in_same_request: bool


def say_submitted(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event)
    return {
        "submitted-alone": f"{hook}'s prompt was submitted as a user message and answered in a turn of its own",
        "submitted-with-prompt": f"{hook}'s prompt reached the model as a user message only with the next typed prompt",
        "not-submitted": f"{hook}'s prompt never reached the model",
    }.get(outcome, "")


@classifier("submitted", key="roles", says=say_submitted, reads=("subject", "invocations", "model_requests", "transcript"))
def submitted(session: SessionRecord) -> tuple[str, SubmittedObs]:
    """A prompt hook on the subject event: after the CLI's last start, was its text sent to the
    model as a prompt, in a turn of its own, or only in one request with the person's next
    prompt? (Which one depends on how soon the person types: Copilot submits it up to seconds
    after the input box is drawn, so a recipe waits before it types.)"""
    invs = of_event(session, session["subject"])
    subs = [i for i in invs if i.get("handler_type") == "prompt"]
    last = starts(session)[-1]
    first = next((i for i in subs if i["start_offset_s"] >= last), None)
    req = None
    if first is not None:
        req = next(
            (
                r
                for r in session["model_requests"]
                if r["offset_s"] >= first["start_offset_s"] and any(w.startswith(HOOK_SENTINEL) for w in r["sentinels"])
            ),
            None,
        )
    words = req["sentinels"] if req else {}
    ready = [s["offset_s"] + s["took_s"] for s in session.get("transcript") or [] if s["do"] == "start" and s["offset_s"] >= last]
    obs: SubmittedObs = {
        "hook_fired": bool(invs),
        "submissions": len(subs),
        "offset_s": first["start_offset_s"] if first else None,
        "after_ready_s": round(first["start_offset_s"] - ready[0], 3) if first and ready else None,
        "roles": sorted({role for w, seen in words.items() if w.startswith(HOOK_SENTINEL) for role in seen["roles"]}),
        "answered_alone": bool(first and first["output"] is not None),
        "reply": first["output"] if first else None,
        "typed_prompt_in_same_request": any(w.startswith(TYPED) for w in words),
    }
    if first is None:
        return "not-submitted", obs
    return ("submitted-alone" if obs["answered_alone"] else "submitted-with-prompt"), obs
