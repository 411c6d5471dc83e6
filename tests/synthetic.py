"""Synthetic evidence trees for the rendering tests: a committed record copied to many versions
with the outcome each should show (a fake of our own evidence, never of a CLI), and the
registry snapshot timeline.py reads for which releases exist."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from probes.evidence.model import load_evidence
from probes.report.timeline import write_snapshot
from probes.versions.spec import Published

RESULTS = Path(__file__).resolve().parent.parent / "results"
TEMPLATE = RESULTS / "copilot" / "1.0.92" / "exit2-pretool.json"  # a decision record: label and reason_reached_model


def write_points(
    root: Path,
    agent: str,
    recipe: str,
    outcomes: Mapping[str, str],
    spread: Mapping[str, dict[str, int]] | None = None,
    control: str | None = None,
) -> None:
    """One record per version, with its outcome, refs resolved into the file (no blobs); a
    version in `spread` was run several times with those outcomes (a flaky cell). The records
    name `control` as their control (none by default: then no cell misses one)."""
    record = {**load_evidence(TEMPLATE), "model_requests": [], "invocations": []}  # small: many are written
    for version, outcome in outcomes.items():
        rec = {**record, "agent": agent, "recipe": recipe, "outcome": outcome, "control": control}
        rec.update(requested_version=version, executed_version=version, claims=[])
        if spread and version in spread:
            rec["repeats"] = {"runs": sum(spread[version].values()), "outcomes": spread[version]}
        path = root / agent / version / f"{recipe}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(rec, sort_keys=True))


def write_published(root: Path, agent: str, versions: Sequence[str]) -> None:
    (root / agent).mkdir(parents=True, exist_ok=True)
    write_snapshot(root, agent, Published(list(versions), versions[-1]))


def releases(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]
