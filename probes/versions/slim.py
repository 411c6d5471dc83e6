"""What makes an install small: other platforms' files dropped by rule, identical files shared.

Packages such as Copilot's main package through 1.0.5x ship every platform's prebuilds
(`prebuilds/darwin-arm64`, `ripgrep/bin/win32-x64`, `sharp/node_modules/@img/sharp-darwin-x64`
...); npm keeps them all. A directory whose name says it is for another OS, CPU or C
library is dropped after install: by the name's platform tokens, never by a list of one
version's files, so the rule holds for versions not seen yet. A name that only mentions a
CPU (`arm.js`, a folder `arm`) among other words is kept: only a name made of platform
tokens alone (`arm64`, `darwin`) or naming an OS and a CPU (`linux-arm64`) counts.

Identical files (by sha256 and executable bit) are hard links into one content store under
the cache root, so a file shared by versions, or a seed that repeats its own package, takes
its bytes once. A store entry is only ever linked to, never written through: the session
binds the install read-only, and a version's own link keeps its bytes whatever happens to
the store entry (eviction's sweep, a concurrent install).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

SHARE_MIN_BYTES = 16 * 1024  # smaller files cost a hash for a block or two

OSES = {"linux", "darwin", "macos", "mac", "osx", "win32", "win", "windows", "freebsd", "openbsd", "netbsd", "sunos"}
OSES |= {"solaris", "aix", "android", "ios", "linuxmusl"}
ARCHES = {"x64", "amd64", "x86", "ia32", "i386", "i686", "arm", "arm64", "aarch64", "armv6", "armv6l", "armv7", "armv7l"}
ARCHES |= {"armhf", "armel", "ppc", "ppc64", "ppc64le", "s390", "s390x", "riscv64", "loong64", "mips", "mipsel"}
LIBCS = {"gnu", "glibc", "musl", "musleabihf", "gnueabihf", "msvc"}
VENDOR = {"pc", "unknown", "apple"}  # rust triples: x86_64-unknown-linux-gnu
MACHINE_ARCHES = {"x86_64": {"x64", "amd64"}, "amd64": {"x64", "amd64"}, "aarch64": {"arm64", "aarch64"}, "arm64": {"arm64"}}
TOKEN_RE = re.compile(r"x86_64|x86-64|[^-._@]+")


@dataclass(frozen=True)
class Platform:
    """This host's names: the tokens a directory meant for it may carry."""

    oses: frozenset[str]
    arches: frozenset[str]
    libcs: frozenset[str]


def this_platform() -> Platform:
    machine = platform.machine().lower()
    glibc = platform.libc_ver()[0] == "glibc"
    system = platform.system().lower()
    oses = {system, *({"darwin", "macos", "mac", "osx"} if system == "darwin" else ())}
    oses |= {"win32", "win", "windows"} if system == "windows" else set()
    return Platform(
        oses=frozenset(oses),
        arches=frozenset(MACHINE_ARCHES.get(machine, {machine})),
        libcs=frozenset({"gnu", "glibc"} if glibc else {"musl"}) | ({"msvc"} if system == "windows" else frozenset()),
    )


def tokens(name: str) -> list[str]:
    return [("x64" if t in ("x86_64", "x86-64") else t) for t in TOKEN_RE.findall(name.lower())]


def foreign(name: str, here: Platform) -> bool:
    """Whether a directory called `name` holds files for another platform than `here`."""
    toks = tokens(name)
    oses = {t for t in toks if t in OSES}
    arches = {t for t in toks if t in ARCHES}
    libcs = {t for t in toks if t in LIBCS} | ({"musl"} if "linuxmusl" in oses else set())
    oses = {"linux" if t == "linuxmusl" else t for t in oses}
    if not oses and not arches:
        return False
    platform_only = all(t in OSES | ARCHES | LIBCS | VENDOR for t in toks)
    if not (platform_only or (oses and arches) or (oses and libcs)):
        return False  # a word among others (arm.js, lib/windows-helpers): not a platform folder
    return bool(oses - here.oses or arches - here.arches or libcs - here.libcs)


def native_missing(root: Path, package: str, here: Platform | None = None) -> dict[str, str]:
    """The optional dependencies of `package` (installed under `root`) meant for this
    platform (name -> the version npm was asked for) when none of them is installed: npm skips
    an optional package it could not fetch or write (a full disk, a package never published)
    and reports success, leaving a CLI whose binary is a placeholder (Claude Code's wrapper)."""
    here = here or this_platform()
    try:
        manifest = json.loads((root / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return {}
    optional = manifest.get("optionalDependencies") if isinstance(manifest, dict) else None
    if not isinstance(optional, dict):
        return {}
    ours = {n: str(v) for n, v in optional.items() if _names_platform(n) and not foreign(n.rsplit("/", 1)[-1], here)}
    return {} if any((root / "node_modules" / n).is_dir() for n in ours) else ours


def _names_platform(name: str) -> bool:
    toks = set(tokens(name.rsplit("/", 1)[-1]))
    return bool(toks & OSES) and bool(toks & ARCHES)


def drop_foreign(root: Path, keep: Path, here: Platform | None = None) -> int:
    """Remove the directories under `root` meant for other platforms (never one holding
    `keep`, the CLI's binary); the apparent bytes dropped."""
    here = here or this_platform()
    keep = keep.resolve()
    dropped = 0
    for d, dirs, _ in os.walk(root):
        for name in list(dirs):
            path = Path(d) / name
            if foreign(name, here) and not path.is_symlink() and not keep.is_relative_to(path.resolve()):
                dropped += sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
                shutil.rmtree(path)
                dirs.remove(name)
    return dropped


def digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def share(root: Path, store: Path) -> int:
    """Replace every file of `root` (of SHARE_MIN_BYTES or more) by a hard link to the store's
    identical file, adding the ones the store lacks; the apparent bytes now shared."""
    shared = 0
    for d, _, names in os.walk(root):
        for name in names:
            path = Path(d) / name
            st = path.lstat()
            if not path.is_file() or path.is_symlink() or st.st_size < SHARE_MIN_BYTES or st.st_nlink > 1:
                continue  # st_nlink > 1: already linked (npm's own links, a file met twice)
            entry = store / "sha256" / (digest(path) + ("-x" if st.st_mode & 0o111 else ""))
            if link_to_store(path, entry):
                shared += st.st_size
    return shared


def link_to_store(path: Path, entry: Path) -> bool:
    """`path` becomes a link to `entry` (True), or `entry` a link to `path` (False: the store
    had no such file, or this filesystem cannot link). The file's bytes stay whole throughout:
    a link is made beside it and renamed over it."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.link-{os.getpid()}")
    try:
        for _ in range(3):  # the sweep may remove an entry between our two calls: try again
            try:
                os.link(entry, tmp)
                os.replace(tmp, path)
                return True
            except FileNotFoundError:
                pass
            try:
                os.link(path, entry)
                return False
            except FileExistsError:
                continue
    except OSError:  # no hard links here (another filesystem, too many links): keep the copy
        tmp.unlink(missing_ok=True)
    return False


def sweep(store: Path) -> int:
    """Remove the store's entries no install links to any more; the bytes freed."""
    freed = 0
    for entry in (store / "sha256").glob("*") if (store / "sha256").is_dir() else ():
        st = entry.lstat()
        if st.st_nlink == 1:
            entry.unlink(missing_ok=True)
            freed += st.st_blocks * 512
    return freed
