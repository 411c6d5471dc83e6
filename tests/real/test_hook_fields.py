"""Command-hook fields on the real Claude Code: `async` (the tool does not wait for the hook,
which the CLI kills when the -p session ends) and `onFailure: block` (a crashing pre-tool hook
stops the tool, where without it the tool runs)."""

from __future__ import annotations

import json

from tests.helpers import CLAUDE, probe_cmd


def run(tmp_path, recipe: str) -> dict:
    proc = probe_cmd("run", CLAUDE, recipe, "--json", results=tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_an_async_hook_is_not_waited_for_and_is_killed_at_the_end(real_tools, tmp_path):
    ev, ctl = run(tmp_path, "async-pretool-slow"), run(tmp_path, "async-pretool-slow-control")
    assert (ev["outcome"], ctl["outcome"]) == ("background-killed", "waited")
    assert ev["observations"]["gate_delay_s"] < 4 <= 8 <= ctl["observations"]["gate_delay_s"]
    assert ev["observations"]["hook_killed_by"] == "cli" and not ev["observations"]["hook_finished"]


def test_on_failure_block_turns_a_crash_from_fail_open_to_fail_closed(real_tools, tmp_path):
    ev, crash = run(tmp_path, "onfailure-block-pretool"), run(tmp_path, "crash-pretool")
    assert (ev["outcome"], crash["outcome"]) == ("fail-closed", "fail-open")
    assert ev["observations"]["hook_exit"] == "SIGKILL" and not ev["observations"]["tool_ran"]
