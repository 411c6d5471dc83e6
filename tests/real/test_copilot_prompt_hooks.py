"""Copilot CLI's sessionStart prompt hook on the real CLI: in a new terminal session its text
is submitted as the person's prompt (a user message of the main conversation, answered by the
scripted model), recorded as an invocation of the hook; with -p it never reaches the model."""

from __future__ import annotations

import json

from tests.helpers import COPILOT, probe_cmd


def run(tmp_path, recipe: str) -> dict:
    proc = probe_cmd("run", COPILOT, recipe, "--json", results=tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_prompt_hook_is_submitted_in_a_terminal_and_not_with_p(real_tools, tmp_path):
    ev, ctl = run(tmp_path, "prompt-session-start-interactive"), run(tmp_path, "prompt-session-start-print")
    assert (ev["outcome"], ctl["outcome"]) == ("submitted-alone", "not-submitted")
    (inv,) = [i for i in ev["invocations"] if i.get("handler_type") == "prompt"]
    assert (inv["event"], inv["pid"], inv["output"]) == ("sessionStart", 0, "ready")
    assert ev["hooks"][0]["handler"] == {
        "type": "prompt",
        "prompt": "PROBE-HOOK-0-session_start PROBE-STARTUP-PROMPT say the word ready.",
    }
    assert ev["observations"]["roles"] == ["user"]
    assert [s["do"] for s in ev["transcript"]] == ["start", "wait", "prompt", "exit"]
    assert ctl["invocations"] == [] and ctl["model_request_count"] >= 1


def test_a_prompt_hook_is_submitted_again_when_resumed_on_1_0_92(real_tools, tmp_path):
    # its docs: prompt hooks do not fire on resume; 1.0.92 submits the text into the resumed conversation
    ev = run(tmp_path, "prompt-session-start-resume")
    assert (ev["outcome"], ev["observations"]["submissions"]) == ("submitted-alone", 2)
    assert [s["do"] for s in ev["transcript"]] == ["start", "wait", "exit", "start", "wait", "exit"]
