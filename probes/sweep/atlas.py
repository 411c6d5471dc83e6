"""The atlas's coverage, offline (`probe atlas --check`; the filling: atlas_fill.py): for each
(agent, non-control recipe), what the committed evidence says over the agent's window
(catalog/windows.py) and what is missing for the timeline to be complete there: an open
boundary (two adjacent probed versions with different verdicts and unprobed releases of the
window between them), an unprobed stretch at either end, a probed version whose control has
no record, a pinned version outside the window not probed (one inside it is answered by its
range, and probed after every pair is complete: `pinned_inside`). Segments and boundaries are the timeline's
(report/timeline.py build); nothing here probes."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from probes.catalog.recipes import Recipe
from probes.catalog.windows import Span, Window, span
from probes.errors import InputError
from probes.evidence import unrunnable
from probes.evidence.load import Cell, load
from probes.report import colours, timeline
from probes.versions.spec import semver_key

WIDE = 3  # subjects whose recipes change at one version: the CLI changed there, every recipe is asked


@dataclass(frozen=True)
class Open:
    before: str  # the last probed version before the change
    after: str  # the first probed version after it
    between: list[str]  # the window's releases between them, none probed


@dataclass(frozen=True)
class Coverage:
    agent: str
    recipe: str
    control: str | None
    window: Span
    segments: list[timeline.Segment]  # over the window's releases only
    boundaries: list[timeline.Boundary]
    opened: list[Open]  # the boundaries that are not exact, with the releases between
    head: list[str]  # the window's releases before its first probed one (all of them when none is)
    tail: list[str]  # those after its last probed one
    control_missing: list[str]  # probed versions of the window whose control has no record
    pinned_unprobed: list[str]  # pinned versions with no record of the recipe
    pinned_unserved: list[str]  # pinned versions the registry snapshot does not serve: never probed
    cannot_run: dict[str, str] = field(default_factory=dict)  # unprobed releases of the window that could not run: reason
    closed: list[Open] = field(default_factory=list)  # boundaries with only releases that cannot run between
    hints: list[str] = field(default_factory=list)  # where another recipe changes, not probed here (changes_elsewhere)

    @property
    def probed(self) -> list[str]:
        return [v for s in self.segments for v in s.probed]

    @property
    def pinned_outside(self) -> list[str]:
        """The unprobed pinned versions the window's releases do not hold: only a probe answers them."""
        return [p for p in self.pinned_unprobed if p not in self.window.releases]

    @property
    def pinned_inside(self) -> list[str]:
        """The unprobed pinned versions inside the window: its range answers them until probed."""
        return [p for p in self.pinned_unprobed if p in self.window.releases]

    @property
    def complete(self) -> bool:
        return not (self.opened or self.head or self.tail or self.control_missing or self.pinned_outside or self.hints)

    @property
    def probes_needed(self) -> int:
        """At least this many probes complete it (its control counted on each version): an end
        and a pinned version one each, an open boundary log2 of its releases, more where an end
        differs from its neighbour (then its stretch is bisected too)."""
        per = 2 if self.control else 1
        halving = sum(math.ceil(math.log2(len(o.between) + 1)) for o in self.opened)
        ends = bool(self.head) + bool(self.tail)
        return per * (halving + ends + len(self.pinned_outside) + len(self.hints)) + len(self.control_missing)

    @property
    def pinned_probes(self) -> int:
        """The probes that the pinned versions inside the window take (with the control)."""
        return (2 if self.control else 1) * len(self.pinned_inside)


def non_control(recipes: Mapping[str, Recipe], agent: str, recipe: str | None = None, core: bool = False) -> list[str]:
    """The recipes the atlas covers on `agent`: those that run on it and are no control
    (with `core`, the core ones only)."""
    out = [
        n
        for n, r in sorted(recipes.items())
        if agent in r.agents and r.control_of is None and (recipe is None or n == recipe) and (not core or r.core)
    ]
    return out


