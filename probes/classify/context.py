"""Context: a hook hands the model text: does it arrive, whole, and where?"""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words
from probes.classify.session import SessionRecord, find_in_requests, in_cli_output, of_event, sentinels, tool_ran


class ContextObs(TypedDict):
    hook_fired: bool
    context_reached_model: bool
    context_location: dict[str, list[str]]
    context_verbatim: bool
    context_shown_to_user: bool
    context_order: list[str]
    context_separator: str | None
    tool_ran: bool


def say_context(outcome: str, obs: Observations, event: str | None) -> str:
    hook, where = hook_words(event), obs.get("context_location")
    parts = sorted({str(r) for rs in where.values() for r in rs}) if isinstance(where, dict) else []
    into = f" in the {' and '.join(parts)} part of the request" if parts else ""
    return {
        "reached-verbatim": f"{hook}'s text reached the model verbatim{into}",
        "reached-altered": f"{hook}'s text reached the model altered{into}",
        "partly-reached": f"only part of {hook}'s text reached the model{into}",
        "not-reached": f"{hook}'s text did not reach the model",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


@classifier(
    "context",
    key="context_location",
    says=say_context,
    reads=("subject", "hooks", "invocations", "side_effects", "model_requests", "cli"),
)
def context(session: SessionRecord) -> tuple[str, ContextObs]:
    """A hook hands the model context (additionalContext, plain stdout): does its text reach
    the next model request, verbatim or altered, and in which part (system, user, tool)?"""
    subject = session["subject"]
    invs = of_event(session, subject)
    words = sorted({w for h in session["hooks"] if h["canonical"] == subject for w in sentinels(h)})
    start = invs[0]["start_offset_s"] if invs else None
    seen = find_in_requests(session, words, start)
    order, separator = sentinel_order(session, words)
    obs: ContextObs = {
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


def sentinel_order(session: SessionRecord, words: list[str]) -> tuple[list[str], str | None]:
    """Where several hooks' contexts land in one message: their order, and what separates
    the first two (read from the snippet kept around the first)."""
    if len(words) < 2:
        return [], None
    for req in session["model_requests"]:
        seen = [req["sentinels"].get(w) for w in words]
        snips = [s["snippet"] if s else None for s in seen]
        for w, snip in zip(words, snips, strict=True):
            if not snip:
                continue
            others = [o for o in words if o != w and o in snip]
            if others:
                pos = sorted([w, *others], key=snip.index)
                a, b = pos[0], pos[1]
                between = snip[snip.index(a) : snip.index(b)]
                sep = between[between.rfind(".") + 1 :] if "." in between else between[len(a) :]
                return pos, sep[-40:]
    return [], None
