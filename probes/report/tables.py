"""Committed evidence as tables (Markdown, JSON, HTML), diffs between versions, and
citations for ADRs. Everything here reads results/ and is byte-stable: the same evidence
gives the same output."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NotRequired, TypedDict

from tabulate import tabulate

from probes.classify import CLASSIFIERS
from probes.errors import InputError
from probes.evidence.claims import applies_recorded, verdict_of
from probes.evidence.model import Evidence, load_evidence, write_atomic
from probes.evidence.store import Blobs
from probes.limits import warn
from probes.report.legend import CLAIM_HEADERS, MARKS, claim_marks, claims_list, legend
from probes.report.timeline import Boundary, Segment, build, candidates_of, read_snapshot, span
from probes.versions.spec import semver_key

Classifiers = Mapping[str, str]  # recipe -> the name of its classifier
Pairs = Mapping[str, str]  # extension recipe -> the command-hook recipe asking its question
Known = Mapping[str, Sequence[str] | None]  # agent -> the candidate releases (timeline.py), None: unknown


@dataclass(frozen=True)
class Cell:
    agent: str
    version: str
    recipe: str
    path: Path
    record: Evidence
    same_as_control: bool = False  # its control got the same label on this version: not earned

    @property
    def label(self) -> str:
        runs = self.record.repeats or {}
        outcomes: dict[str, int] = runs.get("outcomes") or {self.record.outcome: 1}
        if len(outcomes) > 1:  # a flaky cell shows the spread of labels seen
            return " / ".join(f"{o}×{n}" for o, n in sorted(outcomes.items()))
        return self.record.outcome


def load(
    results: Path,
    agent: str | None = None,
    recipe: str | None = None,
    version: str | None = None,
    strict: bool = False,
    skipped: list[str] | None = None,
) -> list[Cell]:
    """The evidence in `results`. A file that is not an evidence record is skipped with a
    warning naming it (the rest still renders; into `skipped` instead, when given), or
    refused when `strict`."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    cells: list[Cell] = []
    blobs = Blobs()  # a blob many records refer to is read once
    for path in sorted(results.glob("*/*/*.json")):
        a, v, r = path.parts[-3], path.parts[-2], path.stem
        if (agent and a != agent) or (recipe and r != recipe) or (version and v != version):
            continue
        try:
            cells.append(Cell(a, v, r, path, Evidence.model_validate(load_evidence(path, blobs=blobs))))
        except InputError as e:
            if strict:
                raise
            if skipped is None:
                warn(f"skipping {e}")
            else:
                skipped.append(str(e))
    return mark_unearned(cells, blobs)


UNEARNED = "=ctl"  # beside a label its control shares


def mark_unearned(cells: list[Cell], blobs: Blobs) -> list[Cell]:
    """Flag each cell whose control recipe got the same label on the same agent and version:
    that verdict measures nothing (the hook's answer was ignored, or the run could not tell).
    A control outside the loaded cells (a `--recipe` table) is read from beside the record."""
    outcome = {(c.agent, c.version, c.recipe): c.record.outcome for c in cells}
    out = []
    for c in cells:
        control = c.record.control
        key = (c.agent, c.version, control or "")
        if control and key not in outcome and (c.path.parent / f"{control}.json").is_file():
            try:
                outcome[key] = Evidence.model_validate(load_evidence(c.path.parent / f"{control}.json", blobs=blobs)).outcome
            except InputError:
                pass  # a corrupt control is warned about when it is itself loaded
        out.append(replace(c, same_as_control=True) if control and outcome.get(key) == c.record.outcome else c)
    return out


def versions_of(cells: list[Cell], agent: str) -> list[str]:
    return sorted({c.version for c in cells if c.agent == agent}, key=semver_key)


def key_observation(record: Evidence, classifier: str | None) -> str:
    """The value of the observation the classifier names as its key, shown beside the label."""
    registered = CLASSIFIERS.get(classifier or "")
    name = registered.key if registered else None
    value = record.observations.get(name) if name else None
    if name is None or value is None or value == {} or value == []:
        return ""
    if name.endswith("_s") and isinstance(value, (int, float)):
        return f"{value:.1f}s"
    if isinstance(value, bool):
        return name.split("_")[0] + (" yes" if value else " no")
    if isinstance(value, dict):  # context_location: {word: [roles]} (anything else shown as found)
        roles = sorted({str(r) for rs in value.values() for r in (rs if isinstance(rs, list) else [rs])})
        return ",".join(roles)
    return str(value)


def cell_text(cell: Cell, classifier: str | None) -> str:
    parts = [
        cell.label,
        UNEARNED if cell.same_as_control else "",
        key_observation(cell.record, classifier),
        claim_marks(cell.record),
    ]
    return " ".join(p for p in parts if p)


