"""A run's private directory (raw hook records, workspace, HOME), and the removal of those a
killed `probe` left behind.

Each run directory holds `owner.lock`, flocked by the process that made it for as long as it
runs. The kernel releases the lock however that process ends (`kill -9` included), so a
directory whose lock can be taken belongs to nobody and is removed by the next probe, while
the directories of live runs (other probes, matrix workers) are left alone. The lock file is
created and locked under a temporary name and renamed into place, so a sweep never sees an
unlocked lock of a live run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PREFIX = "probe-run-"
LOCK = "owner.lock"
UNLOCKED_GRACE_S = 600  # a directory without a lock (an older harness's, or one just made)


def remove(path: Path) -> None:
    """Remove a run directory, even one whose session made parts of it unwritable."""

    def make_writable(_func: object, p: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            parent = os.path.dirname(p)
            os.chmod(parent, stat.S_IRWXU)
            if os.path.isdir(p) and not os.path.islink(p):
                os.chmod(p, stat.S_IRWXU)
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)

    shutil.rmtree(path, onerror=make_writable)


def sweep(root: Path | None = None) -> list[Path]:
    """Remove the run directories under `root` (the temporary directory) whose owner is gone."""
    root = Path(root or tempfile.gettempdir())
    removed = []
    for path in root.glob(PREFIX + "*"):
        if path.is_symlink() or not path.is_dir():
            continue
        lock = path / LOCK
        try:
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW)
        except FileNotFoundError:
            with contextlib.suppress(OSError):
                if time.time() - path.stat().st_mtime > UNLOCKED_GRACE_S:
                    remove(path)
                    removed.append(path)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its owner runs
            os.close(fd)
            continue
        try:
            remove(path)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


@contextlib.contextmanager
def run_directory() -> Iterator[Path]:
    """A fresh run directory, locked by this process; removed when the block ends."""
    sweep()
    path = Path(tempfile.mkdtemp(prefix=PREFIX))
    fd = -1
    try:
        pending = path / (LOCK + ".new")
        fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(pending, path / LOCK)
        yield path
    finally:
        remove(path)
        if fd >= 0:
            os.close(fd)


@dataclass
class RunDirs:
    """The directories of one run, under its root (made at once)."""

    root: Path

    def __post_init__(self) -> None:
        for d in (self.workspace, self.home, self.bin, self.records, self.tmp):
            d.mkdir(parents=True, exist_ok=True)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def records(self) -> Path:
        return self.root / "records"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"
