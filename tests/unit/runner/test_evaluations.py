"""Prompt hooks: the scripted model knows a hook's evaluation by Claude Code's system prompt
and the PROBE-HOOK-<key> its text starts with, and answers as the recipe scripts."""

from __future__ import annotations

import json
import threading
import time

import pytest

from probes.runner import evaluations
from probes.runner.model import ScriptedModel, plan_reply
from tests.helpers import SCRIPT, request

# as Claude Code 2.1.328 sent them (trimmed)
PRETOOL_SYSTEM = (
    "You are a Claude agent, built on Anthropic's Claude Agent SDK.\nYou are evaluating a hook in Claude Code. "
    "The user's text says what to check. Decide whether the action may go ahead."
)
STOP_SYSTEM = "You are evaluating a stop-condition hook in Claude Code. Read the conversation transcript carefully"
EVENT = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "echo ran"}}


def evaluation(key="0-pre_tool", system=PRETOOL_SYSTEM):
    text = f"PROBE-HOOK-{key} Is this command safe to run? {json.dumps(EVENT)}"
    return {
        "model": "claude-haiku",
        "max_tokens": 100,
        "system": [{"type": "text", "text": system}],
        "messages": [{"role": "user", "content": text}],
    }


def test_an_evaluation_is_placed_by_its_key_and_answered_as_scripted():
    answers = {"0-pre_tool": {"ok": False, "reason": "PROBE-VERDICT-DENY no"}}
    reply = plan_reply(evaluation(), SCRIPT, hook_answers=answers)
    assert reply["hook"] == "0-pre_tool" and reply["aux"] is True
    assert json.loads(reply["text"]) == {"ok": False, "reason": "PROBE-VERDICT-DENY no"}


@pytest.mark.parametrize(
    "system",
    [
        "You are evaluating a hook in Claude Code.",  # 2.1.14, 2.1.328
        "You are evaluating a hook condition in Claude Code. Judge whether",  # 2.1.92 to 2.1.203
        "You are evaluating a stop-condition hook in Claude Code.",
        "You are evaluating a PreToolUse hook in Claude Code.",  # an agent hook
        "You are verifying a stop condition in Claude Code.",
    ],
)
def test_every_known_system_prompt_of_a_hook_evaluation_is_recognised(system):
    assert evaluations.hook_key(system, ["PROBE-HOOK-0-pre_tool x"]) == "0-pre_tool"


def test_a_stop_evaluation_with_its_transcript_is_placed_by_the_last_key():
    body = evaluation("1-stop", STOP_SYSTEM)
    body["messages"].insert(0, {"role": "user", "content": "earlier: PROBE-HOOK-0-pre_tool quoted"})
    assert plan_reply(body, SCRIPT, hook_answers={"1-stop": {"ok": True}})["hook"] == "1-stop"


def test_an_evaluation_naming_no_scripted_hook_is_recorded_not_guessed():
    body = evaluation()
    body["messages"][0]["content"] = "Is this safe? {}"
    reply = plan_reply(body, SCRIPT, hook_answers={"0-pre_tool": {"ok": True}})
    assert reply["hook"] == evaluations.UNPLACED and reply["text"] == evaluations.NOT_JSON


def test_the_main_conversation_is_never_an_evaluation():
    body = evaluation(system="You are a Claude agent, built on Anthropic's Claude Agent SDK.")
    assert "hook" not in plan_reply(body, SCRIPT, hook_answers={"0-pre_tool": {"ok": True}})


def test_malformed_hang_and_seconds():
    assert plan_reply(evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"malformed": True}})["text"] == evaluations.NOT_JSON
    assert plan_reply(evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"hang": True}})["hold_s"] is None
    assert plan_reply(evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"seconds": 2.5}})["hold_s"] == 2.5


def test_the_payload_is_the_events_json_after_the_key():
    text = evaluation()["messages"][0]["content"]
    assert evaluations.payload(text, "0-pre_tool") == EVENT
    assert evaluations.payload("PROBE-HOOK-0-pre_tool no json {", "0-pre_tool") is None


def test_a_held_answer_is_let_go_when_the_run_ends(tmp_path):
    model = ScriptedModel(SCRIPT, tmp_path / "model.jsonl", hook_answers={"0-pre_tool": {"hang": True}}).__enter__()
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            request(model.port, "/v1/messages", evaluation())
        except Exception as e:  # the connection closes unanswered
            errors.append(e)

    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(0.3)
    assert asker.is_alive()  # held
    model.__exit__(None, None, None)
    asker.join(5)
    assert not asker.is_alive() and errors
    logged = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()]
    assert logged[0]["reply"]["hook"] == "0-pre_tool"


