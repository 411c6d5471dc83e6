"""Reading what a session left: the workspace, the hook records, the CLI's home and logs.
Standard library only (the runner reads its hook records with it too).

Everything under a run's directories may have been made by the session, which is hostile
input to the harness reading it afterwards as root: a symlink to /etc/shadow or /dev/zero, a
FIFO no writer will ever open, a file that grows while it is read. So every read here starts
at a directory the harness made and walks down one component at a time with O_NOFOLLOW (a
link anywhere on the path is refused, never followed), opens nothing but a regular file (the
type is checked with lstat before the open and with fstat after it; O_NONBLOCK, so even a
FIFO swapped in between cannot hang the open), and reads at most a cap. What it refuses it
says, in a few words; a symlink is described by its target text, never read through.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

WALK_MAX = 20_000  # entries a walk looks at (a session may leave a million empty files)
TARGET_MAX = 200  # characters of a symlink's target kept in its description
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)


class Refused(ValueError):
    """A path that is not a regular file reachable without following a link (the message
    says what it is instead), or one over the cap."""


@dataclass(frozen=True)
class Entry:
    """One thing a session left, described without opening it."""

    kind: str  # file, dir, symlink, fifo, socket, device, other
    size: int
    mtime_ns: int
    target: str | None = None  # a symlink's target text (never followed)

    def describe(self) -> str:
        if self.kind == "symlink":
            return f"a symlink to {self.target!r}, not followed"
        return {"file": "a regular file", "dir": "a directory"}.get(self.kind, f"a {self.kind}, not opened")


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "other"


def _parts(rel: str | Path) -> list[str]:
    parts = [p for p in str(rel).split("/") if p not in ("", ".")]
    if str(rel).startswith("/") or ".." in parts:
        raise Refused(f"{rel}: not a path inside the run")
    return parts


@contextmanager
def _parent(root: Path, parts: list[str]) -> Iterator[int]:
    """A descriptor of the directory holding the last of `parts`, reached from `root` without
    following any link on the way."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the harness made root
    try:
        for name in parts[:-1]:
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise Refused(f"{'/'.join(parts)}: {name} is not a directory (a link is not followed)") from None
                raise
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def lstat(root: Path, rel: str | Path) -> Entry | None:
    """What is at `rel` under `root` (not followed), or None when nothing is (or a component
    on the way is not a real directory)."""
    parts = _parts(rel)
    if not parts:
        return _entry(os.lstat(root), None)
    try:
        with _parent(root, parts) as fd:
            st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            target = os.readlink(parts[-1], dir_fd=fd) if stat.S_ISLNK(st.st_mode) else None
    except (OSError, Refused):
        return None
    return _entry(st, target)


def _entry(st: os.stat_result, target: str | None) -> Entry:
    kind = _kind(st.st_mode)
    return Entry(kind, st.st_size if kind == "file" else 0, st.st_mtime_ns, target[:TARGET_MAX] if target else None)


def exists(root: Path, rel: str | Path) -> bool:
    """True when anything at all is at `rel` (a dangling link included), not followed."""
    return lstat(root, rel) is not None


def read(root: Path, rel: str | Path, limit: int, part: str = "whole") -> bytes:
    """The bytes of the regular file at `rel` under `root`: `whole` (Refused when it is over
    `limit`), or only its `head` or `tail` of at most `limit` bytes."""
    parts = _parts(rel)
    if not parts:
        raise Refused(f"{rel}: a directory")
    where = "/".join(parts)
    try:
        with _parent(root, parts) as dirfd:
            st = os.stat(parts[-1], dir_fd=dirfd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                target = os.readlink(parts[-1], dir_fd=dirfd) if stat.S_ISLNK(st.st_mode) else None
                raise Refused(f"{where}: {_entry(st, target).describe()}")
            fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=dirfd)
    except OSError as e:
        raise Refused(f"{where}: cannot read ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped between the lstat and the open
            raise Refused(f"{where}: {_entry(st, None).describe()}")
        if part == "whole" and st.st_size > limit:
            raise Refused(f"{where}: {st.st_size} bytes, over the limit of {limit}")
        if part == "tail":
            os.lseek(fd, max(0, st.st_size - limit), os.SEEK_SET)
        data = _read_at_most(fd, limit + 1 if part == "whole" else limit)
    except OSError as e:
        raise Refused(f"{where}: cannot read ({e.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew after the fstat
        raise Refused(f"{where}: over the limit of {limit} bytes")
    return data


def _read_at_most(fd: int, n: int) -> bytes:
    chunks, left = [], n
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def text(root: Path, rel: str | Path, limit: int, part: str = "whole") -> str:
    """As `read`, decoded leniently (a session's bytes need not be UTF-8)."""
    return read(root, rel, limit, part).decode("utf-8", "replace")


def names(root: Path, rel: str | Path = ".", limit: int = WALK_MAX) -> list[str]:
    """The names in the directory at `rel` (reached without following links), sorted; at
    most `limit`. Empty when it is not a directory."""
    parts = _parts(rel)
    try:
        with _parent(root, [*parts, "."]) as fd:
            out = []
            with os.scandir(fd) as it:
                for entry in it:
                    out.append(entry.name)
                    if len(out) >= limit:
                        break
    except (OSError, Refused):
        return []
    return sorted(out)


def walk(
    root: Path, under: str | Path = ".", skip: frozenset[str] = frozenset({".git"}), limit: int = WALK_MAX
) -> dict[str, Entry]:
    """Every entry in the directory `under` (reached from `root` without following links) by
    its path relative to it, links and special files described, not entered; directories
    named in `skip` at its top left out; at most `limit` entries (a session that left more is
    not walked further). Empty when `under` is not a directory."""
    out: dict[str, Entry] = {}
    try:
        with _parent(root, [*_parts(under), "."]) as fd:
            top = os.dup(fd)
    except (OSError, Refused):
        return out
    todo: list[tuple[int, str]] = [(top, "")]
    try:
        while todo and len(out) < limit:
            fd, prefix = todo.pop()
            try:
                with os.scandir(fd) as it:
                    entries = list(it)
                for e in sorted(entries, key=lambda e: e.name):
                    if len(out) >= limit:
                        break
                    try:
                        st = e.stat(follow_symlinks=False)
                        target = os.readlink(e.name, dir_fd=fd) if stat.S_ISLNK(st.st_mode) else None
                    except OSError:
                        continue
                    rel = prefix + e.name
                    if stat.S_ISDIR(st.st_mode):
                        if e.name in skip and not prefix:
                            continue
                        try:
                            todo.append((os.open(e.name, _DIR_FLAGS, dir_fd=fd), rel + "/"))
                        except OSError:
                            pass
                        out[rel] = _entry(st, None)
                        continue
                    out[rel] = _entry(st, target)
            finally:
                os.close(fd)
    finally:
        for fd, _ in todo:
            os.close(fd)
    return {k: v for k, v in out.items() if v.kind != "dir"}
