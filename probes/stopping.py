"""How `probe` ends on SIGINT or SIGTERM (Ctrl-C, `timeout`, a cancelled CI job, `docker
stop`), in `probe` itself and in the worker processes of `matrix`, `bump`, `bisect` and
`timeline --fill`: every process gone within a bound, one line, exit 130, nothing written for
an unfinished probe.

- `probe` itself raises Interrupted once (`on_stop_signals`); each command unwinds as after
  Ctrl-C: a probe stops its runner and removes its run directory.
- A worker ignores SIGINT and dies of SIGTERM while it waits for a cell (`worker_init`), so
  it never dies of a Python exception inside the pool's queue, holding its lock (which would
  block every other worker, and the parent waiting on them, for good). While it runs a cell
  (`in_cell`) either signal ends the cell as Ctrl-C ends `probe run`, then the worker exits.
- The parent stops its pool (`stop`): cells not started are cancelled, every worker is sent
  SIGTERM, and any still there after STOP_GRACE_S is SIGKILLed (its run then ends through the
  runner's namespace, and the next probe removes its run directory).
- A signal that arrives while a run directory is being removed is taken once the removal is
  done (`tearing_down`): an exception there would leave half of it behind.

Standard library only (and errors.py): `probe run` imports this at start-up."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

from probes.errors import Exit

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext
    from multiprocessing.process import BaseProcess

STOPPING = (signal.SIGINT, signal.SIGTERM)
STOP_GRACE_S = 15.0  # a cell's own ending: its runner's (up to 10 s) and its run directory's removal
KILLED_GRACE_S = 5.0  # after SIGKILL: only the kernel's part is left
RECHECK_S = 0.05  # a signal held during a removal is taken this long after it, or later
INTERRUPTED_EXIT = int(Exit.INTERRUPTED)  # a worker's, from a cell it ended

R = TypeVar("R")


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM: `name` says which."""

    def __init__(self, name: str = "SIGINT") -> None:
        super().__init__(name)
        self.name = name


def tearing_down(frame: FrameType | None) -> bool:
    """A run directory is being removed (rundirs.remove on the stack)."""
    while frame is not None:
        if frame.f_code.co_name == "remove" and str(frame.f_globals.get("__name__", "")).endswith("rundirs"):
            return True
        frame = frame.f_back
    return False


class Stopper:
    """A handler for SIGINT and SIGTERM that raises Interrupted once, in process `owner`;
    a signal during a run directory's removal is taken when it is done. In a child forked
    with it (a library's pool: a pool of this module's starts with the signals held and
    sets its own) they do what they do without it."""

    def __init__(self, owner: int | None = None) -> None:
        self.owner = os.getpid() if owner is None else owner
        self.received: str | None = None  # the first signal's name
        self.raised = False

    def install(self) -> None:
        for s in STOPPING:
            signal.signal(s, self)

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self.owner:  # a child forked with this handler (a pool's of some library): as if it had none
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if self.raised:
            return  # again while the first one unwinds: that is bounded
        if signum != signal.SIGALRM and self.received is None:
            self.received = signal.Signals(signum).name
        if self.received is None:
            return
        if tearing_down(frame):
            signal.signal(signal.SIGALRM, self)
            signal.setitimer(signal.ITIMER_REAL, RECHECK_S)
            return
        self.raised = True
        raise Interrupted(self.received)

    def settle(self) -> str | None:
        """The work is done: no held signal is taken later; the first one received, if any."""
        signal.setitimer(signal.ITIMER_REAL, 0)
        return self.received


def on_stop_signals() -> Stopper:
    """`probe` itself: SIGINT and SIGTERM raise Interrupted once."""
    if not _forks_reset:
        os.register_at_fork(after_in_child=_reset_in_child)
        _forks_reset.append(True)
    stopper = Stopper()
    stopper.install()
    return stopper


_forks_reset: list[bool] = []


def _reset_in_child() -> None:
    """A child forked with a Stopper takes SIGINT and SIGTERM as Python does by default: a
    handler run later, in Python, can miss a signal that comes just before the child blocks
    (a library pool's idle worker, which its pool then waits on for good); the kernel's
    default action cannot. A pool of this module's starts with them held and sets its own."""
    for s, default in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL)):
        if isinstance(signal.getsignal(s), Stopper):
            signal.signal(s, default)


