"""The submitted classifier on Copilot's committed prompt-hook evidence, and on the same
evidence altered: each label can come out."""

from __future__ import annotations

import copy

import pytest

from probes.catalog.parts import Action
from probes.classify import SESSION_KEYS, label
from probes.evidence.model import load_evidence
from tests.helpers import ROOT

RECORD = ROOT / "results" / "copilot" / "1.0.92" / "prompt-session-start-interactive.json"


def session() -> dict:
    ev = load_evidence(RECORD)
    return {k: copy.deepcopy(ev.get(k)) for k in SESSION_KEYS}


def test_a_prompt_answered_in_a_turn_of_its_own():
    outcome, obs = label("submitted", session())
    assert outcome == "submitted-alone"
    assert obs["roles"] == ["user"] and obs["reply"] == "ready" and obs["submissions"] == 1
    assert not obs["typed_prompt_in_same_request"]
    assert isinstance(obs["after_ready_s"], float)


def test_a_prompt_sent_with_the_typed_one_and_one_never_sent():
    s = session()
    for inv in s["invocations"]:
        inv["output"] = None  # the request that carried it answered a later user message
    assert label("submitted", s)[0] == "submitted-with-prompt"
    s["invocations"] = []
    outcome, obs = label("submitted", s)
    assert outcome == "not-submitted" and not obs["hook_fired"] and obs["roles"] == []


def test_wait_is_an_action_of_its_own():
    assert Action(wait=5).wait == 5
    with pytest.raises(ValueError, match="exactly one of"):
        Action(wait=5, exit=True)
    with pytest.raises(ValueError):
        Action(wait=60)  # at most 30 s


def test_the_label_is_for_the_last_start():
    # 1.0.102 submits the hook's text in the first session, not again when resumed with --continue
    ev = load_evidence(ROOT / "results" / "copilot" / "1.0.102" / "prompt-session-start-resume.json")
    outcome, obs = label("submitted", {k: copy.deepcopy(ev.get(k)) for k in SESSION_KEYS})
    assert (outcome, obs["submissions"], obs["offset_s"]) == ("not-submitted", 1, None)
