"""`probe atlas` without --check: fills what the coverage (atlas.py) reports missing, with the
timeline's machinery (fill.py: the window's two ends sampled, then every open boundary
bisected until adjacent; the control on every version probed), then probes each pinned
version outside the window not probed yet and the control where a probed version lacks one;
when every pair is so filled, the pinned versions inside the window (their ranges answer them
meanwhile). What results/
already holds is never probed again, so an interrupted atlas resumes where it stopped.
`--shard I/N` takes a deterministic slice of the (agent, recipe) pairs, balanced by each
recipe's expected cost as the matrix's shards are (matrix.shard)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probes import progress
from probes.agents import get as get_agent
from probes.errors import Exit
from probes.evidence import unrunnable
from probes.evidence.load import load
from probes.report import timeline
from probes.sweep import matrix
from probes.sweep.atlas import AgentCoverage, Coverage, coverage
from probes.sweep.bisect import Runner
from probes.sweep.fill import Filled, fill, skipped_of
from probes.sweep.search import Point


def sharded(found: Sequence[AgentCoverage], part: tuple[int, int] | None) -> list[Coverage]:
    """The pairs of this shard (all without one), in the order found."""
    pairs = [c for a in found for c in a.recipes]
    if part is None:
        return pairs
    cells = [matrix.Cell(f"{c.agent}@atlas", c.recipe) for c in pairs]
    mine = {(c.spec.split("@")[0], c.recipe) for c in matrix.shard(cells, *part)}
    return [c for c in pairs if (c.agent, c.recipe) in mine]


@dataclass
class Done:
    """One pair's filling: the timeline's fill, the pinned versions and controls probed after it,
    and its coverage afterwards."""

    agent: str
    recipe: str
    filled: Filled | None = None
    halved: list[Point] = field(default_factory=list)  # an end stretch halved (halve_ends)
    refilled: Filled | None = None  # the boundaries that halving or the hints opened, bisected
    hinted: list[Point] = field(default_factory=list)  # where other recipes change (changes_elsewhere)
    pinned: list[Point] = field(default_factory=list)
    controls: list[Point] = field(default_factory=list)
    after: Coverage | None = None
    wall_s: float = 0.0

    @property
    def probes(self) -> int:
        fills = sum(f.probes for f in (self.filled, self.refilled) if f)
        return fills + len(self.halved) + len(self.hinted) + len(self.pinned) + len(self.controls)


def again(c: Coverage, results: Path) -> Coverage:
    """The pair's coverage re-read from results/ (what the probes just wrote counts)."""
    snapshot = timeline.read_snapshot(results, c.agent) or c.window.releases
    lost = unrunnable.read(results, c.agent, c.recipe)
    return coverage(load(results, c.agent, c.recipe), c.agent, c.recipe, c.control, c.window, snapshot, lost)


def runnable_ends(c: Coverage, lost: Mapping[str, str]) -> tuple[str, str] | None:
    """The first and last releases of the window not known to fail (None: none left)."""
    ok = [v for v in c.window.releases if v not in lost]
    return (ok[0], ok[-1]) if ok else None


