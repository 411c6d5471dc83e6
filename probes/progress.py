"""Progress on stderr, for the steps a person waits on: a CLI's install, a session, a
bisect's rounds, `probe check`'s sessions. Never on stdout (that is the command's answer).

Quiet unless stderr is a terminal or the command was given --progress (`enable`). On a
terminal a step's line is redrawn in place each second (`\\r`) with the seconds so far (and
the bytes, given a `sizer`); otherwise a step says its start and its end, one line each:

    probe: installing copilot 1.0.93 from npm ...
    probe: installing copilot 1.0.93 from npm: done in 11.5s (377 MB)

The redraw is a daemon thread that only prints: it is stopped in the step's `finally`, so a
signal (Interrupted) ends the command as it would without it. Standard library only: `probe
run` imports this at start-up.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ON: list[bool] = [False]  # say progress (enable); a process that never enables it (a worker) is quiet
ACTIVE: list[int] = [0]  # steps open now: a step inside another says nothing (one redrawn line at a time)
REDRAW_S = 1.0
ERASE = "\x1b[K"  # the rest of the line, after a shorter redraw


def enable(asked: bool) -> None:
    """Progress on: --progress was given, or stderr is a terminal."""
    ON[0] = bool(asked) or sys.stderr.isatty()


def say(message: str) -> None:
    """One line on stderr, when progress is on."""
    if ON[0]:
        print(f"probe: {message}", file=sys.stderr, flush=True)


def megabytes(n: int) -> str:
    return f"{n / 1e6:.0f} MB"


def dir_bytes(root: Path) -> int:
    """The bytes of the files under `root`, a file linked twice counted once, as du counts
    them (a directory being written: what vanishes is skipped)."""
    total, todo, linked = 0, [str(root)], set()
    while todo:
        try:
            with os.scandir(todo.pop()) as entries:
                for e in entries:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            todo.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            st = e.stat(follow_symlinks=False)
                            if st.st_nlink > 1:
                                if (st.st_dev, st.st_ino) in linked:
                                    continue
                                linked.add((st.st_dev, st.st_ino))
                            total += st.st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


def _so_far(sizer: Callable[[], int] | None) -> str:
    if sizer is None:
        return ""
    try:
        size = sizer()
    except OSError:
        return ""
    return megabytes(size) if size else ""  # nothing yet (npm is downloading): the seconds alone


@contextlib.contextmanager
def step(message: str, sizer: Callable[[], int] | None = None, every: float = REDRAW_S) -> Iterator[None]:
    """`message` said while the block runs, and how long it took (and how many bytes `sizer`
    counts) when it ends: `done in 11.5s (377 MB)`, or `stopped after 3.0s` when it raised."""
    if not ON[0] or ACTIVE[0]:
        yield
        return
    live = sys.stderr.isatty()
    started = time.monotonic()
    stop = threading.Event()
    ACTIVE[0] += 1

    def line(tail: str) -> str:
        return f"probe: {message}: {tail}"

    def redraw() -> None:
        while not stop.wait(every):
            size = _so_far(sizer)
            text = line(", ".join(x for x in (size, f"{time.monotonic() - started:.0f}s") if x))
            print(f"\r{text}{ERASE}", end="", file=sys.stderr, flush=True)

    thread = threading.Thread(target=redraw, name="probe-progress", daemon=True) if live else None
    print(
        f"\rprobe: {message} ...{ERASE}" if live else f"probe: {message} ...",
        end="" if live else "\n",
        file=sys.stderr,
        flush=True,
    )
    if thread is not None:
        thread.start()
    ended = "stopped after"
    try:
        yield
        ended = "done in"
    finally:
        stop.set()
        ACTIVE[0] -= 1
        if thread is not None:
            thread.join(timeout=2 * every)  # it only prints; a daemon, should it hang
        size = _so_far(sizer) if ended == "done in" else ""
        tail = f"{ended} {time.monotonic() - started:.1f}s" + (f" ({size})" if size else "")
        print(f"\r{line(tail)}{ERASE}" if live else line(tail), file=sys.stderr, flush=True)
