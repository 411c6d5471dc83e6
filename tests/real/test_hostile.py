"""What a session leaves behind is hostile input: the real CLIs (Claude Code and Copilot CLI)
with hooks and scripted steps that leave links to host files, FIFOs, /dev/zero, junk in the
records directory and a disk-filling file; `probe` must read none of it through, hang on
none of it, stay bounded in memory, still write its record, and leave nothing behind."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import CLAUDE, COPILOT, ROOT

pytestmark = pytest.mark.real

CANARY = "probe-hostile-canary-7f3a9c"
SPECS = [CLAUDE, COPILOT]
BOUND_S = 90  # every probe here ends in seconds; a hang is a failure, not a wait
RSS_MAX_KB = 1_500_000  # probe and the CLI it ran (node) together stay well under this


@pytest.fixture(autouse=True)
def runs(tmp_path, monkeypatch) -> Path:
    """This test's own temporary directory for probe's run directories (TMPDIR)."""
    d = tmp_path / "runs"
    d.mkdir()
    monkeypatch.setenv("TMPDIR", str(d))
    return d


def probe(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    """`probe ARGS` as a user runs it, bounded in time; with the wall time it took."""
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "probes.cli", *args],
        capture_output=True,
        text=True,
        timeout=BOUND_S,
        env={**os.environ, **(env or {})},
    )
    return proc, time.monotonic() - t0


def everything_written(results: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in results.rglob("*") if p.is_file())


def no_run_left(runs: Path) -> None:
    """No run directory and no mount of one is left."""
    mounts = [line for line in Path("/proc/self/mountinfo").read_text().splitlines() if f" {runs}/" in line]
    assert not mounts, mounts
    assert not list(runs.iterdir())


def hooks_folder(tmp_path: Path, agent: str, script: str) -> Path:
    """A user's hook folder: one pre-tool hook for `agent` running `script`."""
    d = tmp_path / "hooks"
    hooks = d / ".hooks"
    hooks.mkdir(parents=True)
    (hooks / "hostile.sh").write_text("#!/bin/sh\ncat >/dev/null\n" + script + "\nexit 0\n")
    (hooks / "hostile.sh").chmod(0o755)
    if agent == "claude":
        cmd = '"$CLAUDE_PROJECT_DIR"/.hooks/hostile.sh'
        config = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": cmd, "timeout": 10}]}]}}
        (d / ".claude").mkdir()
        (d / ".claude" / "settings.json").write_text(json.dumps(config))
    else:
        config = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": ".hooks/hostile.sh", "timeoutSec": 10}]}}
        (d / ".github" / "hooks").mkdir(parents=True)
        (d / ".github" / "hooks" / "hostile.json").write_text(json.dumps(config))
    return d


def check(spec: str, folder: Path, results: Path, env: dict[str, str] | None = None) -> tuple[dict, float]:
    proc, took = probe("check", spec, "--hooks", str(folder), "--scenario", "shell", "--json", "--results", str(results), env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout), took


def hooked_evidence(report: dict) -> dict:
    from probes.evidence.model import load_evidence

    return load_evidence(Path(report["evidence"]))


@pytest.mark.parametrize("spec", SPECS)
def test_links_to_host_files_are_described_never_read(spec, real_tools, tmp_path, runs):
    """A hook links /etc/shadow, a root-only key and /proc/self/environ into the workspace
    (and a link as a directory on the way): the evidence names the links, holds none of
    their content, and the caller's innocently named value never appears."""
    key = tmp_path / "id_probe"
    key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{CANARY}-key\n")
    key.chmod(0o600)
    script = (
        f"ln -s /etc/shadow leak-shadow; ln -s {key} leak-key; ln -s /proc/self/environ leak-environ; "
        f"ln -s /etc leak-dir; ln -s {key} .git/leak-in-git"
    )
    results = tmp_path / "results"
    report, took = check(spec, hooks_folder(tmp_path, spec.split("@")[0], script), results, {"INNOCENT_SETTING": CANARY})
    ev = hooked_evidence(report)
    changes = ev["observations"]["workspace_changes"]
    assert changes["leak-shadow"] == "(a symlink to '/etc/shadow', not followed)", changes
    assert changes["leak-environ"] == "(a symlink to '/proc/self/environ', not followed)"
    assert "not followed" in changes["leak-key"] and "not followed" in changes["leak-dir"]
    written = everything_written(results)
    shadow = Path("/etc/shadow").read_text().splitlines()[0]
    assert CANARY not in written and shadow not in written and "root:" not in written
    no_run_left(runs)


