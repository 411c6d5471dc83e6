"""`probe diff` and `probe bump`'s report: what changed for each recipe between two versions
of an agent (labels, observation values, and for name lists and maps what was added and
removed)."""

from __future__ import annotations

import json
from typing import NotRequired, TypedDict

from probes.errors import InputError
from probes.evidence.load import Cell
from probes.report.cells import short


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
