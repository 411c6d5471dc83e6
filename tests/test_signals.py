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
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import CLAUDE

ROOT = Path(__file__).parent.parent
GRACE_S = 20.0  # stopping.STOP_GRACE_S, and a margin for a loaded machine
INTERRUPTED = "probe: interrupted ({}); no evidence written for the unfinished probe"
# What a command says as it goes: the matrix's plain progress lines, check's and bisect's steps
PROGRESS = re.compile(r"\[\d+/\d+\] \S+@\S+ \S+: .+|probe: (?!interrupted).+")


def leftovers(pgid: int, markers: list[str]) -> list[str]:
    """Processes of process group `pgid`, or naming one of `markers` (a path only that
    command's processes use) in their command line, environment or working directory."""
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            name = stat[stat.find(b"(") + 1 : stat.rfind(b")")].decode(errors="replace")
            state, _ppid, group = stat.rsplit(b")", 1)[1].split()[:3]
            if int(group) == pgid:
                found.append(f"{entry} {name} {state.decode()} (its group)")
                continue
            blob = b""
            for part in ("cmdline", "environ"):
                with open(f"/proc/{entry}/{part}", "rb") as f:
                    blob += f.read()
            try:
                blob += os.readlink(f"/proc/{entry}/cwd").encode()
            except OSError:
                pass
            if any(m.encode() in blob for m in markers):
                found.append(f"{entry} {name} {state.decode()} (marked)")
        except (OSError, ValueError, IndexError):
            continue
    return found


def gone_within(pgid: int, markers: list[str], until: float) -> list[str]:
    """What is left of the command at `until` (monotonic), or [] as soon as nothing is."""
    while (left := leftovers(pgid, markers)) and time.monotonic() < until:
        time.sleep(0.1)
    return left


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


def interrupt(proc: subprocess.Popen[str], sig: signal.Signals, markers: list[str], group: bool = True) -> tuple[str, float]:
    """Send `sig` (to the group, as `timeout`, a CI runner and a terminal do, or to `probe`
    alone, as `kill PID` and `docker stop` do); the command exits 130 within GRACE_S leaving
    no process. Its stderr, and how long it took to exit."""
    sent = time.monotonic()
    if group:
        os.killpg(proc.pid, sig)
    else:
        os.kill(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"still running {GRACE_S:.0f}s after {sig.name}: {leftovers(proc.pid, markers)}")
    took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert gone_within(proc.pid, markers, sent + GRACE_S) == []
    assert "Traceback" not in err, err
    return err, took


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


# ---------------------------------------------------------------- the mechanism, without a CLI

POOL = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from probes.sweep import schedule
from probes import stopping

def cell(i):
    open(f"{sys.argv[1]}/cell-{i}", "w").close()
    time.sleep(60)  # a long cell: its worker must end it
    return i

if __name__ == "__main__":
    stopping.on_stop_signals()
    p = schedule.Policy(floor=2, cap=4, settle_s=0.0)  # 2 cells, 4 workers: 2 busy, 2 idle in the queue
    pool = ProcessPoolExecutor(p.cap, initializer=stopping.worker_init, initargs=(os.getpid(),))
    try:
        for got in schedule.schedule(pool, partial(stopping.in_cell, cell), [0, 1], p, schedule.CpuGauge()):
            print(got)
    except KeyboardInterrupt as e:
        stopping.stop(pool)
        print(f"interrupted {e.name}", file=sys.stderr)
        sys.exit(130)
"""


@pytest.mark.parametrize(
    "sig, group",
    [(signal.SIGTERM, True), (signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["SIGTERM-group", "SIGINT-group", "SIGTERM-parent"],
)
def test_a_pool_stops_at_once_on_a_signal(sig, group, tmp_path):
    """Busy and idle workers, the signal to the whole group or to the parent alone: the pool
    ends in well under its grace, no worker prints a traceback, none is left."""
    script = tmp_path / "pool.py"
    script.write_text(textwrap.dedent(POOL))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 30
    while len(list(tmp_path.glob("cell-*"))) < 2:
        assert time.time() < deadline and proc.poll() is None, "the cells never started"
        time.sleep(0.05)
    err, took = interrupt(proc, sig, [str(script)], group)
    assert err == f"interrupted {sig.name}\n"
    assert took < 5, took


FORK_POOL = """
import multiprocessing, time
from probes import stopping

def slow(i):
    time.sleep(0.1)
    return i

if __name__ == "__main__":
    stopping.on_stop_signals()  # as cli.main leaves a process that called it (a test, a library's user)
    for _ in range(10):
        with multiprocessing.get_context("fork").Pool(4) as pool:  # ends with terminate(): SIGTERM
            assert pool.map(slow, range(2)) == [0, 1]
"""


def test_a_library_pool_forked_after_the_handlers_still_ends(tmp_path):
    """A child forked with probe's handlers takes SIGTERM as by default: run later in Python,
    the handler missed a terminate() that came just before an idle worker blocked on its
    queue's lock, and the pool waited on that worker for good (test_cache's, after test_cli
    had called main in the same process)."""
    script = tmp_path / "fork_pool.py"
    script.write_text(FORK_POOL)
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def test_a_signal_during_a_run_directorys_removal_is_taken_after_it(tmp_path):
    """Ending halfway through removing a run directory would leave half of it (no lock, so
    the next probe waits before it removes the rest): the signal is taken once it is done."""
    from probes.pipeline import rundirs
    from probes.stopping import Interrupted, Stopper

    d = tmp_path / "probe-run-x"
    for i in range(200):
        (d / f"d{i}").mkdir(parents=True)
        (d / f"d{i}" / "f").write_text("x")
    real = rundirs.shutil.rmtree
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)}
    stopper = Stopper()
    stopper.install()

    def rmtree_signalled(path, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # arrives in the middle of the removal
        time.sleep(0.2)  # the handler has run by now, and raised nothing
        real(path, *args, **kwargs)

    try:
        rundirs.shutil.rmtree = rmtree_signalled
        with pytest.raises(Interrupted) as e:
            rundirs.remove(d)
            time.sleep(5)  # taken here, a moment after the removal
        assert e.value.name == "SIGTERM"
        assert not d.exists()
    finally:
        rundirs.shutil.rmtree = real
        signal.setitimer(signal.ITIMER_REAL, 0)
        for s, h in before.items():
            signal.signal(s, h)


# ---------------------------------------------------------------- real commands, real CLIs

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
