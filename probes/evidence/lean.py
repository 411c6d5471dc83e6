"""What a compact record (compaction.py; docs/evidence.md, "Compact records") stores: its
record without what DROPPED names (emptied), split into its own part (OWN: what its run alone
has) and the part it shares with other compact records of its agent, stored once as a blob
named by its "shared" ref (store.py reads it back: store.join_shared). A whole record shares
its recipe's part (RECIPE_PART: the question, the hooks written, the setup, the isolation)
the same way with the other records of its recipe: `shares`."""

from __future__ import annotations

import hashlib
from typing import Any

from probes.evidence.layout import dumps, layout
from probes.limits import BadFile

# A compact record's own: the run's identity, its digest and neighbours, its count of model
# requests (releases differ in the requests around a turn), and (a key of any object at the
# top level ending `_s`) its timings. The rest goes to its shared blob. A dotted name is a
# key of a top-level object.
SHARED = "shared"
OWN: frozenset[str] = frozenset(
    (
        "schema_version",
        "run_id",
        "started_at",
        "requested_version",
        "executed_version",
        "model_request_count",
        "harness_version",
        "harness_commit",
        "compacted.full_bytes",
        "compacted.full_sha256",
        "compacted.neighbours",
    )
)

# What a whole record shares with the records of its recipe and setup on other versions: what
# the recipe, the setup and the harness's sandbox decide, not the run (about 6 MB of 36 in the
# whole records, 0.2 MB distinct). The identity (agent, recipe, versions) stays in its file.
RECIPE_PART: frozenset[str] = frozenset(
    (
        "question",
        "hooks",
        "isolation",
        "setup",
        "setup_read",
        "setup_key",
        "cleanup",
        "executed_version_source",
        "control",
        "control_of",
        "subject",
        "platform",
        "route",
        "network",
        "surface",
        "backend",
        "mode",
        "cli_cwd",
        "image",
        "node",
    )
)

# What a compact record (compaction.py) no longer stores, each as it is left: the session's
# bulk, and what its recipe and its neighbours say alike (the hooks registered, the CLI's argv,
# output and environment, side effects, cleanup, isolation): read by classifiers and by a person,
# not by tables, ranges, citations or cost estimates (the counts and how the CLI ended, its wall
# time included, stay). And the harness's own phases (`harness`, from 2026-12-06: 2.8 MB over
# 18,571 compact records): how long the harness took says nothing of the CLI, and the whole
# records keep theirs. "cli.argv" names a key of `cli`.
DROPPED: dict[str, Any] = {
    "invocations": [],
    "model_requests": [],
    "transcript": None,
    "hooks": [],
    "side_effects": [],
    "cleanup": {},
    "isolation": None,
    "cli.argv": [],
    "cli.stdout_tail": "",
    "cli.stderr_tail": "",
    "cli.env_names": None,
    "cli.secrets_given": None,
    "harness": None,
}


def emptied(record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`record` as a compact record stores it (a copy: each of DROPPED that holds something
    left as DROPPED says), and the names so emptied, in DROPPED's order."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in record.items()}
    names = []
    for name, empty in DROPPED.items():
        key, _, inner = name.partition(".")
        where = out.get(key) if inner else out
        field = inner or key
        if isinstance(where, dict) and where.get(field) not in (None, [], {}, ""):
            where[field] = empty
            names.append(name)
    return out, names


def split(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A compact record as its own part (OWN, timings) and the part it shares (the rest). A
    top-level object may be in both, with different keys; `join` puts them back together."""
    own: dict[str, Any] = {}
    shared: dict[str, Any] = {}
    for key, value in record.items():
        if key in OWN:
            own[key] = value
        elif isinstance(value, dict) and value:
            mine = {k: v for k, v in value.items() if k.endswith("_s") or f"{key}.{k}" in OWN}
            if mine:
                own[key] = mine
            if len(mine) < len(value):
                shared[key] = {k: v for k, v in value.items() if k not in mine}
        else:
            shared[key] = value
    return own, shared


def join(own: dict[str, Any], shared: Any) -> dict[str, Any]:
    """`own` with `shared` (a shared blob's value) put back, in place; BadFile when they are not
    two halves of one record (a key in both that is not an object in both, or a key of one
    object in both)."""
    if not isinstance(shared, dict):
        raise BadFile(f"its shared blob holds a JSON {type(shared).__name__}, not an object")
    for key, value in shared.items():
        mine = own.get(key)
        if key not in own:
            own[key] = value
        elif isinstance(mine, dict) and isinstance(value, dict) and not mine.keys() & value.keys():
            own[key] = mine | value
        else:
            raise BadFile(f"its shared blob repeats {key!r}")
    return own


def lean(record: dict[str, Any]) -> tuple[str, tuple[str, bytes]]:
    """A compact record (joined) as stored: its file's text, its own part with the shared
    ref, and the shared blob (sha256 hex, bytes) it needs in its agent's _blobs."""
    return referred(*split(record))


def shares(record: dict[str, Any]) -> tuple[str, tuple[str, bytes]]:
    """A whole record (refs in place) as stored: its file's text without its RECIPE_PART, which
    is its shared blob (sha256 hex, bytes) in its agent's _blobs, named by its shared ref."""
    own = {k: v for k, v in record.items() if k not in RECIPE_PART}
    return referred(own, {k: v for k, v in record.items() if k in RECIPE_PART})


def referred(own: dict[str, Any], shared: dict[str, Any]) -> tuple[str, tuple[str, bytes]]:
    data = dumps(shared).encode("utf-8")
    name = hashlib.sha256(data).hexdigest()
    own[SHARED] = {"ref": f"sha256:{name}"}
    return layout(own), (name, data)