def coverage(
    cells: Sequence[Cell],
    agent: str,
    recipe: str,
    control: str | None,
    window: Span,
    snapshot: Sequence[str],
    unrunnable: Mapping[str, str] | None = None,
) -> Coverage:
    """One recipe's coverage over `window` from its cells (one agent's; other recipes' are
    passed over) and the registry snapshot (which releases exist). A release in `unrunnable`
    (evidence/unrunnable.py) leaves no gap: a boundary whose releases between begin and end
    with such releases is closed, an end stretch that does is no stretch (the releases inside
    are listed as cannot-run, like those ends)."""
    lost = unrunnable or {}
    mine = [c for c in cells if c.agent == agent and c.recipe == recipe]
    inside = set(window.releases)
    points = timeline.points_from(mine)
    segments, bounds = timeline.build({v: p for v, p in points.items() if v in inside}, timeline.candidates_of(snapshot))
    gaps = [Open(b.before, b.after, timeline.between(b.before, b.after, window.releases)) for b in bounds if not b.exact]
    probed = [v for s in segments for v in s.probed]
    key = semver_key
    head = [v for v in window.releases if not probed or key(v) < key(probed[0])]
    tail = [v for v in window.releases if probed and key(v) > key(probed[-1])]
    inferred: dict[str, str] = {}
    for vs in [head, tail, *(o.between for o in gaps)]:
        if taken_not_to_run(vs, lost):
            inferred |= {v: f"like {vs[0]} and {vs[-1]}, which could not run" for v in vs if v not in lost}
    opened = [o for o in gaps if not taken_not_to_run(o.between, lost)]
    head, tail = ([] if taken_not_to_run(vs, lost) else vs for vs in (head, tail))
    listed = {**inferred, **lost}
    served = set(snapshot)
    return Coverage(
        agent,
        recipe,
        control,
        window,
        segments,
        bounds,
        opened,
        head,
        tail,
        sorted({c.version for c in mine if c.control_missing and c.version in points and c.version in inside}, key=key),
        [p for p in window.pinned if p in served and p not in points and p not in lost],
        [p for p in window.pinned if p not in served],
        {v: listed[v] for v in window.releases + window.pinned if v in listed and v not in points},
        [o for o in gaps if o not in opened],
    )


def taken_not_to_run(stretch: Sequence[str], lost: Mapping[str, str]) -> bool:
    """Whether an unprobed stretch of releases is taken not to run: its first and last releases
    could not (as a timeline takes the releases between two probed ends with one verdict to
    share it: the atlas samples and bisects, it never probes every release)."""
    return bool(stretch) and stretch[0] in lost and stretch[-1] in lost


@dataclass
class AgentCoverage:
    agent: str
    window: Span
    recipes: list[Coverage] = field(default_factory=list)

    @property
    def complete(self) -> int:
        return sum(c.complete for c in self.recipes)

    @property
    def open_boundaries(self) -> int:
        return sum(len(c.opened) for c in self.recipes)

    @property
    def probes_needed(self) -> int:
        return sum(c.probes_needed for c in self.recipes)

    @property
    def pinned_probes(self) -> int:
        return sum(c.pinned_probes for c in self.recipes)


def check(
    results: Path,
    windows: Mapping[str, Window],
    recipes: Mapping[str, Recipe],
    agents: Sequence[str],
    recipe: str | None = None,
    core: bool = False,
    lo: str | None = None,
    hi: str | None = None,
    snapshots: Mapping[str, list[str]] | None = None,
) -> list[AgentCoverage]:
    """Each agent's coverage over its window (narrowed to lo..hi when given), offline; with
    `snapshots`, an agent's releases as given (the nightly's plan: the registry now) instead of
    its committed snapshot."""
    out = []
    for agent in agents:
        snapshot = (snapshots or {}).get(agent) or timeline.read_snapshot(results, agent)
        if snapshot is None:
            raise InputError(
                f"no registry snapshot results/{agent}/versions.json: `probe versions {agent}` shows the releases, "
                f"`probe timeline {agent} RECIPE --fill` writes it"
            )
        win = span(agent, windows[agent], snapshot, lo, hi)
        names = non_control(recipes, agent, recipe, core)
        every = non_control(recipes, agent) if names else []  # the hints come from every recipe, whatever is asked
        cells = load(results, agent) if names else []
        found = []
        own = {name: unrunnable.read(results, agent, name) for name in every}  # the releases', and the recipe's own
        for name in every:
            found.append(coverage(cells, agent, name, recipes[name].control_for(agent), win, snapshot, own[name]))
        wanted = hinted(changed_at(found), {n: recipes[n].subject_event() for n in every})
        got = AgentCoverage(agent, win)
        # a hint where the recipe cannot run is none: its fill skips it (Claude Code's hang-setup before 2.1.128)
        got.recipes = [with_hints(c, wanted[c.recipe], own[c.recipe]) for c in found if c.recipe in names]
        out.append(got)
    return out