# ---------------------------------------------------------------- agent hooks
# as Claude Code 2.1.328 sent them (trimmed): the sub-agent's system prompt, its tools
AGENT_SYSTEM = (
    "You are a Claude agent, built on Anthropic's Claude Agent SDK.\nYou are evaluating a PreToolUse hook in Claude Code. "
    "Your task is to evaluate the condition described in the user message.\n"
    "When done, return your result using the StructuredOutput tool, always with a reason."
)
AGENT_STOP_SYSTEM = (
    "You are verifying a stop condition in Claude Code. Your task is to verify that the agent completed the given plan."
)
AGENT_TOOLS = [{"name": n, "input_schema": {"type": "object"}} for n in ("Bash", "Read", "StructuredOutput")]


def agent_evaluation(key="0-pre_tool", system=AGENT_SYSTEM, later=()):
    body = evaluation(key, system)
    body["tools"] = AGENT_TOOLS
    body["messages"] += list(later)
    return body


def test_an_agent_evaluation_is_answered_by_a_call_of_structured_output():
    answers = {"0-pre_tool": {"ok": False, "reason": "PROBE-VERDICT-DENY no"}}
    reply = plan_reply(agent_evaluation(), SCRIPT, hook_answers=answers)
    assert reply["tool"] == evaluations.AGENT_TOOL == "StructuredOutput"
    assert reply["arguments"] == {"ok": False, "reason": "PROBE-VERDICT-DENY no"}
    assert (reply["hook"], reply["aux"], reply["turn"]) == ("0-pre_tool", True, 0)


def test_an_agent_stop_evaluation_is_placed_and_answered_too():
    reply = plan_reply(agent_evaluation("1-stop", AGENT_STOP_SYSTEM), SCRIPT, hook_answers={"1-stop": {"ok": True}})
    assert (reply["hook"], reply["tool"], reply["arguments"]["ok"]) == ("1-stop", "StructuredOutput", True)


def test_a_later_turn_of_the_sub_agent_counts_its_turns():
    # 2.1.328, after a text answer: "[structured-output-enforce] You MUST call the StructuredOutput tool"
    later = [{"role": "assistant", "content": "text"}, {"role": "user", "content": "[structured-output-enforce] call it"}]
    reply = plan_reply(agent_evaluation(later=later), SCRIPT, hook_answers={"0-pre_tool": {"ok": True}})
    assert (reply["tool"], reply["turn"]) == ("StructuredOutput", 1)


def test_a_malformed_or_unscripted_agent_evaluation_gets_text_never_the_tool():
    reply = plan_reply(agent_evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"malformed": True}})
    assert "tool" not in reply and reply["text"] == evaluations.NOT_JSON and reply["turn"] == 0
    assert "tool" not in plan_reply(agent_evaluation(), SCRIPT, hook_answers={})


def test_an_agent_evaluation_hangs_or_waits_as_scripted():
    assert plan_reply(agent_evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"hang": True}})["hold_s"] is None
    assert plan_reply(agent_evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"seconds": 1.5}})["hold_s"] == 1.5


def test_a_prompt_evaluation_gets_no_turn():
    assert "turn" not in plan_reply(evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"ok": True}})


def test_the_verdict_call_takes_the_anthropic_shape():
    from probes.runner import dialects

    reply = plan_reply(agent_evaluation(), SCRIPT, hook_answers={"0-pre_tool": {"ok": True, "reason": "r"}})
    block = dialects.anthropic_message(reply, "m")["content"][0]
    assert (block["type"], block["name"], block["input"]) == ("tool_use", "StructuredOutput", {"ok": True, "reason": "r"})


def test_an_agent_evaluation_plays_its_tool_turns_before_the_verdict():
    answers = {"0-pre_tool": {"ok": False, "reason": "r", "tool_turns": [{"tool": "view_file", "path": "README.md"}]}}
    names = {"view_file": ["Read"]}
    first = plan_reply(agent_evaluation(), SCRIPT, tool_names=names, hook_answers=answers)
    assert (first["tool"], first["hook"], first["aux"]) == ("Read", "0-pre_tool", True)
    later = [{"role": "assistant", "content": [{"type": "tool_use", "name": "Read"}]}, {"role": "user", "content": "file"}]
    second = plan_reply(agent_evaluation(later=later), SCRIPT, tool_names=names, hook_answers=answers)
    assert (second["tool"], second["arguments"], second["turn"]) == ("StructuredOutput", {"ok": False, "reason": "r"}, 1)
    # a prompt hook (no StructuredOutput offered) never plays them
    assert "tool" not in plan_reply(evaluation(), SCRIPT, tool_names=names, hook_answers=answers)


def test_a_later_agent_turn_that_no_longer_offers_structured_output_gets_no_verdict():
    # 2.1.118: after the sub-agent's Read, its next request offers the session's tools only
    body = agent_evaluation(later=[{"role": "assistant", "content": "read"}, {"role": "user", "content": "file"}])
    body["tools"] = [t for t in AGENT_TOOLS if t["name"] != "StructuredOutput"]
    reply = plan_reply(body, SCRIPT, hook_answers={"0-pre_tool": {"ok": False, "reason": "r"}})
    assert (reply["text"], reply["hook"], reply["turn"]) == (evaluations.NOT_OFFERED, "0-pre_tool", 1)
