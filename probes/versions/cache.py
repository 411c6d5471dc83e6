"""The CLI cache: what each version takes and when it was last used; a bound on the whole.

Beside each prefix `cli/AGENT/VERSION/`: `VERSION.json` (recorded at install: when, how
long, the bytes dropped and shared) and `VERSION.use`, a lock file every `probe` process that
uses the version holds shared for as long as it runs, whose mtime is the last use. Eviction
takes that lock exclusive without waiting and skips a version it cannot take, so a version in
use is never removed. Sizes count each inode once (versions share files by hard link through
the content store, slim.py): a version's `unique` bytes are those no other version links
to, what removing it frees.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, NotRequired, TypedDict

from probes.errors import InputError
from probes.pids import alive
from probes.versions.slim import sweep

SIZE_RE = re.compile(r"(\d{1,15}(?:\.\d{1,6})?)\s*([KMGT]?)(?:i?B)?", re.ASCII | re.IGNORECASE)
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
MAX_ENV = "PROBE_CACHE_MAX"

Inode = tuple[int, int]


class InstallRecord(TypedDict):
    """VERSION.json: written once, when the install succeeded."""

    agent: str
    version: str
    installed_at: str  # ISO 8601, UTC
    install_s: float  # npm, the agent's preparation, pruning and sharing
    npm_s: float
    dropped_bytes: int  # other platforms' files removed
    shared_bytes: int  # files linked to an identical one in the content store
    node_wanted: NotRequired[str]  # its engines.node (or what its launcher asks), "" for any; absent: recorded before
    node: NotRequired[str]  # the Node.js installed for it (its engines.node is newer than the host's)


def parse_size(text: str, what: str = MAX_ENV) -> int:
    """`20G`, `500M`, `1.5G`, `123456` (bytes; units of 1024), or one line saying what is wrong."""
    m = SIZE_RE.fullmatch(text.strip())
    if not m:
        raise InputError(f"{what}={text[:40]!r}: a size such as 20G, 500M or 1048576 (bytes)")
    return int(float(m[1]) * UNITS[m[2].upper()])


def max_bytes() -> int | None:
    """PROBE_CACHE_MAX as bytes, or None when unset (no bound)."""
    text = os.environ.get(MAX_ENV, "")
    return parse_size(text) if text else None


def human(n: float) -> str:
    for unit in ("B", "K", "M", "G"):
        if abs(n) < 1024 or unit == "G":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    return f"{n:.1f}G"


# ---------------------------------------------------------------- records and use


def cli_root(root: Path) -> Path:
    return root / "cli"


def record_path(prefix: Path) -> Path:
    return prefix.with_name(prefix.name + ".json")


def use_path(prefix: Path) -> Path:
    return prefix.with_name(prefix.name + ".use")


def write_record(prefix: Path, record: InstallRecord) -> None:
    path = record_path(prefix)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(json.dumps(record, indent=2) + "\n")
    os.replace(tmp, path)


def read_record(prefix: Path) -> InstallRecord | None:
    try:
        data = json.loads(record_path(prefix).read_text())
    except (OSError, ValueError):
        return None  # installed before records existed, or unreadable: shown as unknown
    return data if isinstance(data, dict) else None  # type: ignore[return-value]


_HELD: dict[Path, IO[bytes]] = {}  # prefix -> its .use file, locked shared until we exit
_HELD_LOCK = threading.Lock()  # installs may run in threads (bisect's prefetch)


def hold(prefix: Path) -> None:
    """Mark `prefix` as in use by this process (a shared lock kept until the process ends or
    release(prefix)) and as used now. Waits only while an eviction of it is under way."""
    with _HELD_LOCK:
        f = _HELD.get(prefix)
        if f is None:
            try:
                prefix.parent.mkdir(parents=True, exist_ok=True)
                f = open(use_path(prefix), "ab")  # noqa: SIM115 (held open for the process's life)
            except OSError:
                return  # a read-only cache: nothing can evict from it either (an install says why it fails)
            fcntl.flock(f.fileno(), fcntl.LOCK_SH)
            _HELD[prefix] = f
        os.utime(f.fileno())


def release(prefix: Path) -> None:
    """This process no longer uses `prefix`: eviction may take it (a long bisect that is done
    with a version says so, so that PROBE_CACHE_MAX can hold during the search)."""
    with _HELD_LOCK:
        f = _HELD.pop(prefix, None)
    if f is not None:
        f.close()


def try_take(prefix: Path) -> IO[bytes] | None:
    """The .use file locked exclusive, or None when some process is using the version."""
    f = open(use_path(prefix), "ab")  # noqa: SIM115 (returned to the caller, who closes it)
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        return None
    return f


# ---------------------------------------------------------------- sizes


@dataclass
class Version:
    agent: str
    version: str
    prefix: Path
    inodes: dict[Inode, int]  # inode -> bytes on disk
    last_used: float  # epoch seconds (the .use stamp, else the install)
    record: InstallRecord | None


@dataclass(frozen=True)
class Scan:
    versions: list[Version]
    total: int  # bytes on disk under the cache root, each inode once

    @functools.cached_property
    def refs(self) -> dict[Inode, int]:
        """How many versions link to each inode (the store's link is not a version's)."""
        count: dict[Inode, int] = {}
        for v in self.versions:
            for i in v.inodes:
                count[i] = count.get(i, 0) + 1
        return count

    def unique(self, v: Version) -> int:
        """Bytes only `v` links to (what removing it frees)."""
        return sum(size for i, size in v.inodes.items() if self.refs[i] == 1)

    def size(self, v: Version) -> int:
        return sum(v.inodes.values())


def inodes(root: Path) -> dict[Inode, int]:
    found: dict[Inode, int] = {}
    for d, _, names in os.walk(root):
        for n in names:
            st = os.lstat(os.path.join(d, n))
            found[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    return found


def scan(root: Path, agent: str | None = None, is_installed: Callable[[str, Path], bool] | None = None) -> Scan:
    """Every installed version under `root` (of `agent`, if named), and the root's total."""
    versions = []
    for agent_dir in sorted(cli_root(root).glob("*")) if cli_root(root).is_dir() else ():
        for prefix in sorted(p for p in agent_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if is_installed is not None and not is_installed(agent_dir.name, prefix):
                continue
            record = read_record(prefix)
            use = use_path(prefix)
            last = use.stat().st_mtime if use.exists() else prefix.stat().st_mtime
            versions.append(Version(agent_dir.name, prefix.name, prefix, inodes(prefix), last, record))
    total = sum(inodes(root).values()) if root.is_dir() else 0
    return Scan([v for v in versions if agent is None or v.agent == agent], total)


# ---------------------------------------------------------------- eviction


def plan_eviction(
    versions: Iterable[Version], limit: int, can_take: Callable[[Version], bool], pinned: Iterable[Version] = ()
) -> list[Version]:
    """Least recently used first, the versions to remove so that the cache fits `limit`, each
    inode counted once (the store's entries that no version links to are swept anyway).
    `pinned` versions count toward the total but are never chosen; a version `can_take`
    refuses (in use) is skipped, never waited for."""
    pool = sorted(versions, key=lambda v: v.last_used)
    sizes: dict[Inode, int] = {}
    refs: dict[Inode, int] = {}
    for v in [*pool, *pinned]:
        for i, size in v.inodes.items():
            sizes[i] = size
            refs[i] = refs.get(i, 0) + 1
    total = sum(sizes.values())
    chosen = []
    for v in pool:
        if total <= limit:
            break
        if not can_take(v):
            continue
        chosen.append(v)
        for i in v.inodes:
            refs[i] -= 1
            if refs[i] == 0:
                total -= sizes[i]
    return chosen


def remove(v: Version) -> None:
    """Remove an installed version whose .use lock the caller holds exclusive: the prefix is
    renamed away first, so nothing ever sees half of it."""
    gone = v.prefix.with_name(f".{v.version}.evicted-{os.getpid()}")
    os.replace(v.prefix, gone)
    record_path(v.prefix).unlink(missing_ok=True)
    shutil.rmtree(gone, ignore_errors=True)


def evict(
    root: Path,
    limit: int | None,
    is_installed: Callable[[str, Path], bool],
    agent: str | None = None,
    only: Mapping[str, str] | None = None,
    dry_run: bool = False,
) -> tuple[list[Version], list[Version]]:
    """Remove least recently used versions until the cache fits `limit` (or exactly the
    versions in `only`, agent -> version); (removed, skipped as in use)."""
    for stale in cli_root(root).glob("*/.*.evicted-*"):  # an eviction killed midway
        pid = stale.name.rsplit("-", 1)[1]
        if pid.isdigit() and not alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    found = scan(root, None, is_installed)
    candidates = [v for v in found.versions if agent is None or v.agent == agent]
    if only is not None:
        candidates = [v for v in candidates if only.get(v.agent) == v.version]
    taken: dict[Path, IO[bytes]] = {}
    skipped: list[Version] = []

    def can_take(v: Version) -> bool:
        f = try_take(v.prefix)
        if f is None:
            skipped.append(v)
            return False
        taken[v.prefix] = f
        return True

    if only is not None:
        chosen = [v for v in candidates if can_take(v)]
    elif limit is not None:  # other agents' versions count toward the bound, untouched
        chosen = plan_eviction(candidates, limit, can_take, [v for v in found.versions if v not in candidates])
    else:
        chosen = []
    try:
        for v in chosen:
            if not dry_run:
                remove(v)
    finally:
        for f in taken.values():
            f.close()
    if chosen and not dry_run:
        sweep(root / "store")
    return chosen, skipped


# ---------------------------------------------------------------- probe cache


class Row(TypedDict):
    """One line of `probe cache list` (--json: one object)."""

    agent: str
    version: str
    bytes: int  # on disk, each inode once
    unique_bytes: int  # linked to by no other version: what removing it frees
    installed_at: str | None
    install_s: float | None
    npm_s: float | None
    dropped_bytes: int | None  # other platforms' files removed at install
    shared_bytes: int | None  # linked at install to files the store already had
    last_used: str


def rows(found: Scan) -> list[Row]:
    out: list[Row] = []
    for v in sorted(found.versions, key=lambda v: (v.agent, v.last_used)):
        r = v.record
        out.append(
            Row(
                agent=v.agent,
                version=v.version,
                bytes=found.size(v),
                unique_bytes=found.unique(v),
                installed_at=r["installed_at"] if r else None,
                install_s=r["install_s"] if r else None,
                npm_s=r["npm_s"] if r else None,
                dropped_bytes=r["dropped_bytes"] if r else None,
                shared_bytes=r["shared_bytes"] if r else None,
                last_used=datetime.fromtimestamp(v.last_used, UTC).isoformat(timespec="seconds"),
            )
        )
    return out
