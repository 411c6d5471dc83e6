"""The scripted model with Qwen Code's chat completions: its releases before 0.15 open the
conversation with an acknowledgement the CLI writes itself, which is not a turn played."""

from __future__ import annotations

from probes.runner.model import plan_reply
from probes.runner.texts import played_turn

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_shell_command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]
SCRIPT = [{"tool": "shell", "command": "echo ran"}, {"text": "done"}]
OPENING = [
    {"role": "system", "content": "You are Qwen Code"},
    {"role": "user", "content": "This is the Qwen Code. We are setting up the context for our chat."},
    {"role": "assistant", "content": "Got it. Thanks for the context!"},
    {"role": "user", "content": "Run the probe step."},
]
NAMES = {"shell": ["run_shell_command"]}


def test_the_clis_own_acknowledgement_is_not_a_turn():
    reply = plan_reply({"messages": OPENING, "tools": TOOLS}, SCRIPT, tool_names=NAMES)
    assert reply["tool"] == "run_shell_command" and reply["turn"] == 0


def test_a_tool_call_and_a_text_the_model_played_are_turns():
    call = {"role": "assistant", "content": "Got it. Thanks for the context!", "tool_calls": [{"id": "1"}]}
    assert played_turn(call) and played_turn({"role": "assistant", "content": "done"})
    assert not played_turn({"role": "user", "content": "x"})
    after = [*OPENING, call, {"role": "tool", "tool_call_id": "1", "content": "ran"}]
    assert plan_reply({"messages": after, "tools": TOOLS}, SCRIPT, tool_names=NAMES) == {"text": "done", "turn": 1}
