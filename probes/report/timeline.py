"""A recipe's verdict as ranges of versions: segments of consecutive probed versions that gave
the same verdict (the outcome label, or one observation's value), and the boundaries between
them, each exact (no candidate release lies between its two versions) or open.

Read offline from results/ (tables build on it and must be byte-stable). Which releases are
candidates comes from a committed snapshot of the registry, results/<agent>/versions.json,
that `probe bisect`, `probe timeline` and `probe bump` write (the published list when they
last asked); without one, no boundary is called exact: we do not know what lies between."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probes.errors import InputError
from probes.evidence.load import Cell, load
from probes.evidence.model import write_atomic
from probes.limits import BadFile, load_json, warn
from probes.versions.spec import Published, is_prerelease, semver_key

SNAPSHOT = "versions.json"  # results/<agent>/versions.json; the */*/*.json globs never reach it
SNAPSHOT_MAX_BYTES = 1024 * 1024  # ~500 versions are ~10 KiB


@dataclass(frozen=True)
class Segment:
    value: str  # the outcome label, or with an observation the value as compact JSON text
    first: str  # first probed version of the segment (ascending semver)
    last: str  # last probed version of the segment
    probed: list[str]  # every probed version in it, ascending


@dataclass(frozen=True)
class Boundary:
    before: str  # last probed version before the change
    after: str  # first probed version after it
    exact: bool  # no candidate (published, non-pre-release unless asked) lies between them


@dataclass(frozen=True)
class Timeline:
    agent: str
    recipe: str
    observation: str | None
    segments: list[Segment]
    boundaries: list[Boundary]


def compact(value: Any) -> str:
    """An observation's value as one short, stable JSON text (absent: null)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def between(before: str, after: str, candidates: Sequence[str]) -> list[str]:
    """The candidates strictly between two versions, ascending."""
    lo, hi = semver_key(before), semver_key(after)
    return sorted((v for v in candidates if lo < semver_key(v) < hi), key=semver_key)


def build(points: Mapping[str, str], candidates: Sequence[str] | None) -> tuple[list[Segment], list[Boundary]]:
    """Segments of `points` (version -> verdict) in ascending order, and a boundary where the
    verdict changes: exact when `candidates` is known, both ends lie within its span, and
    none of it lies strictly between them (None: nothing is known, so nothing is exact)."""
    order = sorted(points, key=semver_key)
    runs: list[list[str]] = []
    for v in order:
        if runs and points[runs[-1][-1]] == points[v]:
            runs[-1].append(v)
        else:
            runs.append([v])
    segments = [Segment(points[r[0]], r[0], r[-1], r) for r in runs]
    known = sorted(candidates or (), key=semver_key)
    boundaries = []
    for a, b in zip(segments, segments[1:], strict=False):
        # a release newer than the snapshot's newest may have neighbours it never saw
        inside = bool(known) and semver_key(b.first) <= semver_key(known[-1])
        exact = candidates is not None and inside and not between(a.last, b.first, known)
        boundaries.append(Boundary(a.last, b.first, exact))
    return segments, boundaries


# ---------------------------------------------------------------- the registry snapshot


def snapshot_path(results: Path, agent: str) -> Path:
    return results / agent / SNAPSHOT


def read_snapshot(results: Path, agent: str) -> list[str] | None:
    """Every version the registry served when the snapshot was written, ascending; None when
    there is none (or it cannot be read: a warning names it)."""
    path = snapshot_path(results, agent)
    if not path.exists():
        return None
    try:
        data = load_json(path, SNAPSHOT_MAX_BYTES)
        versions = data["versions"] if isinstance(data, dict) else None
        if not (isinstance(versions, list) and all(isinstance(v, str) for v in versions)):
            raise BadFile("versions must be a list of strings")
    except (BadFile, KeyError) as e:
        warn(f"{path}: not a versions snapshot ({e}); no boundary is called exact")
        return None
    return sorted(versions, key=semver_key)


