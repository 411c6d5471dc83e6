"""The matrix's scheduler: longest first (cost learnt from recorded evidence), one cell per
core always, more while a core is idle, never more than the cap; and a real matrix of a few
cells that ends with the committed labels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from probes.catalog.recipes import load_all
from probes.limits import MAX_JOBS
from probes.sweep import matrix, schedule
from tests.helpers import ROOT, Gauge


def test_default_policy_is_one_cell_per_core_and_more_while_idle():
    assert schedule.policy(None, 2) == schedule.Policy(floor=2, cap=2 * schedule.OVERSUBSCRIBE)
    assert schedule.policy(None, 64).cap == MAX_JOBS  # --jobs's own bound


@pytest.mark.parametrize(("jobs", "cores", "floor", "cap"), [(1, 2, 1, 1), (2, 2, 2, 2), (8, 2, 2, 8), (3, 8, 3, 3)])
def test_jobs_is_a_hard_cap(jobs, cores, floor, cap):
    assert schedule.policy(jobs, cores) == schedule.Policy(floor=floor, cap=cap)


P = schedule.Policy(floor=2, cap=4, idle_cores=0.75, settle_s=0.4)


@pytest.mark.parametrize(
    ("running", "idle", "since", "start"),
    [
        (0, None, 0.0, True),  # below the floor: always, measured or not
        (1, 0.0, 0.0, True),
        (2, None, 9.0, False),  # at the floor, no measure: the floor only
        (2, 0.5, 9.0, False),  # less than the idle CPU asked for
        (2, 0.75, 9.0, True),
        (2, 1.9, 0.1, False),  # the last start has not shown its CPU yet
        (3, 2.0, 9.0, True),
        (4, 2.0, 9.0, False),  # the cap
    ],
)
def test_admit(running, idle, since, start):
    assert schedule.admit(P, running, idle, since) is start


def fake_proc(root: Path, procs: dict[int, tuple[str, int, str]]) -> Path:
    for pid, (name, ppid, state) in procs.items():
        (root / str(pid)).mkdir(parents=True)
        ticks = "10 5 3 2"  # utime stime cutime cstime: 20 ticks
        (root / str(pid) / "stat").write_text(f"{pid} ({name}) {state} {ppid} 1 1 0 -1 4194560 1 0 0 0 {ticks} 20 0 1\n")
    (root / "self").mkdir()
    (root / "stat").write_text("cpu  1 2 3\n")
    return root


def test_usage_counts_the_processes_under_the_root_only(tmp_path):
    proc = fake_proc(
        tmp_path,
        {
            1: ("init", 0, "S"),
            10: ("probe", 1, "R"),  # the matrix itself: not counted
            11: ("worker", 10, "S"),
            12: ("python3 -S runner.py", 11, "R"),
            13: ("claude", 12, "R"),
            14: ("odd ) (name", 13, "R"),  # a name with parentheses and spaces
            15: ("hook", 13, "S"),
            20: ("someone else", 1, "R"),
        },
    )
    tick = 1 / schedule.CLK_TCK
    assert schedule.Procfs(10, proc).usage() == (3, pytest.approx(5 * 20 * tick))  # 11 to 15
    assert schedule.Procfs(15, proc).usage() == (0, 0.0)
    assert schedule.Procfs(10, tmp_path / "absent").usage() is None


def test_gauge_takes_the_larger_of_runnable_and_cpu_used_over_its_window():
    U = schedule.Usage
    reads = iter([U(0, 0.0), U(2, 0.1), U(4, 0.2), U(0, 1.8), U(0, 1.9)])
    g = schedule.CpuGauge(lambda: next(reads), ncores=2, window_s=1.0)
    g.sample(0.0)
    g.sample(0.5)
    assert g.idle_cores() is None  # too few samples to tell
    g.sample(1.0)
    assert g.idle_cores() == pytest.approx(2 - (0 + 2 + 4) / 3)  # runnable: 2 on average, 0.2 s of CPU in 1 s
    g.sample(1.8)  # the samples at 0.0 and 0.5 are now more than a window old
    g.sample(2.0)
    assert g.idle_cores() == pytest.approx(2 - (1.9 - 0.2) / 1.0)  # 1.7 cores used (threads computing), 1.33 runnable


def test_gauge_without_proc_says_nothing():
    g = schedule.CpuGauge(lambda: None, ncores=2)
    for t in range(5):
        g.sample(float(t))
    assert g.idle_cores() is None


def run_held(idle: float | None, p: schedule.Policy, n: int = 10) -> tuple[list[int], int]:
    """Schedule n cells that each wait on a gate opened after some ticks; the order they
    started in and the most that ran at once."""
    gate, lock, started, now, peak = threading.Event(), threading.Lock(), [], [0], [0]

    def cell(i: int) -> int:
        with lock:
            started.append(i)
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        gate.wait(timeout=60)
        with lock:
            now[0] -= 1
        return i

    with ThreadPoolExecutor(max_workers=p.cap) as pool:
        got = list(schedule.schedule(pool, cell, list(range(n)), p, Gauge(idle, gate, 300), tick_s=0.001))
    assert sorted(got) == list(range(n))
    return started, peak[0]


def test_waiting_cells_let_more_in_up_to_the_cap_in_order():
    started, peak = run_held(2.0, schedule.Policy(floor=2, cap=6, settle_s=0.0))
    assert peak == 6
    assert started[:6] == list(range(6))  # the longest first: the order given


def test_busy_cores_hold_the_matrix_at_the_floor():
    assert run_held(0.1, schedule.Policy(floor=2, cap=6, settle_s=0.0))[1] == 2
    assert run_held(None, schedule.Policy(floor=2, cap=6, settle_s=0.0))[1] == 2


def write_wall(results: Path, version: str, recipe: str, wall: object) -> None:
    d = results / "claude" / version
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{recipe}.json").write_text(json.dumps({"cli": {"wall_s": wall}}))


def test_longest_first_learns_the_cost_from_recorded_evidence(tmp_path):
    cells = matrix.cells("claude", ["2.1.328", "2.1.329"], "all")
    recipes = load_all()
    estimated = matrix.longest_first(cells, [tmp_path])  # nothing recorded: the estimate
    costs = [matrix.expected_cost_s(recipes[c.recipe], "claude") for c in estimated]
    assert costs == sorted(costs, reverse=True)
    write_wall(tmp_path, "2.1.100", "payload-pretool", 5000.0)  # any version teaches the cost
    write_wall(tmp_path, "2.1.101", "payload-pretool", 4000.0)
    write_wall(tmp_path, "2.1.102", "payload-pretool", 4500.0)
    write_wall(tmp_path, "2.1.100", "crash-pretool", "slow")  # not a number: passed over
    (tmp_path / "claude" / "2.1.100" / "exit2-pretool.json").write_text("{not json")
    assert matrix.recorded_wall_s([tmp_path], "claude", {"payload-pretool", "crash-pretool", "exit2-pretool"}) == {
        "payload-pretool": 4500.0
    }
    learned = matrix.longest_first(cells, [tmp_path, tmp_path / "absent"])
    assert [(c.spec, c.recipe) for c in learned[:2]] == [
        ("claude@2.1.328", "payload-pretool"),
        ("claude@2.1.329", "payload-pretool"),
    ]
    assert sorted((c.spec, c.recipe) for c in learned) == sorted((c.spec, c.recipe) for c in cells)


KILLED_WORKER = """
import os, signal, threading
from concurrent.futures import ProcessPoolExecutor
from probes.sweep import schedule
from tests.helpers import Gauge

def die_on_one(i):
    if i == 1:
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer or a person would
    return i

if __name__ == "__main__":
    p = schedule.Policy(floor=1, cap=1, settle_s=0.0)
    with ProcessPoolExecutor(max_workers=1) as pool:
        gauge = Gauge(1.0, threading.Event(), 0)
        got = schedule.schedule(pool, die_on_one, [0, 1, 2], p, gauge, tick_s=0.001, failed=lambda i, e: -i)
        print(sorted(got))
"""


def test_a_worker_killed_from_outside_fails_its_cells_not_the_matrix(tmp_path):
    """In a process of its own: a pool whose worker is SIGKILLed must not take the test run's
    own worker with it, whatever signal handlers earlier tests left there."""
    script = tmp_path / "killed_worker.py"
    script.write_text(KILLED_WORKER)
    root = ROOT
    proc = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[-2, -1, 0]"  # the dead worker's cell, and the one the broken pool could not take
