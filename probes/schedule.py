"""When the matrix starts its next cell. Most cells wait (on a hook's timeout, a hang, an
interactive pause) with the cores idle, so running only one cell per core leaves the machine
idle for most of a catalog. The scheduler keeps `floor` cells running, and starts more, up to
`cap`, only while the cells' own processes leave a core free: it samples how many of the
matrix's processes are runnable (state R in /proc: computing or waiting for a core), which
is the CPU they ask for, whatever other load on the machine lets them have. A cell that
computes holds further starts back; cells that wait let more in. Timing-sensitive recipes
therefore see about the contention of one cell per core (the old default), however many
cells wait beside them."""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .limits import MAX_JOBS

PROC = Path("/proc")
MAX_TREE = 4096  # processes walked per sample: a fork bomb in a hook must not stall the matrix
OVERSUBSCRIBE = 4  # cells per core at most, by default: a cell's processes and memory bound it
TICK_S = 0.1  # how often the processes are sampled while every cell runs on
WINDOW_S = 0.5  # the samples a start is judged by (a runnable process shows in its share)
MIN_SAMPLES = 3
IDLE_CORES = 0.75  # free CPU (in cores) that lets one more cell in above the floor
SETTLE_S = 0.5  # between starts above the floor: a new cell's start-up burst shows first


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


class Procfs:
    """The processes under one process, and how many of them are runnable, from /proc: one
    read of each process's stat gives its parent and its state."""

    def __init__(self, root: int | None = None, proc: Path = PROC) -> None:
        self.root, self.proc = os.getpid() if root is None else root, proc

    def table(self) -> dict[int, tuple[int, str]]:
        """pid -> (parent pid, state) of every process readable now."""
        out: dict[int, tuple[int, str]] = {}
        for name in os.listdir(self.proc):
            if not name.isdigit():
                continue
            try:
                st = (self.proc / name / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            fields = st[st.rfind(")") + 2 :].split(" ", 2)  # the name may hold spaces and parentheses
            if len(fields) >= 2 and fields[1].isdigit():
                out[int(name)] = (int(fields[1]), fields[0])
        return out

    def runnable(self) -> int | None:
        """How many processes under the root are runnable now (R: running or waiting for a
        core); None without /proc."""
        try:
            table = self.table()
        except OSError:
            return None
        kids: dict[int, list[int]] = {}
        for pid, (ppid, _) in table.items():
            kids.setdefault(ppid, []).append(pid)
        count, todo, seen = 0, list(kids.get(self.root, ())), 0
        while todo and seen < MAX_TREE:
            pid, seen = todo.pop(), seen + 1
            count += table[pid][1] == "R"
            todo += kids.get(pid, ())
        return count


class CpuGauge:
    """The cores the matrix's processes leave free, averaged over the last WINDOW_S."""

    def __init__(
        self, count: Callable[[], int | None] | None = None, ncores: int | None = None, window_s: float = WINDOW_S
    ) -> None:
        self.count = Procfs().runnable if count is None else count
        self.ncores, self.window_s = ncores or cores(), window_s
        self.samples: deque[tuple[float, int]] = deque()

    def sample(self, now: float | None = None) -> None:
        got = self.count()
        if got is not None:
            now = time.monotonic() if now is None else now
            self.samples.append((now, got))
            while now - self.samples[0][0] > self.window_s:
                self.samples.popleft()

    def idle_cores(self) -> float | None:
        if len(self.samples) < MIN_SAMPLES:
            return None
        return self.ncores - sum(n for _, n in self.samples) / len(self.samples)


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
) -> Iterator[R]:
    """Run `work` on each of `todo` in `pool`, in order (put the longest first), starting
    each when `admit` says so; yield each result as it ends. The pool needs `p.cap` workers."""
    queue, running, last_start = deque(todo), set[Future[R]](), float("-inf")
    while queue or running:
        gauge.sample()
        idle = gauge.idle_cores()
        while queue and admit(p, len(running), idle, clock() - last_start):
            running.add(pool.submit(work, queue.popleft()))
            last_start = clock()
        done, _ = wait(running, timeout=tick_s if queue else None, return_when=FIRST_COMPLETED)
        for f in done:
            running.discard(f)
            yield f.result()
