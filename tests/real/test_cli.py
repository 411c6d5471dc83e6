"""The command line as a user meets it: exit codes, one-line errors, nothing written."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from probes.cli import main
from tests.helpers import ROOT, piped_env, probe_cmd


@pytest.mark.real
def test_unwritable_results_via_cli(real_tools, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["run", "claude@2.1.328", "hang-pretool", "--results", str(tmp_path / "file" / "r")]) == 2
    assert "is not writable: choose another with --results" in capsys.readouterr().err


@pytest.mark.real
def test_readme_first_command_leaves_the_clone_clean(real_tools, tmp_path):
    """The README's first `probe run`, in a fresh copy of HEAD with the default --results: the
    committed record differs only in timings, so it and its blobs stay and git shows nothing."""
    spec, recipe = re.search(r"probe run (\S+) (\S+)", (ROOT / "README.md").read_text()).groups()
    assert (spec, recipe) == ("copilot@1.0.92", "hang-pretool")
    clone = tmp_path / "clone"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(clone), "HEAD"], check=True, capture_output=True)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "probes.cli", "run", spec, recipe],
            cwd=clone,
            capture_output=True,
            text=True,
            timeout=300,
            env=piped_env({"PYTHONPATH": str(clone)}),  # the copy's code, not this tree's
        )
        assert proc.returncode == 0, proc.stderr
        evidence = next(ln for ln in proc.stdout.splitlines() if ln.startswith("evidence"))
        assert "results/copilot/1.0.92/hang-pretool.json (kept: only timings differ; --update rewrites it)" in evidence
        status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
        assert status.stdout == ""
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(clone)], capture_output=True)


@pytest.mark.real
def test_a_v_spec_runs_and_is_stored_without_the_v(real_tools, tmp_path):
    proc = probe_cmd("run", "copilot@v1.0.92", "hang-pretool", "--json", results=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["requested_version"] == "1.0.92"
    assert (tmp_path / "copilot" / "1.0.92" / "hang-pretool.json").is_file()
