"""A prompt hook's evaluation in the model log becomes an invocation of that hook."""

from __future__ import annotations

import json

from probes.pipeline.answered import evaluations
from probes.pipeline.plan import Hooks


def entry(t, key, hold=0.0, held=False):
    reply = {"text": json.dumps({"ok": False, "reason": "PROBE-VERDICT-DENY"}), "aux": True, "hook": key}
    if held or hold:
        reply["hold_s"] = None if held else hold
    text = f"PROBE-HOOK-{key} Safe? " + json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash"})
    messages = [{"role": "system", "text": "You are evaluating a hook in Claude Code."}, {"role": "user", "text": text}]
    return {"seq": 1, "t": t, "method": "POST", "path": "/v1/messages", "user_agent": "", "model": "m", "stream": False,
            "tools": [], "messages": messages, "reply": reply}  # fmt: skip


def test_an_answered_evaluation_is_an_invocation_without_a_process():
    hooks = Hooks([], {"0-pre_tool": {"event": "PreToolUse", "canonical": "pre_tool", "behavior": {}}})
    main = {**entry(100.5, "0-pre_tool"), "reply": {"tool": "Bash", "turn": 0}}
    (inv,) = evaluations([main, entry(101.0, "0-pre_tool", hold=2.0)], hooks, 100.0)
    assert (inv.event, inv.canonical_event, inv.handler_type, inv.pid) == ("PreToolUse", "pre_tool", "prompt", 0)
    assert inv.payload == {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    assert (inv.start_offset_s, inv.duration_s, inv.gone_offset_s) == (1.0, 2.0, 3.0)
    assert json.loads(inv.output or "")["ok"] is False
    assert "handler_type" in inv.model_dump(mode="json")


def test_a_held_evaluation_never_ended():
    hooks = Hooks([], {"0-pre_tool": {"event": "PreToolUse", "canonical": "pre_tool", "behavior": {}}})
    (inv,) = evaluations([entry(101.0, "0-pre_tool", held=True)], hooks, 100.0)
    assert inv.ended_at is None and inv.duration_s is None


def agent_entry(t, key, reply, assistants=0):
    e = entry(t, key)
    e["tools"] = ["Bash", "Read", "StructuredOutput"]
    e["messages"] += [{"role": "assistant", "text": "x"}] * assistants
    e["reply"] = {**reply, "aux": True, "hook": key, "turn": assistants}
    return e


def test_an_agent_evaluation_over_several_requests_is_one_invocation():
    # 2.1.328: a text answer, then "[structured-output-enforce]", then the StructuredOutput call
    hooks = Hooks([], {"0-pre_tool": {"event": "PreToolUse", "canonical": "pre_tool", "behavior": {}}})
    verdict = {"tool": "StructuredOutput", "arguments": {"ok": False, "reason": "PROBE-VERDICT-DENY"}}
    log = [agent_entry(101.0, "0-pre_tool", {"text": "not json"}), agent_entry(101.5, "0-pre_tool", verdict, 1)]
    (inv,) = evaluations(log, hooks, 100.0)
    assert (inv.handler_type, inv.pid, inv.start_offset_s, inv.duration_s, inv.gone_offset_s) == ("agent", 0, 1.0, 0.5, 1.5)
    assert json.loads(inv.output or "") == {"ok": False, "reason": "PROBE-VERDICT-DENY"}
    assert inv.payload == {"hook_event_name": "PreToolUse", "tool_name": "Bash"}


def test_each_agent_evaluation_that_starts_afresh_is_its_own_invocation():
    hooks = Hooks([], {"1-stop": {"event": "Stop", "canonical": "stop", "behavior": {}}})
    verdict = {"tool": "StructuredOutput", "arguments": {"ok": False, "reason": "again"}}
    invs = evaluations([agent_entry(101.0, "1-stop", verdict), agent_entry(102.0, "1-stop", verdict)], hooks, 100.0)
    assert [i.start_offset_s for i in invs] == [1.0, 2.0] and {i.handler_type for i in invs} == {"agent"}


def test_an_agent_evaluation_never_answered_never_ended():
    hooks = Hooks([], {"0-pre_tool": {"event": "PreToolUse", "canonical": "pre_tool", "behavior": {}}})
    e = agent_entry(101.0, "0-pre_tool", {"text": "x"})
    e["reply"]["hold_s"] = None
    (inv,) = evaluations([e], hooks, 100.0)
    assert inv.ended_at is None and inv.handler_type == "agent"


def test_an_agent_answers_tool_turns_become_script_steps_with_markers_of_their_own():
    from probes.catalog.parts import Verdict
    from probes.pipeline.plan import hook_answer

    v = Verdict.model_validate(
        {"ok": False, "reason": "r", "tool_turns": [{"tool": "shell"}, {"tool": "view_file", "path": "README.md"}]}
    )
    answer = hook_answer(v)
    assert answer["ok"] is False and answer["reason"] == "r"
    assert answer["tool_turns"] == [
        {"tool": "shell", "command": "echo ran > probe-hook-0.txt"},
        {"tool": "view_file", "path": "README.md"},
    ]
    assert "tool_turns" not in hook_answer(Verdict(ok=True)) and hook_answer(None) == {}


def test_a_later_turn_that_no_longer_offers_structured_output_is_still_the_agents():
    # 2.1.118: after the sub-agent's Read, its next request offers the session's tools only
    from probes.agents.base import Registration

    reg = Registration("0-pre_tool", "PreToolUse", "", 10, "Bash", handler_type="agent", prompt="p")
    hooks = Hooks([reg], {"0-pre_tool": {"event": "PreToolUse", "canonical": "pre_tool", "behavior": {}}})
    read = agent_entry(101.0, "0-pre_tool", {"tool": "Read", "arguments": {"file_path": "README.md"}})
    answer = {**agent_entry(101.2, "0-pre_tool", {"text": '{"ok": false}'}, 1), "tools": ["Bash", "Read"]}
    (inv,) = evaluations([read, answer], hooks, 100.0)
    assert (inv.handler_type, inv.duration_s, inv.output) == ("agent", 0.2, '{"ok": false}')