# ---------------------------------------------------------------- worker processes


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM held back in this thread while it starts workers (a pool forks or
    spawns them in `submit`): a worker begins with them blocked and takes them only once its
    initializer has said what they do, so none dies by its parent's handler."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def worker_init(parent: int) -> None:
    """A pool's initializer: the worker dies with `parent` (even a SIGKILLed one), ignores
    SIGINT and dies of SIGTERM until it runs a cell, and keeps a spare run (pipeline/spare.py)."""
    # start-up: only a pool's workers need the jail's ctypes, `probe run` imports this module
    from probes.runner.jail import die_with_parent

    die_with_parent(signal.SIGKILL, parent)
    _idle()
    from probes.pipeline import spare  # a worker runs probe after probe: each leaves the next one's runner started

    spare.enable()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)  # held by the parent's `held`: one sent meanwhile is dropped


def _idle() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C: the parent decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # from the parent (`stop`) or to the group: die, holding nothing
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)


def in_cell(fn: Callable[..., R], *args: Any) -> R:
    """Run one cell in a worker: SIGINT or SIGTERM ends it as Ctrl-C ends a probe, and then
    the worker (os._exit: its pool is being stopped, and the pool's queues may be unusable by
    now; nothing is handed back)."""
    stopper = Stopper()
    stopper.install()
    try:
        result = fn(*args)
        _idle()  # before anything else can be taken
        if stopper.received:  # held during a removal, not taken since: the cell ended meanwhile
            os._exit(INTERRUPTED_EXIT)
        return result
    except KeyboardInterrupt:
        os._exit(INTERRUPTED_EXIT)
    finally:
        _idle()


def process_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """A pool whose workers end as this module says: started by `worker_init`, their cells
    run through `in_cell`, stopped by `stop`. Call it within `quiet_pipes`."""
    # start-up, as die_with_parent: `probe run` starts no pool
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=worker_init, initargs=(os.getpid(),))
    # Once its workers are gone, the pool's queue has no reader: its feeder thread then stops
    # quietly (EPIPE) instead of printing a traceback for each item it could not hand over.
    queue = getattr(pool, "_call_queue", None)
    if queue is not None:
        queue._ignore_epipe = True
    return pool


@contextlib.contextmanager
def quiet_pipes() -> Iterator[None]:
    """SIGPIPE ignored (EPIPE instead) while a pool runs: its feeder thread may write to a
    pipe whose readers, the workers, have died, and `probe` would die of it (cli.main takes
    SIGPIPE's default action, for `probe cite | head`). Left ignored when the block raises:
    the pool is still being stopped."""
    before = signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGPIPE, before)


@contextlib.contextmanager
def pool_of(workers: int, context: BaseContext | None = None) -> Iterator[ProcessPoolExecutor]:
    """`process_pool`, shut down when the block ends, stopped (`stop`) when it raises."""
    with quiet_pipes():
        pool = process_pool(workers, context)
        try:
            yield pool
        except BaseException:
            stop(pool)
            raise
        pool.shutdown()


def stop(*pools: ProcessPoolExecutor, grace_s: float = STOP_GRACE_S) -> None:
    """End `pools` now, waiting at most `grace_s` (then SIGKILL): cells not started are
    cancelled, every worker is sent SIGTERM (an idle one dies; one in a cell ends it and
    exits). The workers' runs end with them; the run directories they leave (an idle worker's
    spare, pipeline/spare.py, or a killed one's run) are removed once they are gone."""
    from probes.pipeline import rundirs  # start-up: only a pool is stopped

    workers = [w for pool in pools for w in (pool._processes or {}).values() if w.pid]
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as in `quiet_pipes`, for good: this process is ending
    for pool in pools:
        pool.shutdown(wait=False, cancel_futures=True)
    _signal(workers, signal.SIGTERM)
    left = _wait_gone(workers, grace_s)
    _signal(left, signal.SIGKILL)
    _wait_gone(left, KILLED_GRACE_S)
    rundirs.sweep()  # their owners gone, their locks are free


def _signal(workers: Sequence[BaseProcess], signum: int) -> None:
    for w in workers:
        with contextlib.suppress(OSError):
            os.kill(w.pid or 0, signum)


def _wait_gone(workers: Sequence[BaseProcess], timeout_s: float) -> list[BaseProcess]:
    """The workers still there after `timeout_s` (a worker's sentinel is ready once it ended)."""
    from multiprocessing.connection import wait  # start-up, as die_with_parent: only a pool is waited for

    pending = {w.sentinel: w for w in workers}
    deadline = time.monotonic() + timeout_s
    while pending and (left := deadline - time.monotonic()) > 0:
        for ready in wait(list(pending), timeout=left):
            if isinstance(ready, int):
                pending.pop(ready, None)
    return list(pending.values())
