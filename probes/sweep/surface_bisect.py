"""`probe bisect AGENT --surface KIND:NAME --from V1 --to V2`: the first release whose install
declares an item of the hook surface (docs/surface.md), found by the search of `probe bisect`
(search.py) over the same candidates (bisect.candidates), where probing a version is installing
it and reading its surface: no session runs, so the verdict of a version is `declared` or
`absent`, with where the install declares it. One install at a time (no installs ahead: a
search of n candidates installs about log2(n) + 2 of them, and no more)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probes import progress
from probes.agents import Agent
from probes.errors import Exit, InputError, ProbeError
from probes.limits import BadFile
from probes.surface.model import KINDS
from probes.sweep.bisect import candidates
from probes.sweep.search import Bisection, Point, search

DECLARED, ABSENT = "declared", "absent"
NAME_MAX = 200


def parse_item(text: str) -> tuple[str, str]:
    """`event:PreModelSwitch` -> ("event", "PreModelSwitch"); a name alone is an event."""
    kind, sep, name = text.partition(":")
    if not sep:
        kind, name = "event", text
    if kind not in KINDS:
        raise InputError(f"--surface {text[:60]!r}: expected KIND:NAME, KIND one of {', '.join(KINDS)}")
    if not name or len(name) > NAME_MAX or not name.isprintable():
        raise InputError(f"--surface {text[:60]!r}: expected a name after {kind}:")
    return kind, name


def declares(agent: Agent, version: str, key: tuple[str, str]) -> Point:
    """Install `version` (cached) and read its surface: declared (evidence: where) or absent;
    skipped, with the reason, when it cannot install or be read."""
    from probes.surface.read import surface
    from probes.versions import install

    try:
        s = surface(agent, version, install.install(agent, version))
    except (ProbeError, BadFile, OSError) as e:
        return Point(version, reason=str(e)[:300])
    finally:
        install.release(agent, version)
    found = next((i for i in s.items if i.key == key), None)
    value = DECLARED if found else ABSENT
    return Point(version, value, value, evidence=found.where() if found else None)


@dataclass
class SurfaceReport:
    agent: str
    item: str
    start: str
    end: str
    bisection: Bisection
    wall_s: float = 0.0

    @property
    def exit_status(self) -> int:
        return Exit.OK if self.bisection.status in ("boundary", "agree") else Exit.HARNESS


def surface_bisect(agent: Agent, item: str, start: str, end: str, results: Path, prereleases: bool = False) -> SurfaceReport:
    key = parse_item(item)
    t0 = time.monotonic()
    chosen = candidates(agent, start, end, results, prereleases)

    def probe(versions: list[str]) -> list[Point]:
        out = []
        for v in versions:
            progress.say(f"reading the surface of {agent.name} {v} (installing it when not cached)")
            p = declares(agent, v, key)
            progress.say(f"{agent.name}@{v} {item}: {p.value or f'skipped ({p.reason})'}")
            out.append(p)
        return out

    found = search(chosen, probe)
    return SurfaceReport(agent.name, f"{key[0]}:{key[1]}", chosen[0], chosen[-1], found, round(time.monotonic() - t0, 1))


def _point(p: Point | None) -> dict[str, Any] | None:
    return None if p is None else {"version": p.version, "value": p.value, "where": p.evidence}


def as_json(r: SurfaceReport) -> dict[str, Any]:
    b = r.bisection
    return {
        "agent": r.agent,
        "surface": r.item,
        "from": r.start,
        "to": r.end,
        "candidates": b.candidates,
        "probed": b.probed,
        "status": b.status,
        "before": _point(b.before),
        "after": _point(b.after),
        "exact": b.exact,
        "skipped": [{"version": p.version, "reason": p.reason} for p in b.skipped],
        "reason": b.reason,
        "wall_s": r.wall_s,
    }


def text(r: SurfaceReport) -> str:
    b = r.bisection
    lines = [
        f"{r.agent} {r.item} {r.start}..{r.end}: {len(b.candidates)} candidates, {len(b.probed)} installs read "
        f"in {r.wall_s:.0f}s ({', '.join(b.probed)})"
    ]
    if b.status == "boundary" and b.before and b.after:
        exact = "exact: adjacent releases" if b.exact else "open: releases between could not be read"
        lines.append(f"boundary: {b.before.version} {b.before.value} | {b.after.version} {b.after.value} ({exact})")
        declared = b.after if b.after.value == DECLARED else b.before
        lines.append(f"found in {declared.version} at {declared.evidence}")
    elif b.status == "agree" and b.before and b.after:
        lines.append(f"{b.before.value} at both ends: no boundary to find (it may come and go between them)")
        if b.after.evidence:
            lines.append(f"found in {b.after.version} at {b.after.evidence}")
    else:
        lines.append(f"no boundary: {b.reason}")
    lines += [f"skipped {p.version}: {p.reason}" for p in b.skipped]
    return "\n".join(lines)
