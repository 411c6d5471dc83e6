"""Interactive sessions for real: the CLIs in a pseudo-terminal, driven like a person would
(type a prompt, answer a permission prompt, /clear, exit, resume), with the same hooks and
evidence as prompt mode plus `mode: interactive` and the transcript of each step."""

from __future__ import annotations

import json

import pytest

from probes.agents import AGENTS
from probes.pipeline import plan as plan_module
from probes.pipeline import run as run_module
from probes.report.answer import answer
from tests.helpers import CLAUDE, COPILOT

pytestmark = pytest.mark.real


@pytest.mark.parametrize("spec, fresh", [(CLAUDE, "startup"), (COPILOT, "new")])
def test_fresh_and_resumed_sessions_get_different_sources(spec, fresh, run_probe):
    first = run_probe(spec, "session-start-interactive")
    resumed = run_probe(spec, "session-start-resume")
    assert first["mode"] == resumed["mode"] == "interactive"
    assert (first["outcome"], resumed["outcome"]) == (fresh, "resume")
    assert [s["do"] for s in resumed["transcript"]] == ["start", "prompt", "exit", "start", "prompt", "exit"]
    assert all(s["ok"] and s["screen"] for s in resumed["transcript"])
    assert resumed["observations"]["session_start_sources"][-1] == "resume"


@pytest.mark.parametrize("spec", [CLAUDE, COPILOT])
def test_ask_is_a_prompt_a_person_answers(spec, run_probe):
    yes, no = run_probe(spec, "ask-pretool-interactive"), run_probe(spec, "ask-pretool-interactive-no")
    assert (yes["outcome"], no["outcome"]) == ("prompted-ran", "prompted-skipped")
    assert "PROBE-ASK-REASON" in yes["transcript"][1]["screen"]  # the hook's reason is on the prompt


def test_a_screen_that_never_gets_ready_is_an_outcome_not_a_hang(real_tools, tmp_path, monkeypatch):
    """A terminal UI changed so the ready marker never shows: the probe ends at the ready
    timeout with `could-not-drive`, the failed step and the screen it saw."""
    monkeypatch.setitem(AGENTS["claude"].tty, "markers", {**AGENTS["claude"].tty["markers"], "ready": "PROBE-NEVER-SHOWN"})
    monkeypatch.setattr(plan_module, "TTY_READY_TIMEOUT_S", 3.0)
    ev, path = run_module.probe(CLAUDE, "session-start-interactive", tmp_path)
    assert ev.outcome == "could-not-drive"
    assert ev.observations["tty_error"] == "start: could not reach the ready prompt"
    assert "❯" in ev.observations["screen"]  # what was on screen: Claude's input box
    assert ev.cli.wall_s < 10
    assert json.loads(path.read_text())["transcript"][0]["ok"] is False


def test_a_screen_that_says_it_will_never_get_ready_ends_the_start_at_once(real_tools, tmp_path, monkeypatch):
    """An agent's stuck marker (Copilot 1.0.0-1.0.7 ask for a GitHub login in a terminal) on a
    quiet screen ends the start step then, with `could-not-drive`, not at the ready timeout."""
    markers = {**AGENTS["claude"].tty["markers"], "ready": "PROBE-NEVER-SHOWN", "stuck": "❯"}
    monkeypatch.setitem(AGENTS["claude"].tty, "markers", markers)
    ev, _ = run_module.probe(CLAUDE, "session-start-interactive", tmp_path)
    assert ev.outcome == "could-not-drive"
    assert ev.observations["tty_error"] == "start: the screen says it will not get ready (❯)"
    assert ev.cli.wall_s < 15  # the ready timeout is 30 s


def test_a_notice_at_start_is_dismissed_and_kept_and_the_session_goes_on(real_tools, tmp_path, monkeypatch):
    """A hook event the release does not know: Claude Code draws a Settings Warning that waits
    for a key (as 2.1.150 does for DirectoryAdded). The driver presses Enter (Continue), keeps
    the notice as drawn, and the session runs: the other hooks' verdict, and the warning said."""
    claude = AGENTS["claude"]
    monkeypatch.setattr(claude, "events", {**claude.events, "session_end": "ProbeNoSuchEvent"})
    ev, _ = run_module.probe(CLAUDE, "session-start-interactive", tmp_path)
    assert (ev.outcome, ev.executed_version) == ("startup", CLAUDE.split("@")[1])
    start = (ev.transcript or [])[0]
    assert start["ok"] and 'Unknown hook event "ProbeNoSuchEvent"' in start["dismissed"][0]
    assert 'Unknown hook event "ProbeNoSuchEvent" was ignored' in answer(ev, "lifecycle")
