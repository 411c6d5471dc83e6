"""Interactive sessions: a person in a terminal starts, prompts, answers, clears and exits."""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words
from probes.classify.session import SessionRecord, count, first, hook_spec, of_event, payload_field, requests_after, tool_ran


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
