"""Compact evidence: what repeats across records (system prompts, tool lists, environment
blocks) is stored once per agent version, content-addressed, and the record refers to it.

    results/<agent>/<version>/<recipe>.json          the record
    results/<agent>/<version>/_blobs/<sha256>.txt    a value it refers to, as {"ref": "sha256:<hex>"}

A blob is UTF-8 text: a string as itself, any other JSON value in the record's own layout
(`dumps`). Its name is the sha256 of its bytes. Only the places in SLOTS may hold a ref, and a
value goes to a blob only when it is at least BLOB_MIN bytes (a ref costs about 80). Readers
resolve refs transparently (`resolve`, from evidence.load_evidence): a record reads the same
whether a value is inline or stored. Blobs are written before the record that refers to them,
so a reader never meets a ref without its blob; a blob that is missing, too big, or whose
bytes do not hash to its name makes the record unreadable, with one line naming both."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from probes.errors import InputError
from probes.evidence.claims import verdict_of
from probes.limits import BLOB_MAX_BYTES, EVIDENCE_MAX_BYTES, EXPANDED_MAX_BYTES, BadFile, decode, parse_json, read_bounded

BLOBS = "_blobs"  # beside the records of one agent version; the */*/*.json globs never reach it
BLOB_SUFFIX = ".txt"
BLOB_MIN = 128
WIDTH = 160  # a value whose JSON fits on one line this wide is written on one line
ONE_LINE = 1 << 30  # a width every record fits in
REF_RE = re.compile(r"sha256:([0-9a-f]{64})\Z")
BLOB_NAME_RE = re.compile(r"[0-9a-f]{64}\.txt\Z")

# Where a ref may stand, and what its blob holds: "text" (a string) or "json" (any JSON value).
SLOTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("model_requests", "*", "messages", "*", "text"), "text"),  # system prompts, above all
    (("model_requests", "*", "tools"), "json"),
    (("invocations", "*", "env"), "json"),
    (("cli", "env_names"), "json"),
    (("transcript", "*", "screen"), "text"),
    # a CLI's own banner and warnings, the same in every record of a version (Qwen's ~500 bytes)
    (("cli", "stdout_tail"), "text"),
    (("cli", "stderr_tail"), "text"),
)

# What a compact record (compaction.py) no longer stores, each as it is left: the session's
# bulk, and what its recipe and its neighbours say alike (the hooks registered, the CLI's argv,
# output and environment, side effects, cleanup, isolation): read by classifiers and by a person,
# not by tables, ranges, citations or cost estimates (the counts and how the CLI ended, its wall
# time included, stay). "cli.argv" names a key of `cli`.
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


# ---------------------------------------------------------------- the record's layout


def dumps(value: Any, width: int = WIDTH) -> str:
    """JSON with sorted keys, indented two spaces, where every object or list whose compact
    form fits in `width` columns stays on one line: diffs stay line by line, records small."""
    out: list[str] = []

    def enc(v: Any, depth: int, used: int) -> None:
        flat = json.dumps(v, sort_keys=True, ensure_ascii=False)
        if not isinstance(v, (dict, list)) or not v or depth * 2 + used + len(flat) <= width:
            out.append(flat)
            return
        pad = "  " * (depth + 1)
        if isinstance(v, dict):
            items = sorted(v.items())
            out.append("{\n")
            for i, (k, x) in enumerate(items):
                key = json.dumps(k, ensure_ascii=False) + ": "
                out.append(pad + key)
                enc(x, depth + 1, len(key) + 1)
                out.append(",\n" if i < len(items) - 1 else "\n")
            out.append("  " * depth + "}")
        else:
            out.append("[\n")
            for i, x in enumerate(v):
                out.append(pad)
                enc(x, depth + 1, 1)
                out.append(",\n" if i < len(v) - 1 else "\n")
            out.append("  " * depth + "]")

    enc(value, 0, 0)
    return "".join(out) + "\n"


def layout(record: dict[str, Any]) -> str:
    """A stored record's text: a compact one (compaction.py) on one line, where most of its
    bytes would be indentation; a whole one as `dumps` lays it out, diffs line by line."""
    return dumps(record, width=ONE_LINE if record.get("compacted") is not None else WIDTH)


# ---------------------------------------------------------------- refs


def is_ref(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("ref"), str)


def ref_hex(value: dict[str, Any]) -> str:
    m = REF_RE.match(value["ref"])
    if not m:
        raise BadFile(f"a ref that is not sha256:<64 hex digits>: {value['ref'][:80]!r}")
    return m.group(1)


def slots(record: dict[str, Any]) -> Iterator[tuple[Any, Any, str]]:
    """(container, key, kind) for every slot present in `record`."""
    for path, kind in SLOTS:
        todo: list[Any] = [record]
        for step in path[:-1]:
            nxt: list[Any] = []
            for c in todo:
                if step == "*":
                    nxt += c if isinstance(c, list) else []
                elif isinstance(c, dict) and step in c:
                    nxt.append(c[step])
            todo = nxt
        for c in todo:
            if isinstance(c, dict) and path[-1] in c:
                yield c, path[-1], kind


def refs(record: dict[str, Any]) -> list[str]:
    """The blobs a stored record refers to (sha256 hex), each once, in ascending order."""
    return sorted({ref_hex(c[k]) for c, k, _ in slots(record) if is_ref(c[k])})


def digest(data: bytes, directory: Path, blobs: Blobs | None = None) -> tuple[str, int]:
    """A stored record's sha256 as `probe cite` gives it, and the bytes hashed: its file's
    bytes (`data`), then each blob it refers to, once, in ascending order of their names.
    BadFile when it is not JSON or a blob cannot be read (Blobs.get)."""
    record = parse_json(data)
    h, size = hashlib.sha256(data), len(data)
    blobs = blobs or Blobs()
    for name in refs(record) if isinstance(record, dict) else []:
        blob = blobs.get(directory, name)
        h.update(blob)
        size += len(blob)
    return h.hexdigest(), size


def blob_of(value: Any, kind: str) -> bytes | None:
    """The blob a slot's value would be stored as, or None to keep it inline."""
    if value is None:
        return None
    if kind == "text" and not isinstance(value, str):
        return None
    try:
        data = (value if kind == "text" else dumps(value)).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: kept inline, as JSON escapes it
        return None
    if kind == "json" and is_ref(value):
        return data  # a value shaped like a ref is always stored, so a ref is never ambiguous
    return data if len(data) >= BLOB_MIN else None


