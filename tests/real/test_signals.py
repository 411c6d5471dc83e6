"""SIGTERM or SIGINT ends every command cleanly, at any moment: every process of it gone within
the grace period, one line on stderr, exit 130, no traceback, no half-written file (what
`timeout`, a cancelled CI job, `docker stop` or a terminal's Ctrl-C send). The matrix's
worker pool once deadlocked on it: workers died of the parent's handler inside the pool's
queue, holding its lock, and the rest waited on that lock for good."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import CLAUDE, ROOT, interrupt

INTERRUPTED = "probe: interrupted ({}); no evidence written for the unfinished probe"


# What a command says as it goes: the matrix's plain progress lines, check's and bisect's steps
PROGRESS = re.compile(r"\[\d+/\d+\] \S+@\S+ \S+: .+|probe: (?!interrupted).+")


def start(*args: str, tmp: Path, results: Path) -> subprocess.Popen[str]:
    """`probe ARGS --results RESULTS` in a session of its own (its own process group, as a
    shell's job), its temporary files under `tmp`."""
    tmp.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "probes.cli", *args, "--results", str(results)],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def one_line(err: str, sig: signal.Signals) -> None:
    """The one line saying why, last; before it only the command's own progress lines."""
    lines = err.splitlines()
    assert lines and lines[-1] == INTERRUPTED.format(sig.name), err
    assert [x for x in lines[:-1] if not PROGRESS.fullmatch(x)] == [], err


def whole(results: Path) -> None:
    """Nothing half-written: every JSON file loads, no temporary file is left."""
    if not results.exists():
        return
    for f in results.rglob("*"):
        assert not f.name.endswith(".tmp"), f
        if f.suffix == ".json":
            json.loads(f.read_text())


def no_run_directory_left(tmp: Path) -> None:
    assert list(tmp.iterdir()) == []


MATRIX = ("matrix", "--agent", "claude", "--versions", CLAUDE.split("@")[1], "--recipe", "all", "--jobs", "2")


@pytest.mark.real
@pytest.mark.parametrize(
    "sig, after_s, group",
    [
        pytest.param(signal.SIGTERM, 5, True, id="SIGTERM-group-5s"),  # installing, or the first cells starting
        pytest.param(signal.SIGTERM, 20, True, id="SIGTERM-group-20s"),  # cells running, some done
        pytest.param(signal.SIGTERM, 45, True, id="SIGTERM-group-45s"),  # the issue's: cells done, running, queued
        pytest.param(signal.SIGINT, 10, True, id="SIGINT-group-10s"),  # a terminal's Ctrl-C
        pytest.param(signal.SIGTERM, 10, False, id="SIGTERM-parent-10s"),  # `kill PID`, `docker stop`: probe alone
    ],
)
def test_matrix_ends_cleanly_on_a_signal(sig, after_s, group, real_tools, tmp_path):
    tmp, results = tmp_path / "tmp", tmp_path / "results"
    proc = start(*MATRIX, tmp=tmp, results=results)
    time.sleep(after_s)
    assert proc.poll() is None, proc.communicate()[1]
    err, _ = interrupt(proc, sig, [str(tmp), str(results)], group)
    one_line(err, sig)
    whole(results)
    no_run_directory_left(tmp)


def wait_for(paths: str, root: Path, proc: subprocess.Popen[str], timeout_s: float = 120) -> None:
    deadline = time.time() + timeout_s
    while not list(root.glob(paths)):
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, f"nothing matched {paths} in {timeout_s:.0f}s"
        time.sleep(0.05)


@pytest.mark.real
def test_run_ends_cleanly_on_sigterm_mid_session(real_tools, tmp_path):
    """SIGTERM while the session's hook hangs: the runner ends the run, nothing is written."""
    tmp, results = tmp_path / "tmp", tmp_path / "results"
    proc = start("run", CLAUDE, "hang-pretool", tmp=tmp, results=results)
    wait_for("probe-run-*/records/*.json", tmp, proc)  # the hook has started: mid-session
    err, _ = interrupt(proc, signal.SIGTERM, [str(tmp), str(results)])
    assert err == INTERRUPTED.format("SIGTERM") + "\n"
    assert not results.exists()
    no_run_directory_left(tmp)


@pytest.mark.real
def test_run_with_progress_ends_cleanly_on_sigterm_mid_session(real_tools, tmp_path):
    """--progress's session step is stopped with the probe: its end line, then the one line why."""
    tmp, results = tmp_path / "tmp", tmp_path / "results"
    proc = start("run", CLAUDE, "hang-pretool", "--progress", tmp=tmp, results=results)
    wait_for("probe-run-*/records/*.json", tmp, proc)
    err, _ = interrupt(proc, signal.SIGTERM, [str(tmp), str(results)])
    one_line(err, signal.SIGTERM)
    assert re.search(r"probe: session: hang-pretool on claude \S+ \(budget \d+s\): stopped after \d+\.\ds\n", err), err
    assert not results.exists()
    no_run_directory_left(tmp)


@pytest.mark.real
def test_check_ends_cleanly_on_sigterm_mid_session(real_tools, tmp_path):
    """`probe check` with a user's hook that is still running (a slow hook): the same."""
    hooks = tmp_path / "hooks"
    (hooks / ".claude" / "hooks").mkdir(parents=True)
    slow = hooks / ".claude" / "hooks" / "slow.sh"
    slow.write_text('#!/bin/sh\ntouch "$CLAUDE_PROJECT_DIR/slow-hook-started"\nsleep 60\n')
    slow.chmod(0o755)
    command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/slow.sh'
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command, "timeout": 90}]}]}}
    (hooks / ".claude" / "settings.json").write_text(json.dumps(settings))
    tmp, results = tmp_path / "tmp", tmp_path / "results"
    proc = start("check", CLAUDE, "--hooks", str(hooks), tmp=tmp, results=results)
    wait_for("probe-run-*/workspace/slow-hook-started", tmp, proc)  # the hooked session, in its hook
    err, _ = interrupt(proc, signal.SIGTERM, [str(tmp), str(results)])
    one_line(err, signal.SIGTERM)
    assert not results.exists() or not list(results.rglob("*.json"))  # a check writes when both sessions ran
    no_run_directory_left(tmp)
