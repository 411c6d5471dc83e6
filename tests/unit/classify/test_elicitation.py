"""The elicitation classifier (probes/classify/mcp.py): what the probe's MCP server that asked
for input got back, with an Elicitation or ElicitationResult hook answering for the person."""

from __future__ import annotations

import copy

from probes.classify import SESSION_KEYS, label
from tests.helpers import fixture


def session(recipe: str) -> dict:
    ev = fixture("claude", "2.1.332", recipe)
    return {k: copy.deepcopy(ev.get(k)) for k in SESSION_KEYS}


def test_what_the_server_got_is_the_label():
    accepted = session("elicitation-accept")
    outcome, obs = label("elicitation", accepted)
    assert outcome == "accepted" and obs["content"] == {"answer": "PROBE-ELICITED"} and obs["content_reached_model"]
    assert label("elicitation", session("elicitation-decline"))[0] == "declined"
    assert label("elicitation", session("elicitation-accept-control"))[0] == "cancelled"  # -p: no one to ask
    assert label("elicitation", session("elicitation-result-accept"))[0] == "accepted"


def test_a_server_that_never_asked_or_a_hook_that_never_ran():
    asked = session("elicitation-accept")
    assert (
        label("elicitation", {**asked, "invocations": [i for i in asked["invocations"] if i["event"] != "Elicitation"]})[0]
        == "no-hook"
    )
    calls = [i for i in asked["invocations"] if i["canonical_event"] != "tools/call"]
    assert label("elicitation", {**asked, "invocations": calls})[0] == "not-asked"
    unanswered = copy.deepcopy(asked)
    for inv in unanswered["invocations"]:
        if inv["canonical_event"] == "tools/call":
            inv["payload"]["elicitation"] = {"asked_at": 1.0, "error": "eof"}
    assert label("elicitation", unanswered)[0] == "no-answer"