def compact(record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The record as stored (a copy, refs in place of the values moved out), and the blobs
    it needs: sha256 hex -> bytes."""
    stored: dict[str, Any] = json.loads(json.dumps(record))
    blobs: dict[str, bytes] = {}
    for c, k, kind in list(slots(stored)):
        data = blob_of(c[k], kind)
        if data is not None:
            digest = hashlib.sha256(data).hexdigest()
            blobs[digest] = data
            c[k] = {"ref": f"sha256:{digest}"}
    return stored, blobs


class Blobs:
    """Reads blobs bounded and checked against their names, each file once. `known` (sha256
    hex -> bytes, checked already) stands in for a blob that is missing or spoiled on disk:
    merge checks a destination with the blobs it is about to write."""

    def __init__(self, known: dict[str, bytes] | None = None) -> None:
        self.read: dict[Path, bytes] = {}
        self.known = known or {}

    def get(self, directory: Path, digest: str) -> bytes:
        path = directory / BLOBS / f"{digest}{BLOB_SUFFIX}"
        if path not in self.read:
            try:
                data = read_bounded(path, BLOB_MAX_BYTES, follow=False)
                if hashlib.sha256(data).hexdigest() != digest:
                    raise BadFile("does not hash to its name (corrupt)")
            except BadFile as e:
                if digest in self.known:
                    return self.known[digest]
                why = "missing" if not path.exists() and not path.is_symlink() else str(e)
                raise BadFile(f"its blob {BLOBS}/{path.name}{'' if why.startswith('does') else ':'} {why}") from None
            self.read[path] = data
        return self.read[path]


def resolve(record: dict[str, Any], directory: Path, blobs: Blobs | None = None) -> dict[str, Any]:
    """`record` (as stored in `directory`) with every ref replaced by its value, in place.
    BadFile, naming the blob, when one cannot be read or is not what its name says; the
    values a record expands to are bounded in all (a ref may repeat)."""
    blobs = blobs or Blobs()
    total = 0
    parsed: dict[str, Any] = {}
    for c, k, kind in list(slots(record)):
        if not is_ref(c[k]):
            continue
        digest = ref_hex(c[k])
        data = blobs.get(directory, digest)
        total += len(data)
        if total > EXPANDED_MAX_BYTES:
            raise BadFile(f"its refs expand beyond {EXPANDED_MAX_BYTES} bytes")
        if kind == "text":
            c[k] = decode(data)
        else:
            if digest not in parsed:
                parsed[digest] = parse_json(data)
            c[k] = copy_json(parsed[digest])
    return record


def copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


# ---------------------------------------------------------------- writing


def save(path: Path, record: dict[str, Any], write: Callable[[Path, str], None]) -> None:
    """Store `record` (full, JSON values) at `path`: its blobs first (a blob already there
    with the right bytes is left alone), then the record, each through `write` (atomic)."""
    stored, blobs = compact(record)
    for digest, data in blobs.items():
        put_blob(path.parent, digest, data, write)
    write(path, layout(stored))


def put_blob(directory: Path, digest: str, data: bytes, write: Callable[[Path, str], None]) -> bool:
    """Write one blob unless it is there already, byte for byte. True when written."""
    path = directory / BLOBS / f"{digest}{BLOB_SUFFIX}"
    try:
        if read_bounded(path, BLOB_MAX_BYTES, follow=False) == data:
            touch(path)  # about to be referred to: compaction leaves a blob this young alone
            return False
    except BadFile:
        pass  # missing, or not what it should be: (re)written
    write(path, data.decode("utf-8"))
    return True


def touch(path: Path) -> None:
    try:
        os.utime(path, follow_symlinks=False)
    except OSError:
        pass  # a read-only tree: nothing removes blobs from it either


def unreferenced(directory: Path) -> list[Path] | None:
    """The blobs in `directory`/_blobs no record in `directory` refers to; None when a record
    there cannot be read (then nothing can be said unreferenced)."""
    store = directory / BLOBS
    if not store.is_dir():
        return []
    wanted: set[str] = set()
    for path in directory.glob("*.json"):
        try:
            record = parse_json(read_bounded(path, EVIDENCE_MAX_BYTES, follow=False))
            if not isinstance(record, dict):
                return None
            wanted.update(refs(record))
        except BadFile:
            return None
    return sorted(p for p in store.iterdir() if BLOB_NAME_RE.match(p.name) and p.name.removesuffix(BLOB_SUFFIX) not in wanted)


# ---------------------------------------------------------------- keeping a stored record

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


def check_writable(results: Path) -> None:
    """Fail before a probe runs, not after, when results cannot be written."""
    probe = results
    while not probe.exists():
        probe = probe.parent
    if not os.access(probe, os.W_OK | os.X_OK) or not probe.is_dir():
        raise InputError(f"results directory {results} is not writable: choose another with --results")
