"""A recipe's verdicts on one agent as ranges of versions (`denied 1.0.71-1.0.92 | allowed
1.0.102`): the segments and boundaries of timeline.py, each shown with its label, key
observation (a timing as its spread) and claim marks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from probes.classify import CLASSIFIERS
from probes.evidence.claims import applies_recorded, verdict_of
from probes.evidence.load import Cell, grouped
from probes.report.cells import MARKS, Classifiers, Known, control_mark, key_observation
from probes.report.timeline import Boundary, Segment, build, candidates_of, read_snapshot, span


def known_candidates(results: Path, agents: Sequence[str]) -> dict[str, list[str] | None]:
    """Each agent's candidate releases from its committed registry snapshot (timeline.py);
    None where there is none: then no boundary is called exact."""
    out: dict[str, list[str] | None] = {}
    for agent in agents:
        snap = read_snapshot(results, agent)
        out[agent] = candidates_of(snap) if snap is not None else None
    return out


def timing_key(classifier: str | None) -> str | None:
    registered = CLASSIFIERS.get(classifier or "")
    key = registered.key if registered else None
    return key if key and key.endswith("_s") else None


def steady_text(cell: Cell, classifier: str | None) -> str:
    """A cell's label and key observation, without a timing (timings move on every run) or
    claim marks (a claim naming later versions is no change of verdict): equal texts make a range."""
    key = "" if timing_key(classifier) else key_observation(cell.record, classifier)
    return " ".join(p for p in (cell.label, control_mark(cell), key) if p)


def range_marks(cells: list[Cell]) -> str:
    """A mark per claim over a range: each verdict the claim got on the versions of the range
    it names (`✓`, or `✓/?` where they differ), numbered as claim_marks numbers them."""
    several = max(len(c.record.claims) for c in cells) > 1
    out = []
    for n in range(max(len(c.record.claims) for c in cells)):
        got = {verdict_of(c.record.claims[n]) for c in cells if len(c.record.claims) > n and applies_recorded(c.record.claims[n])}
        if got:
            out.append("/".join(MARKS[v] for v in MARKS if v in got) + (str(n + 1) if several else ""))
    return " ".join(out)


def timing_spread(cells: list[Cell], classifier: str | None) -> str:
    """The key timing over a range's cells: `3.0s`, or `3.0-3.2s` when they differ."""
    key = timing_key(classifier)
    values = [v for c in cells if isinstance(v := c.record.observations.get(key or ""), (int, float))]
    if not key or not values:
        return ""
    lo, hi = f"{min(values):.1f}", f"{max(values):.1f}"
    return f"{lo}s" if lo == hi else f"{lo}-{hi}s"


@dataclass(frozen=True)
class Stretch:
    """One segment of a recipe's timeline as shown: its cells and its text."""

    segment: Segment
    cells: list[Cell]  # one per probed version, ascending
    text: str  # label, key observation (a timing as its spread), claim marks


@dataclass(frozen=True)
class Line:
    """One recipe's verdicts on one agent, as ranges of versions."""

    agent: str
    recipe: str
    stretches: list[Stretch]
    boundaries: list[Boundary]  # boundaries[i] lies between stretches[i] and stretches[i + 1]


def line(cells: list[Cell], agent: str, recipe: str, classifier: str | None, candidates: Sequence[str] | None) -> Line:
    mine = {c.version: c for c in cells if c.agent == agent and c.recipe == recipe}
    segments, boundaries = build({v: steady_text(c, classifier) for v, c in mine.items()}, candidates)
    stretches = []
    for s in segments:
        cs = [mine[v] for v in s.probed]
        parts = (s.value, timing_spread(cs, classifier), range_marks(cs))
        stretches.append(Stretch(s, cs, " ".join(p for p in parts if p)))
    return Line(agent, recipe, stretches, boundaries)


EXACT, OPEN = " | ", " … "  # between two ranges: no release between them / unprobed releases between

RANGES_NOTE = (
    "Each cell is a recipe's verdicts as ranges of probed versions, oldest first: `denied 1.0.71-1.0.92 | "
    "allowed 1.0.102`. `|` is an exact boundary (no published release lies between the two versions); "
    "`…` an open one (releases between them were not probed: `probe bisect` finds the change). A range "
    "covers its first and last probed versions; a timing is shown as its spread over the range. "
    "Per version: `probe table --grid`."
)


def line_text(ln: Line) -> str:
    out = ""
    for n, st in enumerate(ln.stretches):
        if n:
            out += EXACT if ln.boundaries[n - 1].exact else OPEN
        out += f"{st.text} {span(st.segment)}"
    return out


def ranges(cells: list[Cell], agents: list[str], classifiers: Classifiers, known: Known) -> list[list[str]]:
    """One row per recipe, one column per agent (empty where it was not probed)."""
    rows = []
    by = grouped(cells)
    for recipe in sorted({c.recipe for c in cells}):
        texts = [line_text(line(by.get((a, recipe), []), a, recipe, classifiers.get(recipe), known.get(a))) for a in agents]
        rows.append([recipe, *(t.replace("|", "\\|") for t in texts)])
    return rows