def write_snapshot(results: Path, agent: str, pub: Published) -> Path:
    """The registry's list now, as the snapshot later offline reads use (no timestamp: the
    same list writes the same bytes; git dates it)."""
    path = snapshot_path(results, agent)
    doc = {"agent": agent, "latest": pub.latest, "versions": sorted(pub.versions, key=semver_key)}
    write_atomic(path, json.dumps(doc, indent=1) + "\n", "versions snapshot", "check --results")
    return path


def candidates_of(versions: Sequence[str], prereleases: bool = False) -> list[str]:
    return sorted((v for v in versions if prereleases or not is_prerelease(v)), key=semver_key)


# ---------------------------------------------------------------- from the evidence


def points_of(results: Path, agent: str, recipe: str, observation: str | None = None) -> dict[str, str]:
    """version -> verdict from the evidence. A record counts for the version that executed
    (a version_mismatch record does not count for the version asked: it is filed under the
    executed one, and one filed elsewhere is skipped); a cell whose repeats disagree gets the
    spread of labels as its verdict, so it stands alone."""
    return points_from(load(results, agent, recipe), observation)


def points_from(cells: Sequence[Cell], observation: str | None = None) -> dict[str, str]:
    """points_of's reading of cells already loaded (one agent's, one recipe's)."""
    points: dict[str, str] = {}
    for cell in cells:
        r = cell.record
        if r.executed_version != cell.version:
            continue
        if observation is None:
            points[cell.version] = cell.label
        else:
            points[cell.version] = compact(r.observations.get(observation))
    return points


def of_results(
    results: Path, agent: str, recipe: str, observation: str | None = None, candidates: Sequence[str] | None = None
) -> Timeline:
    """The timeline of one recipe from `results`, offline. `candidates` None: the releases in
    the committed snapshot (results/<agent>/versions.json), or, without one, none known."""
    if candidates is None:
        snap = read_snapshot(results, agent)
        candidates = candidates_of(snap) if snap is not None else None
    segments, boundaries = build(points_of(results, agent, recipe, observation), candidates)
    return Timeline(agent, recipe, observation, segments, boundaries)


# ---------------------------------------------------------------- output


def as_json(t: Timeline) -> dict[str, Any]:
    """`{"agent", "recipe", "observation", "segments": [{"outcome" or "value", "from", "to",
    "probed"}], "boundaries": [{"before", "after", "exact"}]}` (issue 16)."""
    segments = []
    for s in t.segments:
        head: dict[str, Any] = {"outcome": s.value} if t.observation is None else {"value": json.loads(s.value)}
        segments.append({**head, "from": s.first, "to": s.last, "probed": s.probed})
    return {
        "agent": t.agent,
        "recipe": t.recipe,
        "observation": t.observation,
        "segments": segments,
        "boundaries": [{"before": b.before, "after": b.after, "exact": b.exact} for b in t.boundaries],
    }


def span(s: Segment) -> str:
    return s.first if s.first == s.last else f"{s.first}-{s.last}"


def text(t: Timeline) -> str:
    """`fail-closed 1.0.40-1.0.52 | fail-open 1.0.55-1.0.102`, then each boundary on a line."""
    what = f"{t.recipe}" + (f" ({t.observation})" if t.observation else "")
    if not t.segments:
        return f"{t.agent} {what}: no evidence"
    cut = 60 if len(t.segments) > 1 else 120  # an observation's value may be long; --json has it whole
    lines = [
        f"{t.agent} {what}: "
        + " | ".join(f"{s.value if len(s.value) <= cut else s.value[: cut - 3] + '...'} {span(s)}" for s in t.segments)
    ]
    for b in t.boundaries:
        lines.append(f"  {b.before} -> {b.after}: {'exact' if b.exact else 'open (unprobed releases between)'}")
    return "\n".join(lines)


def require_evidence(t: Timeline, results: Path) -> None:
    if not t.segments:
        raise InputError(
            f"no evidence for {t.agent} {t.recipe} in {results}: run `probe bisect` or "
            f"`probe timeline {t.agent} {t.recipe} --versions RANGE --every K`"
        )
