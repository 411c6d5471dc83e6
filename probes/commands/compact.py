"""`probe compact [--agent A] [--outside-window] [--dry-run]`: store the records that only
repeat their neighbours compact (evidence/compaction.py; docs/evidence.md, "Compact records"),
with --outside-window first remove the versions a window no longer holds, and say the bytes per
record and per agent-version before and after."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from probes.catalog import windows
from probes.commands.options import add_dry_run, add_json, add_results
from probes.errors import Exit, InputError
from probes.evidence import compaction
from probes.evidence.model import check_writable
from probes.versions.named import agent_named


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Store compact each record whose label and observations (but timings) equal both its neighbours' "
        "in version order: without its invocations, model requests and transcript, with the full record's "
        "sha256 and size. Window ends, the versions windows.yaml keeps whole (`whole`, else the pinned ones) "
        "and records FINDINGS checks stay whole. Idempotent."
    )
    p.add_argument("--agent", help="one agent (default: every agent with a window)")
    p.add_argument(
        "--outside-window",
        action="store_true",
        help="first remove the records of versions before a window's `from` that are not pinned "
        "nor read by a FINDINGS check (after moving `from`: results/ stays bounded; git keeps them)",
    )
    add_dry_run(p)
    add_results(p)
    add_json(p)


def handle(args: argparse.Namespace) -> int:
    results = Path(args.results)
    agents = None
    if args.agent:
        agent_named(args.agent)
        wins = windows.load()
        if args.agent not in wins:
            raise InputError(f"{args.agent} has no window in {windows.windows_file()}: its records stay whole")
        agents = [args.agent]
    gone = compaction.outside(results, agents) if args.outside_window else []
    if gone:
        print(dropped(gone, results, args.dry_run), file=sys.stderr if args.json else sys.stdout)
        if not args.dry_run:
            check_writable(results)
            for folder in gone:
                shutil.rmtree(folder)  # never follows a link
    found = compaction.plan(results, agents)
    removed = 0
    if not args.dry_run and (found.plans or found.before != found.after):
        check_writable(results)
        removed = compaction.apply(found)
    tree = tree_sizes(results)
    saved = sum(s.bytes for s in found.before.values()) - sum(s.bytes for s in found.after.values())
    freed = sum(s.disk for s in found.before.values()) - sum(s.disk for s in found.after.values())
    if args.dry_run or not (found.plans or found.before != found.after):  # measured before: what writing would leave
        tree = {
            "bytes": tree["bytes"],
            "disk": tree["disk"],
            "bytes_after": tree["bytes"] - saved,
            "disk_after": tree["disk"] - freed,
        }
    else:  # measured after: what it was
        tree = {
            "bytes": tree["bytes"] + saved,
            "disk": tree["disk"] + freed,
            "bytes_after": tree["bytes"],
            "disk_after": tree["disk"],
        }
    if args.json:
        print(json.dumps(as_json(found, args.dry_run, removed, tree), indent=2))
    else:
        print(text(found, args.dry_run, results, tree))
    return Exit.OK


def tree_sizes(results: Path) -> dict[str, int]:
    """The bytes of every file under `results`, and what they take on disk (as `du` counts)."""
    total = disk = 0
    for root, _, files in os.walk(results):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            total += st.st_size
            disk += st.st_blocks * 512
    return {"bytes": total, "disk": disk}


def dropped(gone: list[Path], results: Path, dry_run: bool) -> str:
    """One line: the versions --outside-window removes, per agent, with their records and bytes."""
    by: dict[str, list[str]] = {}
    for folder in gone:
        by.setdefault(folder.parent.name, []).append(folder.name)
    records = sum(1 for f in gone for _ in f.glob("*.json"))
    size = sum(tree_sizes(f)["bytes"] for f in gone)
    what = "; ".join(f"{agent} {', '.join(vs)}" for agent, vs in sorted(by.items()))
    verb = "would be removed" if dry_run else "removed"
    return f"outside the window, {len(gone)} version(s) {verb} ({records} record(s), {mb(size)}): {what}"


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def kb(n: float) -> str:
    return f"{n / 1e3:.1f} KB"


def text(found: compaction.Compaction, dry_run: bool, results: Path, tree: dict[str, int]) -> str:
    verb = "would be compacted" if dry_run else "compacted"
    lines = []
    for agent, b in sorted(found.before.items()):
        a = found.after[agent]
        n = sum(1 for p in found.plans if p.path.parts[-3] == agent and not (p.again or p.relaid))
        again = sum(1 for p in found.plans if p.path.parts[-3] == agent and p.again)
        relaid = sum(1 for p in found.plans if p.path.parts[-3] == agent and p.relaid)
        smaller = f", {again} compact record(s) stored smaller" if again else ""
        smaller += f", {relaid} whole record(s) stored as now" if relaid else ""
        lines.append(
            f"{agent}: {n} record(s) {verb}{smaller}; {a.compact} of {b.records} records compact, {b.versions} versions; "
            f"{mb(b.bytes)} -> {mb(a.bytes)}, per record {kb(b.per_record())} -> {kb(a.per_record())}, "
            f"per version {kb(b.per_version())} -> {kb(a.per_version())}"
        )
    again = sum(p.again for p in found.plans)
    relaid = sum(p.relaid for p in found.plans)
    smaller = f" ({again} of them compact already, stored smaller)" if again else ""
    smaller += f" ({relaid} of them whole, stored as now)" if relaid else ""
    lines.append(
        f"{len(found.plans)} record(s) {verb}{smaller}: {results}/ {mb(tree['bytes'])} -> {mb(tree['bytes_after'])} in files, "
        f"{mb(tree['disk'])} -> {mb(tree['disk_after'])} on disk" + (" (dry run: nothing written)" if dry_run else "")
    )
    return "\n".join(lines)


def as_json(found: compaction.Compaction, dry_run: bool, removed: int, tree: dict[str, int]) -> dict[str, Any]:
    return {
        "dry_run": dry_run,
        "compacted": [
            {
                "path": str(p.path),
                "neighbours": list(p.neighbours),
                "bytes": p.before,
                "bytes_after": len(p.text.encode()),
                "again": p.again,
                "relaid": p.relaid,
            }
            for p in found.plans
        ],
        "blobs_removed": removed,
        "agents": [
            {"agent": agent, "before": vars(b), "after": vars(found.after[agent])} for agent, b in sorted(found.before.items())
        ],
        "results": tree,
    }
