"""Committed evidence read back: one Cell per agent, version and recipe in results/, each
knowing whether its control got the same label (then its verdict is not earned) or was not
run on its version (then nothing says it is earned). What the
tables, ranges, the page, diffs, citations and timelines all read."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from probes.catalog.setup import base_of, split_stem, stem
from probes.errors import InputError
from probes.evidence.model import Evidence, read_evidence
from probes.evidence.store import Blobs
from probes.limits import listed, warn
from probes.versions.spec import semver_key


@dataclass(frozen=True)
class Cell:
    agent: str
    version: str
    recipe: str
    path: Path
    record: Evidence
    same_as_control: bool = False  # its control got the same label on this version: not earned
    control_missing: bool = False  # its recipe names a control, with no record on this version (in this setup)

    @property
    def base(self) -> str:
        """The recipe the record is of (`recipe` is its file stem: RECIPE or RECIPE@KEY)."""
        return base_of(self.recipe)

    @property
    def setup_key(self) -> str:
        """What its setup changes from its recipe's default ("" when nothing): `recipe` is the
        record's file stem, RECIPE@KEY, so each setup is a row of its own."""
        return split_stem(self.recipe)[1]

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
    setups: bool = False,
) -> list[Cell]:
    """The evidence in `results`. A file that is not an evidence record is skipped with a
    warning naming it (the rest still renders; into `skipped` instead, when given), or
    refused when `strict`. `recipe` names a record file's stem (RECIPE, or RECIPE@KEY for
    another setup); with `setups`, a recipe's records in every setup."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    cells: list[Cell] = []
    blobs = Blobs()  # a blob many records refer to is read once
    for path in listed(results):
        a, v, r = path.parts[-3], path.parts[-2], path.stem
        if (agent and a != agent) or (recipe and recipe not in (r, base_of(r) if setups else r)) or (version and v != version):
            continue
        try:
            cells.append(Cell(a, v, r, path, read_evidence(path, blobs)))
        except InputError as e:
            if strict:
                raise
            if skipped is None:
                warn(f"skipping {e}")
            else:
                skipped.append(str(e))
    return mark_unearned(cells, blobs)


def mark_unearned(cells: list[Cell], blobs: Blobs) -> list[Cell]:
    """Flag each cell whose control recipe got the same label on the same agent and version, in
    the same setup: that verdict measures nothing (the hook's answer was ignored, or the run
    could not tell); and each whose control has no (readable) record there: nothing says its
    verdict is earned. A control outside the loaded cells (a `--recipe` table) is read from
    beside the record."""
    outcome = {(c.agent, c.version, c.recipe): c.record.outcome for c in cells}
    out = []
    for c in cells:
        control = stem(c.record.control, c.setup_key) if c.record.control else None
        key = (c.agent, c.version, control or "")
        if control and key not in outcome and (c.path.parent / f"{control}.json").is_file():
            try:
                outcome[key] = read_evidence(c.path.parent / f"{control}.json", blobs).outcome
            except InputError:
                pass  # a corrupt control is warned about when it is itself loaded
        if control and key not in outcome:
            out.append(replace(c, control_missing=True))
        else:
            out.append(replace(c, same_as_control=True) if control and outcome.get(key) == c.record.outcome else c)
    return out


def versions_of(cells: list[Cell], agent: str) -> list[str]:
    return sorted({c.version for c in cells if c.agent == agent}, key=semver_key)


def grouped(cells: list[Cell]) -> dict[tuple[str, str], list[Cell]]:
    """Cells by (agent, recipe): each line reads its own, not all (hundreds of versions)."""
    by: dict[tuple[str, str], list[Cell]] = {}
    for c in cells:
        by.setdefault((c.agent, c.recipe), []).append(c)
    return by
