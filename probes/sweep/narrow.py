"""The nightly's bisect: when `probe bump` finds a verdict changed between two versions with
unprobed releases between them, the search (bisect.py) narrows the change to the release
that made it before the report is written, so the report names that release. The recipe's
control is probed on every version probed and on both versions of the boundary."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probes.agents import get as get_agent
from probes.report import timeline
from probes.sweep.bisect import Control, Runner, controls, probed_points
from probes.sweep.search import Point, search
from probes.versions import spec


@dataclass
class Narrowed:
    """One recipe's change between two compared versions, narrowed."""

    recipe: str
    compared: tuple[str, str]  # the versions the bump compared
    status: str  # boundary, flaky or failed (bisect.Status)
    before: str | None = None  # the last release with the old verdict
    after: str | None = None  # the first with the new one
    exact: bool = False
    probed: list[str] = field(default_factory=list)
    skipped: list[dict[str, str | None]] = field(default_factory=list)
    controls: list[Control] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "recipe": self.recipe,
            "compared": list(self.compared),
            "status": self.status,
            "before": self.before,
            "after": self.after,
            "exact": self.exact,
            "probed": self.probed,
            "skipped": self.skipped,
            "controls": [
                {"version": c.version, "recipe": c.recipe, "outcome": c.outcome, "earned": c.earned} for c in self.controls
            ],
        }

    def text(self) -> str:
        """What the report's "changed in" column says."""
        if self.status != "boundary" or not self.after:
            return f"not narrowed ({self.status})"
        if not self.probed and self.exact:
            return f"{self.after} (the release after {self.before})"
        how = "exact" if self.exact else f"open: after {self.before}"
        unearned = [c.version for c in self.controls if c.earned is False]
        note = f"; its control gives the same label on {', '.join(unearned)}" if unearned else ""
        return f"{self.after} ({how}, bisected in {len(self.probed)} probe(s){note})"


def releases_between(agent: str, before: str, after: str, results: Path, prereleases: bool = False) -> list[str]:
    """The published candidates strictly between two versions (the registry's list is kept
    as the snapshot, timeline.py)."""
    pub = spec.published(get_agent(agent).package)
    timeline.write_snapshot(results, agent, pub)
    return timeline.between(before, after, timeline.candidates_of(pub.versions, prereleases))


def narrow(
    agent: str,
    before: str,
    after: str,
    recipes: list[str],
    results: Path,
    jobs: int = 1,
    prereleases: bool = False,
    releases: list[str] | None = None,
) -> list[Narrowed]:
    """Bisect each of `recipes` (whose outcome differs between `before` and `after`, both in
    the evidence) over the releases between them (none: the change is the later one's); the
    registry is asked for them unless `releases` says them (the nightly's plan)."""
    if releases is None:
        inner = releases_between(agent, before, after, results, prereleases)
    else:
        inner = timeline.between(before, after, timeline.candidates_of(releases, prereleases))
    if not inner:  # the compared versions are adjacent releases: nothing to bisect
        return [Narrowed(r, (before, after), "boundary", before, after, True) for r in recipes]
    found = []
    for recipe in recipes:
        known = {
            v: Point(v, outcome, outcome) for v in (before, after) if (outcome := _outcome(results, agent, v, recipe)) is not None
        }
        with Runner(get_agent(agent), recipe, results, jobs) as runner:
            b = search([before, *inner, after], runner.probe, jobs, runner.prefetch, known)
            checks = controls(runner, recipe, probed_points(b))
        found.append(
            Narrowed(
                recipe,
                (before, after),
                b.status,
                b.before.version if b.before else None,
                b.after.version if b.after else None,
                b.exact,
                b.probed,
                [{"version": p.version, "reason": p.reason} for p in b.skipped],
                checks,
            )
        )
    return found


def _outcome(results: Path, agent: str, version: str, recipe: str) -> str | None:
    points = timeline.points_of(results, agent, recipe)
    return points.get(version)