def changed_at(found: Sequence[Coverage]) -> dict[str, set[str]]:
    """recipe -> both sides of each of its exact boundaries between two verdicts. A side the
    harness could not decide (`could-not-drive`, `no-server`) or whose repeats disagree is no
    change of the CLI to look for in other recipes: Copilot's interactive sessions on a loaded
    machine flipped so between adjacent releases, and each such flip would add two probes to
    every other recipe."""
    out = {}
    for c in found:
        sides = zip(c.segments, c.segments[1:], strict=False)  # a boundary lies between two segments
        out[c.recipe] = {
            v
            for b, (lo, hi) in zip(c.boundaries, sides, strict=True)
            if b.exact and decided(lo.value) and decided(hi.value)
            for v in (b.before, b.after)
        }
    return out


def decided(label: str) -> bool:
    """A verdict of the CLI: not the harness's could-not-decide, not a spread of repeats."""
    return label not in colours.LABELS["error"] and not colours.FLAKY.fullmatch(label)


def hinted(changes: Mapping[str, set[str]], subjects: Mapping[str, str | None]) -> dict[str, set[str]]:
    """recipe -> the versions where the agent's other recipes change that it must probe too:
    those of recipes with its subject (the event under test), and every change seen by recipes
    of WIDE subjects or more, which is the CLI's rather than one event's (Codex 0.129.0-0.140.0
    ran no hook at all: every subject changes there). Asking every recipe at every change made
    each new boundary cost two probes of each other recipe (Claude Code: 8,419 hints)."""
    seen: dict[str, set[str | None]] = {}
    for r, vs in changes.items():
        for v in vs:
            seen.setdefault(v, set()).add(subjects[r])
    wide = {v for v, by in seen.items() if len(by) >= WIDE}
    return {r: wide | {v for o, vs in changes.items() if o != r and subjects[o] == subjects[r] for v in vs} for r in changes}


def with_hints(c: Coverage, wanted: set[str], lost: Mapping[str, str]) -> Coverage:
    """`c` with the versions `hinted` asks of it, inside the window, that it has not probed:
    sampling and bisecting see a change only where two probes differ (Codex 0.129.0-0.140.0
    runs no hook at all, between two probes of hang-pretool that both failed open; only
    payload-pretool had probed inside)."""
    mine, inside = set(c.probed), set(c.window.releases)
    hints = sorted((v for v in wanted if v in inside and v not in mine and v not in lost), key=semver_key)
    return replace(c, hints=hints)


# ---------------------------------------------------------------- output


def stretch(vs: Sequence[str]) -> str:
    return "" if not vs else vs[0] if len(vs) == 1 else f"{vs[0]}-{vs[-1]} ({len(vs)})"