@pytest.mark.parametrize("spec", SPECS)
def test_fifos_and_dev_zero_left_by_a_hook_hang_nothing(spec, real_tools, tmp_path, runs):
    """A hook leaves a FIFO and a link to /dev/zero in the workspace, and a FIFO named as a
    hook record in the records directory: the check ends in seconds, bounded in memory, with
    its record; the FIFO is said, the record said unreadable."""
    script = "mkfifo probe-pipe; ln -s /dev/zero probe-zero; mkfifo ../records/1-1.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    report, took = check(spec, hooks_folder(tmp_path, spec.split("@")[0], script), tmp_path / "results")
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < max(before, RSS_MAX_KB)
    ev = hooked_evidence(report)
    changes = ev["observations"]["workspace_changes"]
    assert changes["probe-pipe"] == "(a fifo, not opened)"
    assert changes["probe-zero"] == "(a symlink to '/dev/zero', not followed)"
    assert ev["error"].startswith("records unreadable: records/1-1.json: a fifo"), ev["error"]
    assert report["hooks"][0]["fired"] >= 1  # its own record was still read
    no_run_left(runs)


def hostile_recipes(tmp_path: Path, name: str, turns: list[dict], **extra: object) -> dict[str, str]:
    """The shipped recipes plus one (and its control) whose scripted steps do `turns`."""
    d = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", d)
    body = {"question": "hostile", "agents": ["copilot", "claude"], "classifier": "fired", "turns": turns, **extra}
    hook = [{"event": "pre_tool"}]
    (d / f"{name}.yaml").write_text(json.dumps({"name": name, "control": f"{name}-control", "hooks": hook, **body}))
    control = {"name": f"{name}-control", "control_of": name, "hooks": [{"event": "session_end"}], **body}
    (d / f"{name}-control.yaml").write_text(json.dumps(control))
    return {"PROBE_RECIPES": str(d)}


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("swap", ["mkfifo README.md", "d=/dev && ln -s $d/zero README.md"])
def test_an_edited_file_swapped_for_a_fifo_or_dev_zero(spec, swap, real_tools, tmp_path, runs):
    """The recipe's session edits README.md, then replaces it with a FIFO or a link to
    /dev/zero: `probe run` reads neither, ends in seconds, and writes its record."""
    turns = [{"tool": "edit_file"}, {"tool": "shell", "command": f"rm README.md && {swap}"}, {"text": "done"}]
    env = hostile_recipes(tmp_path, "hostile-swap", turns)
    proc, took = probe("run", spec, "hostile-swap", "--json", "--results", str(tmp_path / "results"), env=env)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    assert ev["model_request_count"] >= 3  # both steps were played
    assert "denied" not in ev["model_requests"][-1]["messages"][-1]["text"]  # and the swap was made
    assert not [s for s in ev["side_effects"] if s["kind"] == "edit_file"]  # the edit is not read through the swap
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < RSS_MAX_KB
    no_run_left(runs)


@pytest.mark.parametrize("spec", SPECS)
def test_a_session_filling_the_disk_is_ended_at_its_cap(spec, real_tools, tmp_path, runs):
    """A scripted step writes 1.5 GiB: the workspace is a capped tmpfs, so the host's disk
    does not fill (the step's file is in memory, gone with the run); the runner ends the
    session at the cap, outcome `disk-full`, said in the record's error."""
    if os.geteuid() != 0:
        pytest.skip("the caps are tmpfs mounts: probe must be root (CI is)")
    turns = [{"tool": "shell", "command": "dd if=/dev/zero of=big bs=1M count=1500; sleep 30"}, {"text": "done"}]
    env = hostile_recipes(tmp_path, "hostile-disk", turns, disk_mb=64)
    proc, took = probe("run", spec, "hostile-disk", "--json", "--results", str(tmp_path / "results"), env=env)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    assert ev["outcome"] == "disk-full"
    assert ev["error"] == "disk full: the session filled workspace, capped at 64 MiB", ev.get("error")
    assert ev["isolation"]["disk"] == "tmpfs, 64 MiB each: workspace, home, tmp, records"
    assert took < 25  # ended at the cap, not after the step's 30 s sleep
    no_run_left(runs)
