"""`probe timeline`'s work (the command: commands/timeline.py): a recipe's verdict as
ranges of versions, from the evidence (report/timeline.py); `--fill` bisects every open
boundary, `--versions RANGE --every K` first samples every K-th release of RANGE and then
bisects between samples that differ, so a range where the verdict changes several times
(breaks, is fixed, breaks again) is found change by change. The recipe's control is probed on
every version probed and on both versions of each boundary found (bisect.controls)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probes.agents import Agent
from probes.errors import Exit, InputError
from probes.evidence.load import load
from probes.report import timeline
from probes.sweep.bisect import Control, Runner, controls, probed_points
from probes.sweep.matrix import select_versions
from probes.sweep.search import Bisection, Point, search
from probes.versions import spec


@dataclass
class Filled:
    sampled: list[Point] = field(default_factory=list)
    searches: list[Bisection] = field(default_factory=list)
    controls: list[Control] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def probes(self) -> int:
        return len(self.sampled) + sum(len(b.probed) for b in self.searches) + sum(not c.reused for c in self.controls)

    ends: tuple[str, ...] = ()  # the first and last release of --versions

    @property
    def exit_status(self) -> int:
        """1 when an end of the range could not run, or a search stopped (flaky, failed)."""
        lost = [p for p in self.sampled if p.skipped and p.version in self.ends]
        return Exit.HARNESS if lost or any(b.status in ("flaky", "failed") for b in self.searches) else Exit.OK


def sample(versions: list[str], every: int) -> list[str]:
    """Every `every`-th version, the first and the last always among them."""
    picked = versions[::every]
    return picked + versions[-1:] if versions and picked[-1] != versions[-1] else picked


def selected(selector: str | None, versions: list[str], agent: Agent) -> list[str]:
    """The versions of `versions` a --versions selector names: A..B and lists offline; latest
    and latest:N ask the registry (matrix.select_versions)."""
    if selector is None:
        return versions
    if ".." in selector and not selector.endswith("..latest"):
        lo, _, hi = selector.partition("..")
        for v in (lo, hi):
            if not spec.SPEC_RE.fullmatch(f"{agent.name}@{v}") or v == "latest":
                raise InputError(f"--versions {selector[:60]!r}: expected LIST, A..B or latest:N")
        return [v for v in versions if spec.semver_key(lo) <= spec.semver_key(v) <= spec.semver_key(hi)]
    if not selector.startswith("latest") and ".." not in selector:
        chosen = {v.strip() for v in selector.split(",")}
        return [v for v in versions if v in chosen]
    chosen = set(select_versions(agent, selector, prereleases=True))
    return [v for v in versions if v in chosen]


def known_points(results: Path, agent: str, recipe: str, observation: str | None) -> dict[str, Point]:
    """The evidence as Points (verdict, outcome, evidence path), as timeline.points_of reads it."""
    values = timeline.points_of(results, agent, recipe, observation)
    return {
        c.version: Point(c.version, values[c.version], c.record.outcome, evidence=str(c.path))
        for c in load(results, agent, recipe)
        if c.version in values
    }


def fill(
    agent: Agent,
    recipe: str,
    results: Path,
    observation: str | None,
    selector: str | None,
    every: int | None,
    jobs: int = 1,
    repeat: int = 1,
    prereleases: bool = False,
    unrunnable: Mapping[str, str] | None = None,
) -> Filled:
    """`unrunnable`: releases known not to run (version -> reason): searches pass over them."""
    t0 = time.monotonic()
    pub = spec.published(agent.package)
    results.mkdir(parents=True, exist_ok=True)
    timeline.write_snapshot(results, agent.name, pub)
    cands = timeline.candidates_of(pub.versions, prereleases)
    scope = selected(selector, cands, agent)
    if selector and not scope:
        raise InputError(f"--versions {selector[:60]} selects no published {agent.name} version")
    done = Filled(ends=(scope[0], scope[-1]) if selector and scope else ())
    with Runner(agent, recipe, results, jobs, repeat, observation) as runner:
        if every:
            have = known_points(results, agent.name, recipe, observation)
            wanted = [v for v in sample(scope, every) if v not in have]
            runner.prefetch(wanted[1:])  # install the rest while the first ones probe
            done.sampled = runner.probe(wanted)
        tried: set[tuple[str, str]] = set()
        skipped = {v: Point(v, reason=r) for v, r in (unrunnable or {}).items()} | {
            p.version: p for p in done.sampled if p.skipped
        }
        while True:
            known = known_points(results, agent.name, recipe, observation)
            inside = {v: p for v, p in known.items() if not selector or v in scope}
            _, bounds = timeline.build({v: p.value or "" for v, p in inside.items()}, cands)
            todo = [b for b in bounds if not b.exact and (b.before, b.after) not in tried]
            if not todo:
                break
            for b in todo:
                tried.add((b.before, b.after))
                lo, hi = spec.semver_key(b.before), spec.semver_key(b.after)
                span = [b.before, *(v for v in cands if lo < spec.semver_key(v) < hi), b.after]
                found = search(span, runner.probe, jobs, runner.prefetch, {**known, **skipped})
                skipped.update({p.version: p for p in found.skipped})
                done.searches.append(found)
        done.controls = controls(runner, recipe, done.sampled + [p for b in done.searches for p in probed_points(b)])
    done.wall_s = round(time.monotonic() - t0, 1)
    return done


def skipped_of(f: Filled) -> list[Point]:
    every = {p.version: p for p in f.sampled if p.skipped} | {p.version: p for b in f.searches for p in b.skipped}
    return sorted(every.values(), key=lambda p: spec.semver_key(p.version))


def filled_json(f: Filled) -> dict[str, Any]:
    return {
        "probes": f.probes,
        "wall_s": f.wall_s,
        "sampled": [p.version for p in f.sampled],
        "skipped": [{"version": p.version, "reason": p.reason} for p in skipped_of(f)],
        "bisections": [
            {
                "between": [b.candidates[0], b.candidates[-1]],
                "status": b.status,
                "probed": b.probed,
                "before": b.before.version if b.before else None,
                "after": b.after.version if b.after else None,
                "exact": b.exact,
            }
            for b in f.searches
        ],
        "controls": [{"recipe": c.recipe, "version": c.version, "outcome": c.outcome, "earned": c.earned} for c in f.controls],
    }


def filled_text(f: Filled) -> str:
    lines = [
        f"{f.probes} probe(s) in {f.wall_s:.0f}s" + (f"; sampled {', '.join(p.version for p in f.sampled)}" if f.sampled else "")
    ]
    for b in f.searches:
        got = f"{b.before.version} | {b.after.version}" if b.status == "boundary" and b.before and b.after else b.status
        lines.append(f"  bisected {b.candidates[0]}..{b.candidates[-1]}: {got} ({len(b.probed)} probed)")
    for p in skipped_of(f):
        lines.append(f"  skipped {p.version}: {p.reason}")
    for c in f.controls:
        if c.earned is False:
            lines.append(f"  control {c.recipe} on {c.version} gives {c.outcome} too: the hook made no difference there")
    return "\n".join(lines)


def restricted(t: timeline.Timeline, results: Path, agent: Agent, selector: str) -> timeline.Timeline:
    """The timeline of the versions --versions names only."""
    points = timeline.points_of(results, agent.name, t.recipe, t.observation)
    keep = set(selected(selector, sorted(points, key=spec.semver_key), agent))
    snap = timeline.read_snapshot(results, agent.name)
    segments, bounds = timeline.build(
        {v: x for v, x in points.items() if v in keep}, timeline.candidates_of(snap) if snap is not None else None
    )
    return timeline.Timeline(t.agent, t.recipe, t.observation, segments, bounds)
