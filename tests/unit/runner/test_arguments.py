"""A scripted tool call's arguments (probes/runner/arguments.py): filled from the tool's schema,
then a step's `input` as written."""

from __future__ import annotations

from probes.runner.arguments import tool_arguments

SCHEMA = {"properties": {"name": {}, "path": {}, "action": {}, "discard_changes": {}}}


def test_input_is_sent_as_written_over_the_filled_arguments():
    filled = tool_arguments({"tool": "enter_worktree"}, SCHEMA)
    assert filled == {"name": "probe-subagent", "path": "probe-file.txt"}
    given = tool_arguments({"tool": "exit_worktree", "input": {"action": "remove", "discard_changes": True}}, SCHEMA)
    assert given == {"name": "probe-subagent", "path": "probe-file.txt", "action": "remove", "discard_changes": True}


def test_a_null_input_leaves_a_filled_argument_out():
    # EnterWorktree refuses both name and path ("Provide at most one of `name` or `path`": 2.1.332)
    assert tool_arguments({"tool": "enter_worktree", "input": {"name": "probe-wt", "path": None}}, SCHEMA) == {"name": "probe-wt"}


def test_pis_edit_gets_its_replacements_as_a_list_or_as_fields():
    step = {"tool": "edit_file", "path": "README.md", "old": "a", "new": "b"}
    now = tool_arguments(step, {"properties": {"path": {}, "edits": {}}})  # 0.73.1
    assert now == {"path": "README.md", "edits": [{"oldText": "a", "newText": "b"}]}
    before = tool_arguments(step, {"properties": {"path": {}, "oldText": {}, "newText": {}}})  # 0.51.3
    assert before == {"path": "README.md", "oldText": "a", "newText": "b"}
