"""Compact evidence: what repeats across records (system prompts, tool lists, environment
blocks) is stored once per agent, content-addressed, and the record refers to it.

    results/<agent>/<version>/<recipe>.json          the record
    results/<agent>/_blobs/<sha256>.txt              a value it refers to, as {"ref": "sha256:<hex>"}

Before 2026-12-06 a record's blobs were stored beside it, once per agent version
(results/<agent>/<version>/_blobs/): readers look there too (Blobs.ref), and `probe compact`
moves them to the agent's store (`hoist`; adjacent releases share most of them: 1.7 MB of 9.6).

A blob is UTF-8 text: a string as itself, any other JSON value in the record's own layout
(`dumps`). Its name is the sha256 of its bytes. Only the places in SLOTS may hold a ref, and a
value goes to a blob only when it is at least BLOB_MIN bytes (a ref costs about 80). Readers
resolve refs transparently (`resolve`, from evidence.load_evidence): a record reads the same
whether a value is inline or stored. Blobs are written before the record that refers to them,
so a reader never meets a ref without its blob; a blob that is missing, too big, or whose
bytes do not hash to its name makes the record unreadable, with one line naming both.

A compact record (compaction.py) keeps in its own file only what its run alone has (OWN:
its identity, its timings, its digest and neighbours); the rest, which its neighbours on
other versions share, is one blob per agent, named by the record's "shared" ref:

    results/<agent>/_blobs/<sha256>.txt              what compact records share (a JSON object)

Readers join it back (`resolve`): the record reads the same as before it was split."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from probes.errors import InputError
from probes.evidence.implied import leave_out, put_back
from probes.evidence.layout import dumps
from probes.evidence.lean import SHARED, join, lean, shares
from probes.limits import BLOB_MAX_BYTES, EVIDENCE_MAX_BYTES, EXPANDED_MAX_BYTES, BadFile, decode, parse_json, read_bounded

BLOBS = "_blobs"  # in an agent's folder (older: a version's); the */*/*.json globs never reach it
BLOB_SUFFIX = ".txt"
BLOB_MIN = 128
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


def join_shared(record: dict[str, Any], directory: Path, blobs: Blobs) -> int:
    """A stored record (of `directory`) with the shared part it names joined back, in place;
    the shared blob's bytes (0 when it names none)."""
    name = shared_ref(record)
    if name is None:
        return 0
    data = blobs.get(directory.parent, name)
    join(record, parse_json(data))
    del record[SHARED]
    return len(data)


