"""`probe cache [list|prune]`: the installed CLI versions (size, install time, last use), and
pruning them (the cache itself: probes/versions/cache.py)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from tabulate import tabulate

from probes.commands.options import add_dry_run, add_json
from probes.errors import Exit, InputError
from probes.suggest import perhaps
from probes.versions import install, prefixes
from probes.versions.cache import evict, human, max_bytes, parse_size, rows, scan
from probes.versions.named import agent_named


def add_arguments(ca: argparse.ArgumentParser) -> None:
    ca.description = (
        "List the installed CLI versions (size on disk, bytes only each holds, install "
        "time, last use) or prune them: least recently used first to fit --max (or PROBE_CACHE_MAX), "
        "or the named --version. A version a running probe uses is never removed."
    )
    ca.add_argument("action", nargs="?", choices=["list", "prune"], default="list")
    ca.add_argument("--agent")
    ca.add_argument("--version", dest="version", metavar="V", help="prune: remove this version (with --agent)")
    ca.add_argument("--max", metavar="SIZE", help="prune: keep at most SIZE (20G, 500M, bytes)")
    add_dry_run(ca)
    add_json(ca, "list: print the versions as JSON")


def handle(args: argparse.Namespace) -> int:
    root = prefixes.cache_root()
    agent = agent_named(args.agent).name if args.agent else None
    if args.action == "prune":
        return prune(args, root, agent, install.installed_in)
    found = scan(root, agent, install.installed_in)
    table = rows(found)
    if args.json:
        print(json.dumps({"root": str(root), "total_bytes": found.total, "versions": table}, indent=2))
        return Exit.OK
    lines = [
        (
            r["agent"],
            r["version"],
            human(r["bytes"]),
            human(r["unique_bytes"]),
            minute(r["installed_at"]),
            "-" if r["install_s"] is None else f"{r['install_s']:.1f}s",
            minute(r["last_used"]),
        )
        for r in table
    ]
    print(tabulate(lines, headers=["agent", "version", "size", "unique", "installed (UTC)", "install", "last used (UTC)"]))
    limit = max_bytes()
    print(f"{root}: {human(found.total)} on disk" + (f", PROBE_CACHE_MAX {human(limit)}" if limit else ""))
    return Exit.OK


def minute(iso: str | None) -> str:
    return iso[:16].replace("T", " ") if iso else "-"


def prune(args: argparse.Namespace, root: Path, agent: str | None, is_installed: Callable[[str, Path], bool]) -> int:
    only = None
    if args.version:
        if agent is None:
            raise InputError("probe cache prune --version: name the agent too (--agent)")
        known = [v.version for v in scan(root, agent, is_installed).versions]
        if args.version not in known:
            raise InputError(f"{agent}@{args.version} is not in the cache{perhaps(args.version, known)}")
        only = {agent: args.version}
    limit = parse_size(args.max, "--max") if args.max is not None else max_bytes()
    if only is None and limit is None:
        raise InputError("probe cache prune: say how much to keep (--max SIZE or PROBE_CACHE_MAX) or which --version")
    removed, skipped = evict(root, limit, is_installed, agent, only, args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for v in removed:
        print(f"{verb} {v.agent}@{v.version}")
    for v in skipped:
        print(f"kept {v.agent}@{v.version}: in use")
    if not removed and not skipped:
        print("nothing to remove")
    print(f"{root}: {human(scan(root).total)} on disk")
    return Exit.OK
