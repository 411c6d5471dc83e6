"""SIGTERM or SIGINT ends every command cleanly, at any moment: every process of it gone within
the grace period, one line on stderr, exit 130, no traceback, no half-written file (what
`timeout`, a cancelled CI job, `docker stop` or a terminal's Ctrl-C send). The matrix's
worker pool once deadlocked on it: workers died of the parent's handler inside the pool's
queue, holding its lock, and the rest waited on that lock for good."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.helpers import ROOT, interrupt

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