def recipe_json(c: Coverage) -> dict[str, Any]:
    return {
        "recipe": c.recipe,
        "control": c.control,
        "complete": c.complete,
        "probed": c.probed,
        "segments": [{"outcome": s.value, "from": s.first, "to": s.last, "probed": s.probed} for s in c.segments],
        "boundaries": [{"before": b.before, "after": b.after, "exact": b.exact} for b in c.boundaries],
        "open_boundaries": [{"before": o.before, "after": o.after, "between": o.between} for o in c.opened],
        "unprobed_head": c.head,
        "unprobed_tail": c.tail,
        "control_missing": c.control_missing,
        "pinned_unprobed": c.pinned_unprobed,
        "pinned_unserved": c.pinned_unserved,
        "cannot_run": [{"version": v, "reason": r} for v, r in c.cannot_run.items()],
        "unprobed_hints": c.hints,
        "closed_by_unrunnable": [{"before": o.before, "after": o.after, "between": o.between} for o in c.closed],
        "probes_needed": c.probes_needed,
        "pinned_probes": c.pinned_probes,
    }


def as_json(found: Sequence[AgentCoverage]) -> dict[str, Any]:
    return {
        "complete": all(c.complete for a in found for c in a.recipes),
        "agents": [
            {
                "agent": a.agent,
                "window": {
                    "from": a.window.first,
                    "to": a.window.last,
                    "releases": len(a.window.releases),
                    "pinned": a.window.pinned,
                },
                "summary": {
                    "recipes": len(a.recipes),
                    "complete": a.complete,
                    "open_boundaries": a.open_boundaries,
                    "probes_needed": a.probes_needed,
                    "pinned_probes": a.pinned_probes,
                },
                "recipes": [recipe_json(c) for c in a.recipes],
            }
            for a in found
        ],
    }


def recipe_text(c: Coverage) -> str:
    """`exit2-pretool: denied 1.0.71-1.0.102 (4 probed); open 1.0.80..1.0.92 (11 between); ...`"""
    if c.complete:
        pinned = f"; {len(c.pinned_inside)} pinned unprobed, answered by range" if c.pinned_inside else ""
        return f"  {c.recipe}: complete ({len(c.probed)} probed, {len(c.segments)} segment(s){pinned})"
    parts = [
        " | ".join(f"{s.value} {timeline.span(s)}" for s in c.segments) + f" ({len(c.probed)} probed)"
        if c.segments
        else "no evidence"
    ]
    parts += [f"open {o.before}..{o.after} ({len(o.between)} between)" for o in c.opened]
    if c.head:
        parts.append(f"unprobed start {stretch(c.head)}")
    if c.hints:
        parts.append(f"unprobed where other recipes change: {', '.join(c.hints)}")
    if c.tail:
        parts.append(f"unprobed end {stretch(c.tail)}")
    if c.control_missing:
        parts.append(f"no control {c.control} on {', '.join(c.control_missing)}")
    if c.pinned_unprobed:
        few = c.pinned_unprobed if len(c.pinned_unprobed) <= 3 else [*c.pinned_unprobed[:3], "..."]
        parts.append(f"{len(c.pinned_unprobed)} pinned unprobed ({', '.join(few)})")
    return f"  {c.recipe}: " + "; ".join(parts) + f"; needs >= {c.probes_needed} probe(s)"


def summary_text(a: AgentCoverage) -> str:
    w = a.window
    unserved = sorted({p for c in a.recipes for p in c.pinned_unserved}, key=semver_key)
    note = f"; pinned but not served (never probed): {', '.join(unserved)}" if unserved else ""
    return (
        f"{a.agent}: window {w.first}-{w.last} ({len(w.releases)} releases, {len(w.pinned)} pinned): "
        f"{a.complete}/{len(a.recipes)} recipes complete, {a.open_boundaries} open boundaries, "
        f"about {a.probes_needed} probes needed{note}"
        + (f"; {a.pinned_probes} more for the pinned versions their ranges answer" if a.pinned_probes else "")
    )


def text(found: Sequence[AgentCoverage], every: bool = False) -> str:
    """Per agent: each incomplete recipe (each recipe with `every`), then its summary line."""
    lines = []
    for a in found:
        lines += [recipe_text(c) for c in a.recipes if every or not c.complete]
        lost = {v: r for c in a.recipes for v, r in c.cannot_run.items()}
        lines += [f"  cannot run {v}: {lost[v]}" for v in sorted(lost, key=semver_key)]
        lines.append(summary_text(a))
    return "\n".join(lines)
