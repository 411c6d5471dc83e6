"""A prompt hook whose text the CLI submits as a person's prompt (Copilot CLI's sessionStart
`type: prompt`) becomes an invocation of that hook where the model log first shows it."""

from __future__ import annotations

from probes.agents.base import Registration
from probes.pipeline.plan import Hooks
from probes.pipeline.submitted import submissions

KEY = "0-session_start"
HOOK = f"<current_datetime>2026-12-02</current_datetime>\n\nPROBE-HOOK-{KEY} say the word ready."
TYPED = "Say done. (PROBE-PROMPT-1)"


def hooks(handler_type: str = "prompt") -> Hooks:
    reg = Registration(KEY, "sessionStart", "", None, None, handler_type=handler_type, prompt=f"PROBE-HOOK-{KEY} say")
    return Hooks([reg], {KEY: {"event": "sessionStart", "canonical": "session_start", "behavior": {}}})


def entry(t: float, users: list[str], reply: dict, tools: list[str] | None = None) -> dict:
    messages = [{"role": "system", "text": "You are the GitHub Copilot CLI."}]
    for i, u in enumerate(users):
        messages += [{"role": "user", "text": u}] + ([{"role": "assistant", "text": "ok"}] if i < len(users) - 1 else [])
    return {"seq": 1, "t": t, "method": "POST", "path": "/v1/chat/completions", "user_agent": "", "model": "m",
            "stream": True, "tools": ["bash"] if tools is None else tools, "messages": messages, "reply": reply}  # fmt: skip


def test_a_submission_answered_on_its_own_is_one_invocation_with_the_reply():
    log = [
        entry(100.0, [HOOK], {"text": "title", "aux": True}, tools=[]),  # a title request: not the conversation
        entry(101.0, [HOOK], {"text": "ready", "turn": 0}),
        entry(103.0, [HOOK, TYPED], {"text": "done", "turn": 0}),
    ]
    (inv,) = submissions(log, hooks(), 99.0)
    assert (inv.event, inv.canonical_event, inv.handler_type, inv.pid, inv.payload) == (
        "sessionStart",
        "session_start",
        "prompt",
        0,
        None,
    )
    assert (inv.start_offset_s, inv.duration_s, inv.output, inv.config_index) == (2.0, 0.0, "ready", 0)


def test_a_submission_sent_only_with_the_typed_prompt_has_no_output():
    both = entry(101.0, [HOOK], {"text": "done", "turn": 0})
    both["messages"].append({"role": "user", "text": TYPED})  # 1.0.71: two user messages, one request
    (inv,) = submissions([both], hooks(), 100.0)
    assert inv.output is None and inv.start_offset_s == 1.0


def test_a_hook_evaluation_and_a_command_hook_are_not_submissions():
    evaluation = entry(101.0, [f"PROBE-HOOK-{KEY} Safe?"], {"text": "{}", "aux": True, "hook": KEY})
    assert submissions([evaluation], hooks(), 100.0) == []
    assert submissions([entry(101.0, [HOOK], {"text": "ready"})], hooks("command"), 100.0) == []


def test_a_second_submission_resumed_or_in_a_new_session_is_a_second_invocation():
    log = [entry(101.0, [HOOK], {"text": "ready"}), entry(102.0, [HOOK, TYPED, HOOK], {"text": "ready"})]
    assert [i.start_offset_s for i in submissions(log, hooks(), 100.0)] == [1.0, 2.0]
    fresh = [entry(101.0, [HOOK], {"text": "ready"}), entry(102.0, [HOOK], {"text": "ready"})]
    assert [i.start_offset_s for i in submissions(fresh, hooks(), 100.0)] == [1.0, 2.0]


def test_a_later_request_of_the_same_turn_is_no_new_submission():
    turn = entry(102.0, [HOOK], {"text": "ready"})
    turn["messages"] += [{"role": "assistant", "text": "calls bash"}, {"role": "tool", "text": "ran"}]
    assert [i.start_offset_s for i in submissions([entry(101.0, [HOOK], {"tool": "bash"}), turn], hooks(), 100.0)] == [1.0]
