"""Setups on the real CLIs: the shell bound at /bin/sh is the one hooks start under (read back
from the run), a permission setup changes what an ask does, a plugin's hooks get its root."""

from __future__ import annotations

import json

import pytest

from tests.helpers import CLAUDE, probe_cmd


def run_setup(tmp_path, spec: str, recipe: str, *pairs: str) -> dict:
    setup = [a for p in pairs for a in ("--setup", p)]
    proc = probe_cmd("run", spec, recipe, *setup, "--json", results=tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    stem = f"{recipe}@{ev['setup_key']}" if ev["setup_key"] else recipe
    assert (tmp_path / "results" / spec.split("@")[0] / ev["executed_version"] / f"{stem}.json").is_file()
    return ev


@pytest.mark.parametrize(("sh", "parent"), [("dash", "dash"), ("bash", "claude.exe"), ("busybox", "claude.exe")])
def test_the_shell_a_setup_names_is_the_one_its_hooks_start_under(real_tools, tmp_path, sh, parent):
    """Claude Code starts a hook with /bin/sh -c: dash stays the hook's parent, bash and
    busybox exec the command in place, so the hook's parent is the CLI itself."""
    ev = run_setup(tmp_path, CLAUDE, "hang-pretool", f"sh={sh}")
    assert ev["setup"]["sh"] == sh and ev["setup_key"] == ("" if sh == "dash" else f"sh={sh}")
    assert ev["setup_read"]["sh"] == sh  # read inside the run, by inode
    assert ev["setup_read"]["hook_parents"] == {parent: 1}
    assert [i["parent"]["is"] for i in ev["invocations"]] == [parent]
    assert ev["outcome"] == "fail-open"


def test_without_pre_approval_claude_denies_what_a_hook_asks_about(real_tools, tmp_path):
    asked = run_setup(tmp_path, CLAUDE, "ask-pretool", "permissions=none")
    allowed = run_setup(tmp_path, CLAUDE, "deny-json-pretool-control", "permissions=none")
    assert asked["setup_key"] == allowed["setup_key"] == "permissions=none"
    assert "--allowedTools" not in asked["cli"]["argv"]
    assert (asked["outcome"], allowed["outcome"]) == ("denied", "allowed")


def test_a_plugin_hook_gets_its_plugin_root(real_tools, tmp_path):
    ev = run_setup(tmp_path, CLAUDE, "env-pretool", "config=plugin")
    assert "--plugin-dir" in ev["cli"]["argv"]
    (inv, *_) = ev["invocations"]
    assert "CLAUDE_PLUGIN_ROOT" in inv["env"]
