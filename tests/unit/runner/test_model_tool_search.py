"""The scripted model with a CLI that defers its tools (Claude Code 2.1.69 offers only
ToolSearch): the step's tool is loaded with a search first, which is no scripted turn."""

from __future__ import annotations

from probes.runner.model import plan_reply
from probes.runner.texts import played_turn

SEARCH = {"name": "ToolSearch", "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}
BASH = {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
SCRIPT = [{"tool": "shell", "command": "echo ran"}, {"text": "done"}]
NAMES = {"shell": ["Bash"]}
PROMPT = {"role": "user", "content": "Run the probe step."}


def test_a_deferred_tool_is_loaded_first_then_called_as_the_scripted_turn():
    first = plan_reply({"messages": [PROMPT], "tools": [SEARCH]}, SCRIPT, tool_names=NAMES)
    assert first == {"tool": "ToolSearch", "kind": "tool_search", "turn": 0, "aux": True, "arguments": {"query": "select:Bash"}}
    searched = {"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": "ToolSearch", "input": {}}]}
    loaded = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s1", "content": "Bash"}]}
    assert not played_turn(searched)
    second = plan_reply({"messages": [PROMPT, searched, loaded], "tools": [SEARCH, BASH]}, SCRIPT, tool_names=NAMES)
    assert (second["tool"], second["turn"], second["arguments"]) == ("Bash", 0, {"command": "echo ran"})


def test_no_search_offered_is_still_a_missing_tool():
    reply = plan_reply({"messages": [PROMPT], "tools": [BASH | {"name": "Other"}]}, SCRIPT, tool_names=NAMES)
    assert reply["missing_tool"] == "shell"
    called = {"role": "assistant", "tool_calls": [{"function": {"name": "Bash"}}, {"function": {"name": "ToolSearch"}}]}
    assert played_turn(called)


def test_a_search_is_made_once_a_turn_so_a_denied_one_ends_in_a_missing_tool():
    searched = {"role": "assistant", "content": [{"type": "tool_use", "id": "s1", "name": "ToolSearch", "input": {}}]}
    denied = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "s1", "content": "denied", "is_error": True}]}
    reply = plan_reply({"messages": [PROMPT, searched, denied], "tools": [SEARCH]}, SCRIPT, tool_names=NAMES)
    assert reply["missing_tool"] == "shell"