def fill_pair(c: Coverage, results: Path, jobs: int = 1) -> Done:
    t0 = time.monotonic()
    done = Done(c.agent, c.recipe)
    agent = get_agent(c.agent)
    hints = c.hints  # the agent's other recipes' changes (atlas.with_hints): `again` reads this recipe alone
    lost = unrunnable.read(results, c.agent, c.recipe)
    if outer_end_lost(c, lost):  # halve first: sampling the first release not known to fail would try one more
        with Runner(agent, c.recipe, results, jobs) as runner:
            done.halved = halve_ends(c, runner, lost)
        remember(results, c.agent, c.recipe, done.halved)
        c = again(c, results)
        lost = unrunnable.read(results, c.agent, c.recipe)
    ends = runnable_ends(c, {**lost, **c.cannot_run})
    if ends and (c.head or c.tail or c.opened):  # ends first (an `every` past the window samples only them), then halving
        lo, hi = ends
        done.filled = fill(agent, c.recipe, results, None, f"{lo}..{hi}", len(c.window.releases) + 1, jobs, unrunnable=lost)
        remember(results, c.agent, c.recipe, skipped_of(done.filled))
        c = again(c, results)
    with Runner(agent, c.recipe, results, jobs) as runner:
        if outer_end_lost(c, unrunnable.read(results, c.agent, c.recipe)):  # the fill's own end could not run
            more = halve_ends(c, runner, unrunnable.read(results, c.agent, c.recipe))
            done.halved += more
            remember(results, c.agent, c.recipe, more)
            c = again(c, results)
            if c.opened:  # what runs at the far end may differ: bisect it as fill does
                lost = unrunnable.read(results, c.agent, c.recipe)
                whole = f"{c.window.first}..{c.window.last}"
                done.refilled = fill(agent, c.recipe, results, None, whole, None, jobs, unrunnable=lost)
                c = again(c, results)
        hinted = [v for v in hints if v not in unrunnable.read(results, c.agent, c.recipe) and v not in c.probed]
        if hinted:  # where another recipe changes, this one may too, and come back between two probes
            done.hinted = runner.probe(hinted)
            remember(results, c.agent, c.recipe, done.hinted)
            c = again(c, results)
            if c.opened:
                lost = unrunnable.read(results, c.agent, c.recipe)
                whole = f"{c.window.first}..{c.window.last}"
                done.refilled = fill(agent, c.recipe, results, None, whole, None, jobs, unrunnable=lost)
                c = again(c, results)
        if c.pinned_outside:  # the recipe and its control, as the search probes a version
            done.pinned = runner.probe(c.pinned_outside)
            remember(results, c.agent, c.recipe, done.pinned)
            c = again(c, results)
        if c.control and c.control_missing:
            done.controls = runner.probe(c.control_missing, recipe=c.control)
    done.after = again(c, results)
    done.wall_s = round(time.monotonic() - t0, 1)
    return done


def outer_end_lost(c: Coverage, lost: Mapping[str, str]) -> bool:
    """Whether an unprobed end stretch begins (ends) with a release that could not run."""
    return bool((c.head and c.head[0] in lost) or (c.tail and c.tail[-1] in lost))


def halve_ends(c: Coverage, runner: Runner, lost: Mapping[str, str]) -> list[Point]:
    """An end stretch whose outer release could not run, halved until the releases that cannot
    run meet the first (or last) that does: the window of a CLI whose early releases cannot run
    here (no hooks yet, another model API) costs log2 of them, not one pass per release."""
    probed: list[Point] = []
    for stretch in (c.head, c.tail[::-1]):
        if not stretch or stretch[0] not in lost:
            continue
        bad, good = 0, len(stretch)  # stretch[bad] cannot run; stretch[good] (past the end) ran
        while good - bad > 1:
            mid = (bad + good) // 2
            if stretch[mid] not in lost:
                point = runner.probe([stretch[mid]])[0]
                probed.append(point)
                if not point.skipped:
                    good = mid
                    continue
                lost = {**lost, point.version: point.reason or "could not run"}
            bad = mid
    return probed


def remember(results: Path, agent: str, recipe: str, points: Sequence[Point]) -> None:
    """The releases that could not run (install, start, another version ran), with the
    reason, kept so the next atlas passes over them (evidence/unrunnable.py): for every
    recipe, or for `recipe` alone when only its own session did not say what ran."""
    for scope in ("release", "recipe"):
        lost = {p.version: p.reason for p in points if p.skipped and p.reason and p.scope == scope}
        if lost:
            unrunnable.record(results, agent, lost, recipe if scope == "recipe" else None)


def fill_pinned(c: Coverage, results: Path, jobs: int = 1) -> Done:
    """A complete pair's pinned versions inside the window probed (with its control)."""
    t0 = time.monotonic()
    done = Done(c.agent, c.recipe)
    with Runner(get_agent(c.agent), c.recipe, results, jobs) as runner:
        done.pinned = runner.probe(c.pinned_inside)
    remember(results, c.agent, c.recipe, done.pinned)
    done.after = again(c, results)
    done.wall_s = round(time.monotonic() - t0, 1)
    return done


