"""The search of `probe bisect`, pure: given candidate versions (ascending) and a function that
probes some of them, find two adjacent candidates whose verdicts differ, probing at most
ceil(log2(n)) + 2 distinct versions for n candidates with one job.

Nothing here installs or runs a CLI (probes/sweep/bisect.py does), so the search is tested
against recorded verdicts. A probe returns a Point: a verdict, or skipped with a reason (it
could not install or run: the search goes on around it), or flaky (its repeats disagreed:
the search stops there, with the interval it lies in)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["boundary", "agree", "flaky", "failed"]


@dataclass(frozen=True)
class Point:
    version: str
    value: str | None = None  # the verdict compared (outcome, or an observation as compact JSON); None: skipped
    outcome: str | None = None  # the outcome label of the last run
    reason: str | None = None  # why it was skipped
    values: tuple[str, ...] = ()  # every run's verdict when the repeats disagreed (flaky)
    evidence: str | None = None  # where its record was written
    # what a skip speaks for: the release (it did not install or start, another version ran) or
    # this recipe alone (its session ended before it said what ran: an interactive session not
    # driven, a hook that cancels --worktree; its control, in the same session mode, may fail alike)
    scope: Literal["release", "recipe"] = "release"

    @property
    def skipped(self) -> bool:
        return self.value is None and not self.values

    @property
    def flaky(self) -> bool:
        return len(set(self.values)) > 1


Probe = Callable[[list[str]], list[Point]]  # probes versions (at once, as it can), in the order given
Prefetch = Callable[[list[str]], None]  # versions the next round may probe: install them meanwhile


@dataclass
class Bisection:
    candidates: list[str]
    status: Status = "failed"
    probed: list[str] = field(default_factory=list)  # in probe order (known points not included)
    points: dict[str, Point] = field(default_factory=dict)
    before: Point | None = None
    after: Point | None = None
    exact: bool = False  # no candidate lies between before and after
    flaky: Point | None = None
    interval: tuple[str, str] | None = None  # where the flaky version lies (its verdicted neighbours)
    reason: str | None = None  # why it failed

    @property
    def skipped(self) -> list[Point]:
        return [p for v, p in self.points.items() if p.skipped and v in self.probed]


def picks(inner: Sequence[str], k: int) -> list[str]:
    """k versions splitting `inner` (the unprobed candidates strictly inside an interval) into
    k + 1 parts as equal as they can be: for k = 1 the middle, so each round halves."""
    n = len(inner)
    k = min(k, n)
    chosen = {(n + 1) * j // (k + 1) - 1 for j in range(1, k + 1)}
    return [inner[i] for i in sorted(chosen) if 0 <= i < n]


def search(
    candidates: Sequence[str],
    probe: Probe,
    jobs: int = 1,
    prefetch: Prefetch | None = None,
    known: Mapping[str, Point] | None = None,
) -> Bisection:
    """Probe the ends (candidates[0], candidates[-1]; a `known` point is not probed again),
    then k-sect (k = jobs) the first interval whose ends differ, until no candidate that can
    run lies inside it."""
    order = list(candidates)
    b = Bisection(order)
    if len(order) < 2:
        b.reason = "fewer than two candidates"
        return b
    b.points.update({v: p for v, p in (known or {}).items() if v in order})

    def run(versions: list[str]) -> bool:
        """Probe `versions`; False when one is flaky (the search stops)."""
        todo = [v for v in versions if v not in b.points]
        if todo:
            b.probed += todo
            for p in probe(todo):
                b.points[p.version] = p
        for v in versions:
            if b.points[v].flaky:
                b.status, b.flaky = "flaky", b.points[v]
                b.interval = neighbours(v)
                return False
        return True

    def neighbours(v: str) -> tuple[str, str]:
        i = order.index(v)
        below = [u for u in order[:i] if u in b.points and b.points[u].value is not None]
        above = [u for u in order[i + 1 :] if u in b.points and b.points[u].value is not None]
        return (below[-1] if below else order[0], above[0] if above else order[-1])

    lo, hi = order[0], order[-1]
    if not run([lo, hi]):
        return b
    for end in (lo, hi):
        if b.points[end].skipped:
            b.reason = f"{end} could not run: {b.points[end].reason}"
            return b
    if b.points[lo].value == b.points[hi].value:
        b.status = "agree"
        b.before, b.after = b.points[lo], b.points[hi]
        return b
    while True:
        lo, hi = first_change(order, b.points, lo, hi)
        inner = [v for v in order[order.index(lo) + 1 : order.index(hi)] if v not in b.points]
        if not inner:
            b.status, b.before, b.after = "boundary", b.points[lo], b.points[hi]
            b.exact = order.index(hi) == order.index(lo) + 1
            return b
        batch = picks(inner, jobs)
        if prefetch:
            prefetch(ahead(order, b.points, lo, hi, batch, jobs))
        if not run(batch):
            return b


def first_change(order: list[str], points: Mapping[str, Point], lo: str, hi: str) -> tuple[str, str]:
    """The first two adjacent verdicted points from lo to hi whose verdicts differ (lo's and
    hi's do, so there is one; skipped points are passed over)."""
    seen = [v for v in order[order.index(lo) : order.index(hi) + 1] if v in points and points[v].value is not None]
    for a, c in zip(seen, seen[1:], strict=False):
        if points[a].value != points[c].value:
            return a, c
    raise AssertionError("the ends of an interval differ, so some adjacent pair does")


def ahead(order: list[str], points: Mapping[str, Point], lo: str, hi: str, batch: list[str], jobs: int) -> list[str]:
    """What the round after `batch` may probe, whichever way its verdicts fall: the picks of
    each part `batch` cuts the interval into (at most 2 * jobs + 2 versions, nearest parts' first)."""
    cuts = [lo, *batch, hi]
    parts = []
    for a, c in zip(cuts, cuts[1:], strict=False):
        inner = [v for v in order[order.index(a) + 1 : order.index(c)] if v not in points and v not in batch]
        parts.append(picks(inner, jobs))
    out: list[str] = []
    for i in range(max((len(p) for p in parts), default=0)):  # round-robin across parts
        out += [p[i] for p in parts if i < len(p)]
    return out[: 2 * jobs + 2]


# ---------------------------------------------------------------- output


def point_json(p: Point | None, observation: str | None) -> dict[str, Any] | None:
    """{"version", "outcome", "value"}: value is the observation's value, or the outcome without one."""
    if p is None:
        return None
    value: Any = json.loads(p.value) if observation is not None and p.value is not None else p.value
    return {"version": p.version, "outcome": p.outcome, "value": value, "evidence": p.evidence}


def last_words(text: str, limit: int = 160) -> str:
    """A CLI's first `Error` line, else its last (Copilot 0.0.423: "Error: No authentication ...")."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    error = next((ln for ln in lines if ln.lower().startswith("error")), None)
    return (error or (lines[-1] if lines else ""))[:limit]
