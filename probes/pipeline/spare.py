"""A spare run for a worker's next probe (a matrix's, a bisect's, the atlas's): its run
directory made and capped, the runner's files copied and the runner started, while this probe's
session runs. The next probe takes it, so its launch does not wait
for the runner's namespaces and interpreter (0.08 s on an idle machine, 0.2 s at load 6,
benchmarks/README.md). A search probing one version at a time (an atlas's pinned versions and
hints, a bisect with --jobs 1) keeps one in its own process too (bisect.Runner.probe). A lone
`probe run` makes none (its runner's start overlaps its own
imports, and nothing would take it).

A spare is its process's: the runner dies with it (die_with_parent), an idle runner leaves when
its standard input closes, and a directory whose owner died is swept by the next probe
(rundirs.sweep). On a normal exit `discard` ends both at once."""

from __future__ import annotations

import atexit
import contextlib
import functools
import multiprocessing.util
import py_compile
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from probes.pipeline import rundirs
from probes.pipeline.rundirs import RunDirs

if TYPE_CHECKING:
    from probes.backends import Backend
    from probes.backends.base import Launch


@dataclass
class Started:
    """A run directory (held open by `stack`) with its runner started, waiting for a plan."""

    stack: contextlib.ExitStack
    run: RunDirs
    launch: Launch
    backend: str  # the backend that launched it: only a probe on the same one may take it

    def close(self) -> None:
        try:
            self.launch.cancel()
        finally:
            self.stack.close()


def start(backend: Backend, files: Sequence[str], source: Path) -> Started:
    """A run directory, capped, with `files` copied from `source`, and its runner launched."""
    stack = contextlib.ExitStack()
    try:
        run = RunDirs(stack.enter_context(rundirs.run_directory()))
        run.cap()  # before the runner's namespaces are made: they see the caps
        copy_runner_files(run.bin, files, source)
        return Started(stack, run, backend.launch(run.root), backend.name)
    except BaseException:
        stack.close()
        raise


def copy_runner_files(bin_dir: Path, files: Sequence[str], source: Path) -> None:
    """`files` copied from `source` into a run's `bin_dir`, and, with the instrumented hook's body
    (hooklib.py), its bytecode where its interpreter looks first (__pycache__): each hook call
    then reads it instead of compiling the body (2 ms of a call's 10 over a no-op hook,
    benchmarks/hook_cost.py). Unchecked (no source timestamp to match the copy's); an
    interpreter of another cache tag (a container's) ignores it and compiles, as before."""
    for name in files:
        shutil.copy(source / name, bin_dir / name)
        if name == HOOK_BODY and source / name == RUNNER_HOOK_BODY:
            cached = bin_dir / "__pycache__"
            cached.mkdir(exist_ok=True)
            (cached / f"{Path(name).stem}.{sys.implementation.cache_tag}.pyc").write_bytes(hook_bytecode())


HOOK_BODY = "hooklib.py"
RUNNER_HOOK_BODY = Path(__file__).parent.parent / "runner" / HOOK_BODY


@functools.cache
def hook_bytecode() -> bytes:
    """hooklib.py compiled once a process, as an unchecked-hash .pyc."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "hooklib.pyc"
        py_compile.compile(
            str(RUNNER_HOOK_BODY), cfile=str(out), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
        )
        return out.read_bytes()


# One thread makes every spare, and lives as long as the process: a runner's die_with_parent
# is tied to the thread that started it (PR_SET_PDEATHSIG), and a thread per spare would end
# before the spare is taken, killing its runner.
_state = threading.Condition()
_enabled = False
_wanted: Callable[[], Started] | None = None  # a spare asked for, not made yet
_spare: Started | None = None


def enable() -> None:
    """This process runs probe after probe (a pool's worker): from now on each session leaves
    a spare for the next."""
    global _enabled
    if not _enabled:
        _enabled = True
        threading.Thread(target=_maker, name="spare-run", daemon=True).start()
        atexit.register(discard)
        # a forked pool worker leaves by os._exit, past atexit: multiprocessing's own finalizers still run
        multiprocessing.util.Finalize(None, discard, exitpriority=0)


def make(backend: Backend, files: Sequence[str], source: Path) -> None:
    """Ask for a spare on `backend`, made meanwhile, when enabled and none is there or coming;
    the local backend only (the docker backend's launch is a container's start)."""
    global _wanted
    if not _enabled or backend.name != "local":
        return
    with _state:
        if _spare is None and _wanted is None:
            _wanted = lambda: start(backend, files, source)  # noqa: E731
            _state.notify_all()


def _maker() -> None:
    global _spare, _wanted
    while True:
        with _state:
            while _wanted is None:
                _state.wait()
            build = _wanted
        try:
            made: Started | None = build()
        except Exception:  # no spare: the next probe launches its own, and says why if it fails too
            made = None
        with _state:
            _spare, _wanted = made, None
            _state.notify_all()


def take(backend: Backend) -> Started | None:
    """The spare, when one was made for `backend` (waiting for one being made); it is the
    caller's to run or close."""
    got = _taken()
    if got is not None and got.backend != backend.name:
        got.close()
        return None
    return got


def discard() -> None:
    """End the spare, if any: its runner leaves, its directory is removed."""
    got = _taken()
    if got is not None:
        got.close()


def _taken() -> Started | None:
    global _spare
    with _state:
        while _wanted is not None:
            _state.wait()
        got, _spare = _spare, None
    return got