def matrix(cells: list[Cell], agent: str, classifiers: Classifiers) -> tuple[list[str], list[list[str]]]:
    """Recipes as rows, versions as columns, for one agent (`--grid`)."""
    versions = versions_of(cells, agent)
    by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
    rows = []
    for recipe in sorted({c.recipe for c in cells if c.agent == agent}):
        rows.append([recipe, *[cell_text(by[recipe, v], classifiers.get(recipe)) if (recipe, v) in by else "" for v in versions]])
    return versions, rows


# ---------------------------------------------------------------- ranges


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
    return " ".join(p for p in (cell.label, UNEARNED if cell.same_as_control else "", key) if p)


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


def grouped(cells: list[Cell]) -> dict[tuple[str, str], list[Cell]]:
    """Cells by (agent, recipe): each line reads its own, not all (hundreds of versions)."""
    by: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        by.setdefault((c.agent, c.recipe), []).append(c)
    return by


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


def markdown(
    cells: list[Cell], classifiers: Classifiers, pairs: Pairs | None = None, known: Known | None = None, grid: bool = False
) -> str:
    """Recipes as ranges per agent (or, `grid`, recipes x versions per agent), each agent's
    two-surface comparison and claims, and the legend."""
    agents = sorted({c.agent for c in cells})
    out = []
    if not grid and cells:
        heads = [f"{a} ({len(versions_of(cells, a))} versions)" for a in agents]
        rows = ranges(cells, agents, classifiers, known or {})
        out.append(
            "## Recipes by version range\n\n"
            + RANGES_NOTE
            + "\n\n"
            + tabulate(rows, headers=["recipe", *heads], tablefmt="github")
            + "\n"
        )
    for agent in agents:
        if grid:
            versions, rows = matrix(cells, agent, classifiers)
            out.append(f"## {agent}\n\n" + tabulate(rows, headers=["recipe", *versions], tablefmt="github") + "\n")
        side = surfaces(cells, agent, pairs or {}, classifiers, None if grid else (known or {}).get(agent, None), grid)
        if side:
            heads = ["version", "command", "extension"] if grid else ["command", "extension"]
            out.append(
                f"### {agent}: one question, two surfaces (command hook, extension handler)\n\n"
                + tabulate(side, headers=["command hook", "extension", *heads], tablefmt="github")
                + "\n"
            )
        claims = [[cell.replace("|", "\\|") for cell in row] for row in claims_list(cells, agent)]
        if claims:
            out.append(f"### {agent}: claims\n\n" + tabulate(claims, headers=CLAIM_HEADERS, tablefmt="github") + "\n")
    if cells:
        out.append(legend(classifiers))
    return "\n".join(out)


def surfaces(
    cells: list[Cell],
    agent: str,
    pairs: Pairs,
    classifiers: Classifiers,
    candidates: Sequence[str] | None = None,
    grid: bool = False,
) -> list[list[str]]:
    """Each extension recipe beside the command-hook recipe asking its question: as ranges,
    or (`grid`) per version where both were probed."""
    by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
    rows = []
    for ext, command in sorted(pairs.items()):
        if grid:
            for v in versions_of(cells, agent):
                if (ext, v) in by and (command, v) in by:
                    both = (cell_text(by[r, v], classifiers.get(r)) for r in (command, ext))
                    rows.append([command, ext, v, *both])
        elif any(r == ext for r, _ in by) and any(r == command for r, _ in by):
            texts = (line_text(line(cells, agent, r, classifiers.get(r), candidates)) for r in (command, ext))
            rows.append([command, ext, *(t.replace("|", "\\|") for t in texts)])
    return rows


def as_json(cells: list[Cell]) -> str:
    rows = [
        {
            "agent": c.agent,
            "version": c.version,
            "recipe": c.recipe,
            "outcome": c.record.outcome,
            "label": c.label,
            "same_as_control": c.same_as_control,
            "observations": c.record.observations,
            "claims": c.record.claims,
            "evidence": str(c.path),
        }
        for c in cells
    ]
    return json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_index(
    results: Path, cells: list[Cell], classifiers: Classifiers, pairs: Pairs | None = None, known: Known | None = None
) -> list[Path]:
    """results/README.md and results/<agent>.md (ranges), regenerated identically from the JSON."""
    written = []
    agents = sorted({c.agent for c in cells})
    index = ["# Evidence", "", "Generated by `probe table` from the JSON records beside this file; do not edit by hand.", ""]
    for agent in agents:
        versions = versions_of(cells, agent)
        n = len({c.recipe for c in cells if c.agent == agent})
        shown = ", ".join(versions) if len(versions) <= 12 else f"{versions[0]} to {versions[-1]}"
        index.append(f"- [{agent}]({agent}.md): {n} recipes on {len(versions)} versions ({shown})")
        page = results / f"{agent}.md"
        mine = [c for c in cells if c.agent == agent]
        write_atomic(page, f"# {agent}\n\n" + markdown(mine, classifiers, pairs, known), "table", "check the results directory")
        written.append(page)
    index += ["", legend(classifiers).replace("### Reading a cell", "## Reading a cell")]
    write_atomic(results / "README.md", "\n".join(index).rstrip("\n") + "\n", "table", "check the results directory")
    return [results / "README.md", *written]


