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
from dataclasses import dataclass, field
from pathlib import Path

# The runner's mount calls (it is standalone, copied into each run; its jail module is a
# plain package module here too): one ctypes binding of mount(2) in the project.
from probes.runner.jail import MS_NODEV, MS_NOSUID, MS_REMOUNT, JailError, mount, umount

PREFIX = "probe-run-"
LOCK = "owner.lock"
UNLOCKED_GRACE_S = 600  # a directory without a lock (an older harness's, or one just made)
DISK_MB = 256  # each directory a session writes, by default (the catalog's sessions use under 20 MiB)
INODES = 100_000  # files in each: a session making millions of empty ones costs memory, not disk
MNT_DETACH = 2


def unmount_under(path: Path) -> None:
    """Detach every mount at or below `path` (the capped directories of a run), deepest first,
    so the run directory can be removed. Nothing to do for an uncapped run."""
    root = os.path.realpath(path)
    points = []
    with contextlib.suppress(OSError), open("/proc/self/mountinfo", "rb") as f:
        for line in f.read(4 * 1024 * 1024).splitlines():
            fields = line.split()
            if len(fields) > 4:  # the mount point, with space, tab, newline and backslash octal-escaped
                point = fields[4].decode("utf-8", "surrogateescape")
                for esc in ("\\040", "\\011", "\\012", "\\134"):
                    point = point.replace(esc, chr(int(esc[1:], 8)))
                if point == root or point.startswith(root + "/"):
                    points.append(point)
    for point in sorted(points, key=len, reverse=True):
        umount(point, MNT_DETACH)


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
            unmount_under(path)
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
        unmount_under(path)
        remove(path)
        if fd >= 0:
            os.close(fd)


@dataclass
class RunDirs:
    """The directories of one run, under its root (made at once)."""

    root: Path
    capped: dict[str, str] = field(default_factory=dict)  # name -> path, each on its own capped tmpfs
    disk: str = "uncapped"  # what the evidence says of it

    def __post_init__(self) -> None:
        for d in (self.workspace, self.home, self.bin, self.records, self.tmp):
            d.mkdir(parents=True, exist_ok=True)

    def cap(self, mb: int = DISK_MB) -> None:
        """Put each directory the session writes (workspace, home, tmp, records) on its own
        tmpfs of `mb` MiB, before anything is in them and before the runner's namespaces are
        made (they get these mounts as they are): a session filling one fills that, not the
        host's disk, and the runner ends it there (`disk-full`). Mounting needs root (in the
        host's mount namespace); elsewhere the run stays uncapped, and says so."""
        if os.geteuid() != 0:
            self.disk = "uncapped (probe is not root: no tmpfs can be mounted)"
            return
        options = f"size={mb}m,nr_inodes={INODES},mode=0755"
        for name, d in (("workspace", self.workspace), ("home", self.home), ("tmp", self.tmp), ("records", self.records)):
            try:
                mount("tmpfs", str(d), "tmpfs", MS_NOSUID | MS_NODEV, options)
            except JailError as e:
                unmount_under(self.root)
                self.capped, self.disk = {}, f"uncapped (mounting a tmpfs failed: {os.strerror(e.errno or 0)})"
                return
            self.capped[name] = str(d)
        self.disk = f"tmpfs, {mb} MiB each: workspace, home, tmp, records"

    def resize(self, mb: int) -> None:
        """The caps made `mb` MiB (a recipe's own disk_mb): a remount changes the filesystem
        itself, so the runner's namespaces, made already, see the new size too."""
        if not self.capped or self.disk.startswith(f"tmpfs, {mb} MiB"):
            return
        for d in self.capped.values():
            try:
                mount("tmpfs", d, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, f"size={mb}m")
            except JailError as e:
                raise OSError(e.errno, f"resizing {d} to {mb} MiB: {os.strerror(e.errno or 0)}") from None
        self.disk = f"tmpfs, {mb} MiB each: workspace, home, tmp, records"

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
