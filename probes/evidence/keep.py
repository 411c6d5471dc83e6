"""Keeping a stored record: a re-run that differs from it only in measured numbers, the run's
identity and fields it predates leaves it (and its blobs) alone, so the first command in a
fresh clone does not dirty `git status` (model.save_unless_unchanged)."""

from __future__ import annotations

import json
import re
from typing import Any

from probes.evidence.claims import verdict_of
from probes.evidence.lean import emptied

# this run's, not the CLI's: requested_version is how the version was named (latest, a bare
# agent), the version that ran is executed_version, compared exactly
IDENTITY = ("run_id", "started_at", "harness", "harness_version", "harness_commit", "requested_version")
RUN_LEVEL = ((), ("cli",))  # where a null stored value is a field the record predates (the run's setting)


def measured_only(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """True when `new` (a fresh run's record) differs from `old` (the stored one, resolved)
    only in measured numbers, the run's identity and fields `old` predates, so `old` can stay:
    a re-run does not churn committed evidence. The verdict and what it rests on must be equal
    (`exact`); the rest is compared with every number masked. A compact `old` (compaction.py)
    is compared with `new` as it would be stored compact: a re-run of it keeps it compact."""
    if old.get("compacted") is not None:
        old = emptied({k: v for k, v in old.items() if k != "compacted"})[0]  # compacted before DROPPED grew, too
        new = emptied(new)[0]
    if exact(old) != exact(new, old.get("observations")):
        return False
    kept, fresh = predated(old, new)
    return masked(kept) == masked(fresh)


def predated(old: Any, new: Any, at: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """`old` and `new` without what `old` predates: a key `old` lacks (anywhere), and a
    run-level key (top level, cli) that is null in `old`. A null deeper down (a hook's signal)
    is behaviour, and stays."""
    if isinstance(old, dict) and isinstance(new, dict):
        gone = {k for k, v in old.items() if v is None and new.get(k) is not None and at in RUN_LEVEL}
        pairs = {k: predated(old[k], new[k], (*at, k)) if k in new else (old[k], None) for k in old if k not in gone}
        return (
            {k: o for k, (o, _) in pairs.items()},
            {k: n for k, (_, n) in pairs.items() if k in new},
        )
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        both = [predated(o, n, at) for o, n in zip(old, new, strict=True)]
        return [o for o, _ in both], [n for _, n in both]
    return old, new


def exact(record: dict[str, Any], observed: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """What must be equal, numbers and all, nulls too: the label, the observations but timings
    (`*_s`; only those in `observed`, when given: an observation added since is no change),
    counts, the claims' verdicts, the version, how the CLI ended, where it ran, the spread."""
    cli = record.get("cli") or {}
    obs = record.get("observations") or {}
    return (
        record.get("outcome"),
        {k: v for k, v in obs.items() if not k.endswith("_s") and (observed is None or k in observed)},
        record.get("invocations_by_event"),
        record.get("invocation_count"),
        record.get("model_request_count"),
        [verdict_of(c) for c in record.get("claims") or []],
        record.get("executed_version"),
        record.get("version_mismatch"),
        (cli.get("exit_code"), cli.get("exit_signal"), cli.get("timed_out")),
        record.get("network"),
        record.get("backend"),
        (record.get("repeats") or {}).get("outcomes"),
    )


def masked(record: dict[str, Any]) -> str:
    """The record but its identity, every run of digits as N: pids, offsets, durations."""
    rest = {k: v for k, v in record.items() if k not in IDENTITY}
    return re.sub(r"\d+", "N", json.dumps(rest, sort_keys=True, ensure_ascii=False))