# ---------------------------------------------------------------- diff


def compared(cells: list[Cell], agent: str, v1: str, v2: str) -> int:
    return len(
        {c.recipe for c in cells if c.agent == agent and c.version == v1}
        & {c.recipe for c in cells if c.agent == agent and c.version == v2}
    )


# One change between two versions: an outcome or an observation value, and for name lists
# and maps (fields, env names) what was added and removed.
Change = TypedDict(
    "Change",
    {
        "recipe": str,
        "what": str,
        "from": object,
        "to": object,
        "added": NotRequired[list[str]],
        "removed": NotRequired[list[str]],
    },
)


def diff(cells: list[Cell], agent: str, v1: str, v2: str, timings: bool = False) -> list[Change]:
    """What changed for each recipe between two versions: labels, observation values (timings
    only when asked: they move on every run), payload fields and types, env names."""
    a = {c.recipe: c.record for c in cells if c.agent == agent and c.version == v1}
    b = {c.recipe: c.record for c in cells if c.agent == agent and c.version == v2}
    for v, side in ((v1, a), (v2, b)):
        if not side:
            raise InputError(f"no evidence for {agent}@{v} in results: run `probe matrix --agent {agent} --versions {v}` first")
    changes: list[Change] = []
    for recipe in sorted(set(a) & set(b)):  # recipes probed on one version only are not compared
        ra, rb = a[recipe], b[recipe]
        if ra.outcome != rb.outcome:
            changes.append({"recipe": recipe, "what": "outcome", "from": ra.outcome, "to": rb.outcome})
        oa, ob = ra.observations, rb.observations
        for key in sorted(set(oa) | set(ob)):
            if oa.get(key) == ob.get(key) or (key.endswith("_s") and not timings):
                continue
            change: Change = {"recipe": recipe, "what": f"observation {key}", "from": oa.get(key), "to": ob.get(key)}
            added_removed = set_change(oa.get(key), ob.get(key))
            if added_removed:
                change["added"], change["removed"] = added_removed
            changes.append(change)
    return changes


def names(value: object) -> set[str] | None:
    """A list of names, or a map (of name lists, or of values), as a set of names to compare."""
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return set(value)
    if isinstance(value, dict) and all(isinstance(x, list) for x in value.values()):
        return {f"{k}.{x}" for k, xs in value.items() for x in xs} | {f"{k}" for k in value}
    if isinstance(value, dict):
        return {f"{k}={json.dumps(x, sort_keys=True)}" for k, x in value.items()}
    return None


def set_change(a: object, b: object) -> tuple[list[str], list[str]] | None:
    """For lists of names (fields, env names) and maps of them: (added, removed)."""
    na, nb = names(a), names(b)
    if na is None or nb is None:
        return None
    return sorted(nb - na), sorted(na - nb)


def diff_text(changes: list[Change], agent: str, v1: str, v2: str, compared: int) -> str:
    head = f"{agent} {v1} -> {v2}, {compared} recipe(s) probed on both"
    if not changes:
        return f"{head}: no change in labels or observations"
    lines = [f"{head}: {len(changes)} change(s)"]
    for c in changes:
        if "added" in c:
            parts = [f"+{x}" for x in c["added"]] + [f"-{x}" for x in c.get("removed", [])]
            lines.append(f"  {c['recipe']}: {c['what']}: {' '.join(parts) or 'reordered'}")
        else:
            lines.append(f"  {c['recipe']}: {c['what']}: {short(c['from'])} -> {short(c['to'])}")
    return "\n".join(lines)


def short(value: object, as_json: bool = True) -> str:
    """A value on one short line: JSON, a long list cut after 8 items and any text after 160
    characters (diffs, citations); or, not `as_json`, as Python prints it with floats in %g
    (the run summary)."""
    if not as_json:
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, list) and len(value) > 8:
        return json.dumps(value[:8])[:-1] + f", ... {len(value) - 8} more]"
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."
