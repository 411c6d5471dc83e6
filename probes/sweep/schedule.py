"""When the matrix starts its next cell. Most cells wait (on a hook's timeout, a hang, an
interactive pause) with the cores idle, so running only one cell per core leaves the machine
idle for most of a catalog. The scheduler keeps `floor` cells running, and starts more, up to
`cap`, only while the cells' own processes leave a core free. What they ask for is measured
in /proc, not guessed: how many of them are runnable (state R: computing or waiting for a
core, so other load on the machine does not hide it) and how much CPU time they use (every
thread counts). A cell that computes holds further starts back; cells that wait let more in.
Timing-sensitive recipes therefore see about the contention of one cell per core (the old
default), however many cells wait beside them. How its workers end on a signal: stopping.py."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypeVar

from probes.limits import MAX_JOBS
from probes.stopping import held

PROC = Path("/proc")
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MAX_TREE = 4096  # processes walked per sample: a fork bomb in a hook must not stall the matrix
OVERSUBSCRIBE = 4  # cells per core at most, by default: a cell's processes and memory bound it
TICK_S = 0.1  # how often the processes are sampled while every cell runs on
WINDOW_S = 0.5  # the samples a start is judged by (a runnable process shows in its share)
MIN_SAMPLES = 3
IDLE_CORES = 0.75  # free CPU (in cores) that lets one more cell in above the floor
SETTLE_S = 0.5  # between starts above the floor: a new cell's start-up burst shows first
WAIT_S = 0.5  # the longest wait for a cell to end with none left to start


@dataclass(frozen=True)
class Policy:
    floor: int  # cells always running while any are left (as many as cores: the old default)
    cap: int  # cells never exceeded
    idle_cores: float = IDLE_CORES
    settle_s: float = SETTLE_S


def cores() -> int:
    return os.cpu_count() or 1


def policy(jobs: int | None, ncores: int) -> Policy:
    """`--jobs N` is a hard cap (with at most one cell per core started blind); without it,
    one cell per core always and up to OVERSUBSCRIBE per core while a core is idle."""
    if jobs is not None:
        return Policy(floor=min(jobs, ncores), cap=jobs)
    return Policy(floor=min(ncores, MAX_JOBS), cap=min(OVERSUBSCRIBE * ncores, MAX_JOBS))


def admit(p: Policy, running: int, idle_cores: float | None, since_start_s: float) -> bool:
    """Start one more cell now? `idle_cores` is None when the CPU cannot be measured: then the
    floor only."""
    if running >= p.cap:
        return False
    if running < p.floor:
        return True
    return idle_cores is not None and idle_cores >= p.idle_cores and since_start_s >= p.settle_s


class Usage(NamedTuple):
    runnable: int  # processes in state R now: computing or waiting for a core
    cpu_s: float  # CPU time so far of the processes alive now, and of the children they reaped


class Procfs:
    """What the processes under one process ask of the CPU, from one read of each process's
    stat in /proc (its parent, its state, its CPU times)."""

    def __init__(self, root: int | None = None, proc: Path = PROC) -> None:
        self.root, self.proc = os.getpid() if root is None else root, proc

    def table(self) -> dict[int, tuple[int, str, int]]:
        """pid -> (parent pid, state, clock ticks of CPU with its reaped children) of every
        process readable now."""
        out: dict[int, tuple[int, str, int]] = {}
        for name in os.listdir(self.proc):
            if not name.isdigit():
                continue
            try:
                st = (self.proc / name / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            f = st[st.rfind(")") + 2 :].split()  # the name may hold spaces and parentheses
            if len(f) >= 15 and all(x.lstrip("-").isdigit() for x in [f[1], *f[11:15]]):
                out[int(name)] = (int(f[1]), f[0], sum(int(x) for x in f[11:15]))  # utime stime cutime cstime
        return out

    def usage(self) -> Usage | None:
        """The runnable processes and CPU time under the root (itself left out); None
        without /proc."""
        try:
            table = self.table()
        except OSError:
            return None
        kids: dict[int, list[int]] = {}
        for pid, (ppid, _, _) in table.items():
            kids.setdefault(ppid, []).append(pid)
        runnable, ticks, todo, seen = 0, 0, list(kids.get(self.root, ())), 0
        while todo and seen < MAX_TREE:
            pid, seen = todo.pop(), seen + 1
            runnable += table[pid][1] == "R"
            ticks += table[pid][2]
            todo += kids.get(pid, ())
        return Usage(runnable, ticks / CLK_TCK)


class CpuGauge:
    """The cores the matrix's processes leave free over the last WINDOW_S: the cores less
    what they ask for, the larger of the mean number runnable (a process waiting for a core
    counts, so other load does not hide demand) and the CPU time they used per second (a
    process computing on several threads counts for each)."""

    def __init__(
        self, read: Callable[[], Usage | None] | None = None, ncores: int | None = None, window_s: float = WINDOW_S
    ) -> None:
        self.read = Procfs().usage if read is None else read
        self.ncores, self.window_s = ncores or cores(), window_s
        self.samples: deque[tuple[float, Usage]] = deque()

    def sample(self, now: float | None = None) -> None:
        got = self.read()
        if got is not None:
            now = time.monotonic() if now is None else now
            self.samples.append((now, got))
            while now - self.samples[0][0] > self.window_s:
                self.samples.popleft()

    def idle_cores(self) -> float | None:
        if len(self.samples) < MIN_SAMPLES:
            return None
        (t0, first), (t1, last) = self.samples[0], self.samples[-1]
        runnable = sum(u.runnable for _, u in self.samples) / len(self.samples)
        used = max(0.0, last.cpu_s - first.cpu_s) / (t1 - t0) if t1 > t0 else 0.0
        return self.ncores - max(runnable, used)


T = TypeVar("T")
R = TypeVar("R")


def schedule(
    pool: Executor,
    work: Callable[[T], R],
    todo: list[T],
    p: Policy,
    gauge: CpuGauge,
    clock: Callable[[], float] = time.monotonic,
    tick_s: float = TICK_S,
    failed: Callable[[T, BaseException], R] | None = None,
) -> Iterator[R]:
    """Run `work` on each of `todo` in `pool`, in order (put the longest first), starting
    each when `admit` says so; yield each result as it ends. The pool needs `p.cap` workers.
    With `failed`, an item whose work raised (its worker died: the pool is then broken) is
    yielded as `failed(item, error)`, and so is every item the broken pool can no longer
    take, instead of the error ending the whole run."""
    queue, running, last_start = deque(todo), dict[Future[R], T](), float("-inf")
    while queue or running:
        gauge.sample()
        idle = gauge.idle_cores()
        while queue and admit(p, len(running), idle, clock() - last_start):
            item = queue.popleft()
            try:
                with held():  # a worker forked or spawned now starts with them held
                    running[pool.submit(work, item)] = item
            except BrokenExecutor as e:
                if failed is None:
                    raise
                yield failed(item, e)
                continue
            last_start = clock()
        if not running:
            continue
        # never unbounded: a signal's handler runs in Python, so one that comes just before
        # a wait blocks is taken only when the wait returns
        done, _ = wait(running, timeout=tick_s if queue else WAIT_S, return_when=FIRST_COMPLETED)
        for f in done:
            item = running.pop(f)
            try:
                result = f.result()
            except Exception as e:
                if failed is None:
                    raise
                result = failed(item, e)
            yield result