def shared_ref(record: dict[str, Any]) -> str | None:
    """The sha256 hex of the shared blob a stored record names, or None; BadFile when its
    `shared` is not a ref."""
    value = record.get(SHARED)
    if value is None:
        return None
    if not is_ref(value):
        raise BadFile(f"{SHARED}: not a ref")
    return ref_hex(value)


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
    bytes (`data`), then each blob it refers to, once, in ascending order of their names,
    then its shared blob (a compact record's). BadFile when it is not JSON or a blob cannot
    be read (Blobs.get)."""
    record = parse_json(data)
    h, size = hashlib.sha256(data), len(data)
    blobs = blobs or Blobs()
    named = refs(record) if isinstance(record, dict) else []
    shared = shared_ref(record) if isinstance(record, dict) else None
    for blob in [*(blobs.ref(directory, name) for name in named), *([blobs.get(directory.parent, shared)] if shared else [])]:
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
    """The record as stored (a copy, refs in place of the values moved out, the keys that
    hold their empty defaults left out: implied.py), and the blobs it needs: sha256 hex -> bytes."""
    stored: dict[str, Any] = json.loads(json.dumps(record))
    blobs: dict[str, bytes] = {}
    for c, k, kind in list(slots(stored)):
        data = blob_of(c[k], kind)
        if data is not None:
            digest = hashlib.sha256(data).hexdigest()
            blobs[digest] = data
            c[k] = {"ref": f"sha256:{digest}"}
    leave_out(stored)
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

    def ref(self, directory: Path, digest: str) -> bytes:
        """The blob a record in `directory` (an agent version's folder) refers to: in its
        agent's store, or beside it where an older harness stored it."""
        try:
            return self.get(directory.parent, digest)
        except BadFile:
            if not os.path.lexists(directory / BLOBS / f"{digest}{BLOB_SUFFIX}"):
                raise
            return self.get(directory, digest)


def resolve(record: dict[str, Any], directory: Path, blobs: Blobs | None = None) -> dict[str, Any]:
    """`record` (as stored in `directory`) with its shared part joined back and every ref
    replaced by its value, in place. BadFile, naming the blob, when one cannot be read or is
    not what its name says; the values a record expands to are bounded in all (a ref may
    repeat)."""
    blobs = blobs or Blobs()
    total = join_shared(record, directory, blobs)
    put_back(record)
    parsed: dict[str, Any] = {}
    for c, k, kind in list(slots(record)):
        if not is_ref(c[k]):
            continue
        digest = ref_hex(c[k])
        data = blobs.ref(directory, digest)
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


def stored_form(record: dict[str, Any]) -> tuple[str, dict[str, bytes], dict[str, bytes]]:
    """`record` (full, JSON values) as stored: its file's text, the blobs beside it and the
    shared blobs in its agent's _blobs (sha256 hex -> bytes). A compact record is stored
    lean (its own part and one shared blob); a whole one with its SLOTS' values in blobs and
    its recipe's part in a shared blob (lean.shares)."""
    if record.get("compacted") is not None:
        text, (name, data) = lean(record)
        return text, {}, {name: data}
    stored, blobs = compact(record)
    text, (name, data) = shares(stored)
    return text, blobs, {name: data}


def save(path: Path, record: dict[str, Any], write: Callable[[Path, str], None]) -> None:
    """Store `record` (full, JSON values) at `path`: its blobs first (a blob already there
    with the right bytes is left alone), then the record, each through `write` (atomic)."""
    text, blobs, shared = stored_form(record)
    put_blobs(path, blobs, shared, write)
    write(path, text)


def put_blobs(path: Path, blobs: dict[str, bytes], shared: dict[str, bytes], write: Callable[[Path, str], None]) -> None:
    """The blobs of the record to be stored at `path`, its refs' and its shared one, in its agent's store."""
    for digest, data in {**blobs, **shared}.items():
        put_blob(path.parent.parent, digest, data, write)


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
    """The blobs an older harness stored beside the records of `directory` (an agent
    version's folder) that none of them refers to; None when a record there cannot be read
    (then nothing can be said unreferenced)."""
    return _unnamed(directory / BLOBS, directory.glob("*.json"), refs)


def unshared(agent_dir: Path) -> list[Path] | None:
    """The blobs in `agent_dir`/_blobs no record of that agent refers to or names as its
    shared part; None when a record there cannot be read (then nothing can be said
    unreferenced)."""
    return _unnamed(agent_dir / BLOBS, agent_dir.glob("*/*.json"), lambda r: [*refs(r), *([n] if (n := shared_ref(r)) else [])])


def hoist(directory: Path, write: Callable[[Path, str], None]) -> int:
    """Move the blobs an older harness stored beside the records of `directory` (an agent
    version's folder) to its agent's store, each checked against its name (a spoiled one
    stays, and its record stays unreadable as it was); the folder's _blobs goes once empty.
    Copied first, then removed: a reader finds each in one place or the other. Returns the
    blobs moved."""
    store = directory / BLOBS
    if store.is_symlink() or not store.is_dir():
        return 0
    moved = 0
    for path in sorted(store.iterdir()):
        name = path.name.removesuffix(BLOB_SUFFIX)
        if not BLOB_NAME_RE.match(path.name):
            continue
        try:
            data = Blobs().get(directory, name)
        except BadFile:
            continue
        put_blob(directory.parent, name, data, write)
        path.unlink()
        moved += 1
    try:
        store.rmdir()
    except OSError:
        pass  # something stays in it: what is not a blob, or a spoiled one
    return moved


def _unnamed(store: Path, records: Iterator[Path], names: Callable[[dict[str, Any]], list[str]]) -> list[Path] | None:
    if not store.is_dir():
        return []
    wanted: set[str] = set()
    for path in records:
        try:
            record = parse_json(read_bounded(path, EVIDENCE_MAX_BYTES, follow=False))
            if not isinstance(record, dict):
                return None
            wanted.update(names(record))
        except BadFile:
            return None
    return sorted(p for p in store.iterdir() if BLOB_NAME_RE.match(p.name) and p.name.removesuffix(BLOB_SUFFIX) not in wanted)


def check_writable(results: Path) -> None:
    """Fail before a probe runs, not after, when results cannot be written."""
    probe = results
    while not probe.exists():
        probe = probe.parent
    if not os.access(probe, os.W_OK | os.X_OK) or not probe.is_dir():
        raise InputError(f"results directory {results} is not writable: choose another with --results")
