"""The shells a run can have at /bin/sh (the setup's `sh`), as this host has them: the
binary the jail binds over the one /bin/sh leads to, and which shell a file the run reports
(by device and inode) is. A bind keeps its source's inode, so the inode names the shell
whatever path it was reached by."""

from __future__ import annotations

import functools
import os

from probes.errors import InputError
from probes.runner.contract import ShBind

PACKAGES = {"dash": "dash", "bash": "bash", "busybox": "busybox-static"}  # Debian's, for the hint


def binary(name: str) -> str | None:
    """The shell's binary on this host (links resolved), or None."""
    for folder in ("/usr/bin", "/bin"):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.realpath(path)
    return None


def bind(name: str) -> ShBind | None:
    """What the jail binds for `sh=name`: None when /bin/sh already is that shell."""
    source = binary(name)
    if source is None:
        raise InputError(f"sh={name} needs {name} on this machine (apt-get install {PACKAGES.get(name, name)})")
    target = os.path.realpath("/bin/sh")
    return None if source == target else {"source": source, "target": target}


@functools.cache
def _inodes() -> dict[tuple[int, int], str]:
    out = {}
    for name in reversed(PACKAGES):  # dash last: where two names are one file, the first wins
        path = binary(name)
        if path:
            st = os.stat(path)
            out[(st.st_dev, st.st_ino)] = name
    return out


def named(dev: int, ino: int) -> str | None:
    """Which shell the file (dev, ino) is, or None (not a shell this host has)."""
    return _inodes().get((dev, ino))