def fill_all(pairs: Sequence[Coverage], results: Path, jobs: int = 1, minutes: int | None = None) -> list[Done]:
    """Each incomplete pair filled in turn (one CLI version at a time unless --jobs), then the
    pinned versions inside the window of each pair complete by then; with `minutes`, nothing is
    begun after that long (the rest is left for the next run)."""
    out: dict[tuple[str, str], Done] = {}
    todo = [c for c in pairs if not c.complete]
    deadline = time.monotonic() + minutes * 60 if minutes else None
    for n, c in enumerate(todo, 1):
        if deadline is not None and time.monotonic() >= deadline:
            progress.say(f"atlas: {minutes} min spent, {len(todo) - n + 1} pair(s) left for the next run")
            return list(out.values())
        progress.say(f"atlas {n}/{len(todo)}: {c.agent} {c.recipe} over {c.window.first}..{c.window.last}")
        out[c.agent, c.recipe] = fill_pair(c, results, jobs)
    now = [d.after if (d := out.get((c.agent, c.recipe))) and d.after else c for c in pairs]
    pinned = [c for c in now if c.complete and c.pinned_inside]
    for n, c in enumerate(pinned, 1):
        if deadline is not None and time.monotonic() >= deadline:
            progress.say(f"atlas: {minutes} min spent, {len(pinned) - n + 1} pair(s)' pinned versions left for the next run")
            break
        progress.say(f"atlas pinned {n}/{len(pinned)}: {c.agent} {c.recipe} on {', '.join(c.pinned_inside)}")
        done = fill_pinned(c, results, jobs)
        if (c.agent, c.recipe) in out:
            first = out[c.agent, c.recipe]
            first.pinned += done.pinned
            first.after, first.wall_s = done.after, first.wall_s + done.wall_s
        else:
            out[c.agent, c.recipe] = done
    return list(out.values())


def exit_status(done: Sequence[Done], pairs: Sequence[Coverage]) -> int:
    """0 when every pair of the shard is complete now, 1 when one is not (a release could not
    run, a version was flaky, a control is missing)."""
    after = {(d.agent, d.recipe): d.after for d in done}
    left = [c for c in pairs if not (after.get((c.agent, c.recipe)) or c).complete]
    return Exit.HARNESS if left else Exit.OK


def done_json(d: Done) -> dict[str, Any]:
    skipped = skipped_of(d.filled) if d.filled else []
    skipped += [p for p in d.pinned + d.controls if p.skipped]
    return {
        "agent": d.agent,
        "recipe": d.recipe,
        "probes": d.probes,
        "wall_s": d.wall_s,
        "sampled": [p.version for p in d.filled.sampled] if d.filled else [],
        "bisections": [
            {"between": [b.candidates[0], b.candidates[-1]], "status": b.status, "probed": b.probed, "exact": b.exact}
            for b in (d.filled.searches if d.filled else [])
        ],
        "halved": [{"version": p.version, "ran": not p.skipped} for p in d.halved],
        "hinted": [p.version for p in d.hinted],
        "pinned": [p.version for p in d.pinned],
        "controls": [p.version for p in d.controls],
        "skipped": [{"version": p.version, "reason": p.reason} for p in skipped],
        "complete": bool(d.after and d.after.complete),
    }


def done_text(d: Done) -> str:
    a = d.after
    now = " | ".join(f"{s.value} {timeline.span(s)}" for s in a.segments) if a and a.segments else "no evidence"
    state = "complete" if a and a.complete else "not complete"
    lines = [f"{d.agent} {d.recipe}: {d.probes} probe(s) in {d.wall_s:.0f}s; {state}: {now}"]
    for b in d.filled.searches if d.filled else []:
        got = f"{b.before.version} | {b.after.version}" if b.status == "boundary" and b.before and b.after else b.status
        lines.append(f"  bisected {b.candidates[0]}..{b.candidates[-1]}: {got} ({len(b.probed)} probed)")
    if d.hinted:
        lines.append(f"  probed where other recipes change: {', '.join(p.version for p in d.hinted)}")
    if d.halved:
        said = ", ".join(f"{p.version} {'could not run' if p.skipped else 'ran'}" for p in d.halved)
        lines.append(f"  halved an end stretch: {said}")
    for p in (skipped_of(d.filled) if d.filled else []) + [p for p in d.pinned + d.controls if p.skipped]:
        lines.append(f"  skipped {p.version}: {p.reason}")
    return "\n".join(lines)
