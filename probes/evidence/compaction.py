"""Compact records (issue 32; docs/evidence.md, "Compact records"): evidence that stays
affordable as the atlas fills every timeline. For one agent, recipe and setup (a record file's
stem), a record whose label, observations (but timings) and invocations by event equal those of
both its neighbours in version order (the adjacent probed versions) repeats them: it is stored
without its session's bulk (lean.DROPPED: invocations, model requests, transcript), keeping
everything a reader needs to cite it and the tables, timelines, diffs and the atlas read, and
saying what was left out, the sha256 and size of the full record as it was, and the neighbours
it repeated (model.Compacted). Blobs no record refers to any more are then removed.

Whole stay: each stem's first and last probed versions and both sides of every boundary (they
differ from a neighbour); the window's first and last releases and its `whole` versions
(catalog/windows.yaml: those the tests read records of; the pinned ones when it names none);
every record a check in results/FINDINGS.md names (it reads their invocations and requests); a
record whose version differs from the one asked, with an `error`, or whose repeats disagree,
and its neighbours; every record of an agent without a window or registry snapshot (VS Code). A compact record
stays compact: compacting again changes nothing (idempotent)."""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probes.catalog import windows
from probes.errors import InputError
from probes.evidence.lean import emptied, lean
from probes.evidence.model import parse_evidence, write_atomic
from probes.evidence.store import (
    BLOBS,
    Blobs,
    digest,
    hoist,
    join_shared,
    put_blobs,
    refs,
    shared_ref,
    stored_form,
    unreferenced,
    unshared,
)
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, listed, parse_json, read_bounded, warn
from probes.report.timeline import read_snapshot
from probes.versions.spec import semver_key

GRACE_S = 60.0  # a blob written or touched this recently may be about to be referred to (store.put_blob)
CHECK_RE = re.compile(r"<!--\s*check:\s*([^;]*);")  # results/FINDINGS.md (docs/findings.md)
VERSION_RE = re.compile(r"\d+(\.\d+)*(-[0-9A-Za-z.-]+)?")  # a version folder's name (not _blobs, not unknown-*)


@dataclass(frozen=True)
class Point:
    """One record, as compaction compares it with its neighbours."""

    agent: str
    version: str
    stem: str  # RECIPE or RECIPE@KEY: one row of a table
    path: Path
    same: str | None  # what a neighbour must equal to be repeated (JSON); None: never (nor it a neighbour's)
    compact: bool = False  # stored compact already


@dataclass(frozen=True)
class Plan:
    """One record to store compact."""

    path: Path
    neighbours: tuple[str, str]
    before: int  # its file's bytes now
    text: str  # the compact record, as it will be written (its own part: store.lean)
    shared: tuple[str, bytes] | None  # the shared blob it names (sha256 hex, bytes), in its agent's _blobs
    again: bool = False  # compact already: stored smaller now (DROPPED grew, or on one line)
    relaid: bool = False  # a whole record stored as store.stored_form stores it now (layout, implied keys)
    blobs: dict[str, bytes] = field(default_factory=dict)  # a relaid record's blobs beside it (there already)


@dataclass
class Sizes:
    """One agent's evidence: records, how many compact, version folders, and the bytes of their
    files (records and blobs) and what those files take on disk (whole blocks)."""

    records: int = 0
    compact: int = 0
    versions: int = 0
    bytes: int = 0
    disk: int = 0

    def per_record(self) -> float:
        return self.bytes / self.records if self.records else 0.0

    def per_version(self) -> float:
        return self.bytes / self.versions if self.versions else 0.0


@dataclass
class Compaction:
    plans: list[Plan] = field(default_factory=list)
    folders: set[Path] = field(default_factory=set)  # every version folder read: where older blobs may be left (hoisted)
    agents: set[Path] = field(default_factory=set)  # every agent's folder read: where shared blobs may be left unnamed
    before: dict[str, Sizes] = field(default_factory=dict)
    after: dict[str, Sizes] = field(default_factory=dict)


def repeated(record: Mapping[str, Any]) -> str | None:
    """What a record's neighbours must equal for one to repeat the other: the label, the
    observations but timings (`*_s`: they move on every run; the record keeps its own) and the
    invocations by event. None for a record that stands whole and repeats nothing: another
    version ran than the one asked, the session did something to the run (`error`), its
    repeats disagree, or a person recorded it."""
    spread = (record.get("repeats") or {}).get("outcomes") or {}
    if record.get("version_mismatch") or record.get("error") or record.get("provenance") or len(spread) > 1:
        return None
    obs = {k: v for k, v in (record.get("observations") or {}).items() if not k.endswith("_s")}
    return json.dumps([record.get("outcome"), obs, record.get("invocations_by_event")], sort_keys=True)


def choose(
    points: Iterable[Point], whole: Mapping[str, set[str] | None], cited: set[tuple[str, str, str]]
) -> list[tuple[Point, str, str]]:
    """The records to compact, each with its older and newer neighbour: every point (not
    compact yet) whose `same` equals both neighbours' in its stem's version order, unless its
    agent is not compacted (`whole` None), its version is kept whole, or a check cites it."""
    by: dict[tuple[str, str], list[Point]] = {}
    for p in points:
        by.setdefault((p.agent, p.stem), []).append(p)
    chosen = []
    for (agent, stem), group in sorted(by.items()):
        keep = whole.get(agent)
        if keep is None:
            continue
        group.sort(key=lambda p: semver_key(p.version))
        for before, p, after in zip(group, group[1:], group[2:], strict=False):
            if p.compact or p.same is None or p.version in keep or (agent, p.version, stem) in cited:
                continue
            if before.same == p.same == after.same:
                chosen.append((p, before.version, after.version))
    return chosen


def kept_whole(results: Path, agent: str, wins: Mapping[str, windows.Window]) -> set[str] | None:
    """The versions of `agent` whose records stay whole: its window's first and last releases
    and its `whole` versions (those the tests read; its pinned ones when it names none); None
    when it has no window or no registry snapshot to place one."""
    snap = read_snapshot(results, agent) if agent in wins else None
    if snap is None:
        return None
    try:
        span = windows.span(agent, wins[agent], snap)
    except InputError:
        return None
    return {span.first, span.last, *wins[agent].kept_whole}


def cited(results: Path) -> set[tuple[str, str, str]]:
    """(agent, version, stem) of every record a check in results/FINDINGS.md names."""
    try:
        text = read_bounded(results / "FINDINGS.md", EVIDENCE_MAX_BYTES).decode("utf-8", "replace")
    except BadFile:
        return set()  # no findings: none cited
    out = set()
    for head in CHECK_RE.findall(text):
        spec, _, stem = head.strip().partition(" ")
        agent, _, version = spec.partition("@")
        out.add((agent, version, stem.strip()))
    return out


def outside(results: Path, agents: Sequence[str] | None = None) -> list[Path]:
    """The version folders of each agent with a window (or of `agents`) whose version lies
    before the window's `from`, is not pinned, and is not read by a check in
    results/FINDINGS.md (a range check reads every version in its range): what
    `probe compact --outside-window` removes once a window's `from` moves on, so that
    results/ stays bounded while the nightly adds releases (their records stay in git's
    history)."""
    wins = windows.load()
    spans = []
    for agent, version, _ in cited(results):
        lo, _, hi = version.partition("..")
        spans.append((agent, semver_key(lo), semver_key(hi or lo)))
    found = []
    for agent, window in sorted(wins.items()):
        agent_dir = results / agent
        if (agents is not None and agent not in agents) or agent_dir.is_symlink() or not agent_dir.is_dir():
            continue
        for folder in sorted(agent_dir.iterdir()):
            version = folder.name
            if folder.is_symlink() or not folder.is_dir() or not VERSION_RE.fullmatch(version):
                continue
            key = semver_key(version)
            if key >= semver_key(window.start) or version in window.pinned:
                continue
            if not any(a == agent and lo <= key <= hi for a, lo, hi in spans):
                found.append(folder)
    return found


def compact_text(path: Path, data: bytes, neighbours: tuple[str, str], blobs: Blobs) -> tuple[str, tuple[str, bytes]] | None:
    """The record stored in `path` (its bytes `data`) as a compact record, on one line, and its
    shared blob (lean.lean): each of DROPPED that holds something left empty, everything else
    as it was, and what it was (model.Compacted); None when that is what is stored already. A
    record compacted before (DROPPED grew, or it was not split yet) keeps its digest and
    neighbours (of the full record) and loses the rest. Checked to read as a record before it
    is returned; InputError naming the file when it or a blob cannot be read."""
    try:
        record = parse_json(data)
        join_shared(record, path.parent, blobs)
        was = record.get("compacted")
        full_sha256, full_bytes = (was["full_sha256"], was["full_bytes"]) if was else digest(data, path.parent, blobs)
    except (BadFile, KeyError, TypeError) as e:
        raise InputError(f"{path}: not an evidence record ({e})") from None
    record, names = emptied(record)
    if not names and not was:
        return None
    record["compacted"] = {
        "dropped": [*(was["dropped"] if was else []), *(n for n in names if not was or n not in was["dropped"])],
        "full_bytes": full_bytes,
        "full_sha256": full_sha256,
        "neighbours": list(was["neighbours"] if was else neighbours),
    }
    text, blob = lean(record)
    if text.encode("utf-8") == data:
        return None
    blobs.known.setdefault(*blob)  # not written yet
    parse_evidence(path, text.encode("utf-8"), blobs)  # it reads, refs and all, or nothing is written
    return text, blob


def relaid_text(path: Path, data: bytes, blobs: Blobs) -> tuple[str, dict[str, bytes], tuple[str, bytes]] | None:
    """A whole record's text as `store.stored_form` writes it now (layout.items, implied keys
    left out, its recipe's part shared: lean.shares), its blobs and its shared blob, when its
    file holds another (written by an older harness); None when it is stored so already or
    cannot be read. Checked to read as the same record."""
    try:
        record = parse_evidence(path, data, blobs)
    except InputError:
        return None
    text, side, shared = stored_form(record)
    if text.encode("utf-8") == data:
        return None
    blobs.known.update(shared)  # not written yet
    if parse_evidence(path, text.encode("utf-8"), Blobs({**blobs.known, **side})) != record:
        raise InputError(f"{path}: stored again, it would not read the same (a bug: nothing written)")
    return text, side, next(iter(shared.items()))


def plan(results: Path, agents: Sequence[str] | None = None) -> Compaction:
    """What compacting `results` (every agent's evidence, or `agents`') would write, and the
    sizes before and after. A record that cannot be read is named and stays as it is, and so
    do its neighbours (their neighbour is unknown)."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    wins = windows.load()
    blobs = Blobs()
    points: list[Point] = []
    data: dict[Path, bytes] = {}
    for path in listed(results):
        agent, version = path.parts[-3], path.parts[-2]
        if (agents is not None and agent not in agents) or version.startswith("unknown-"):
            continue
        try:
            data[path] = read_bounded(path, EVIDENCE_MAX_BYTES, follow=False)
            record = parse_evidence(path, data[path], blobs)
        except (BadFile, InputError) as e:
            warn(f"left whole, with its neighbours: {e}")
            points.append(Point(agent, version, path.stem, path, None))
            continue
        points.append(Point(agent, version, path.stem, path, repeated(record), record.get("compacted") is not None))
    whole = {a: kept_whole(results, a, wins) for a in sorted({p.agent for p in points})}
    found = Compaction()
    for p, older, newer in choose(points, whole, cited(results)):
        made = compact_text(p.path, data[p.path], (older, newer), blobs)
        if made is not None:
            found.plans.append(Plan(p.path, (older, newer), len(data[p.path]), *made))
    for p in points:
        made = compact_text(p.path, data[p.path], ("", ""), blobs) if p.compact else None
        if made is not None:
            was = parse_json(made[0].encode("utf-8"))["compacted"]["neighbours"]
            found.plans.append(Plan(p.path, (was[0], was[1]), len(data[p.path]), *made, again=True))
    planned = {pl.path for pl in found.plans}
    for p in points:
        relaid = None if p.compact or p.path in planned else relaid_text(p.path, data[p.path], blobs)
        if relaid is not None:
            text, side, blob = relaid
            found.plans.append(Plan(p.path, ("", ""), len(data[p.path]), text, blob, relaid=True, blobs=side))
    found.folders = {p.path.parent for p in points}
    found.agents = {p.path.parent.parent for p in points}
    new = {pl.path: pl.text for pl in found.plans}
    written = {k: v for pl in found.plans for k, v in [*([pl.shared] if pl.shared else []), *pl.blobs.items()]}
    stored_as_now = {pl.path for pl in found.plans if pl.relaid}
    found.before, found.after = sizes(points, data, new, written, stored_as_now)
    return found


def sizes(
    points: Sequence[Point],
    data: Mapping[Path, bytes],
    new: Mapping[Path, str],
    blobs: Mapping[str, bytes] | None = None,
    relaid: set[Path] | None = None,
) -> tuple[dict[str, Sizes], dict[str, Sizes]]:
    """Each agent's Sizes now (every record and blob file there: its store's, and those an
    older harness left beside its records) and once the `new` texts and their `blobs` are
    written, every blob in its store (apply: hoisted) and the blobs no record refers to then
    removed."""
    block = os.statvfs(points[0].path).f_bsize if points else 4096
    relaid = relaid or set()  # whole records in `new`: stored as now, not compact
    before: dict[str, Sizes] = {}
    after: dict[str, Sizes] = {}
    folders: dict[Path, list[Point]] = {}
    for p in points:
        folders.setdefault(p.path.parent, []).append(p)
    wanted: dict[Path, set[str]] = {}  # an agent's folder -> the blobs its records refer to then
    found: dict[Path, dict[str, int]] = {}  # an agent's folder -> each blob there now, either place

    def add(s: Sizes, size: int) -> None:
        s.bytes += size
        s.disk += math.ceil(size / block) * block

    for folder, here in folders.items():
        agent = here[0].agent
        b, a = before.setdefault(agent, Sizes()), after.setdefault(agent, Sizes())
        for p in here:
            old = data.get(p.path)
            text = new[p.path].encode("utf-8") if p.path in new else old
            for s, raw, is_compact in ((b, old, p.compact), (a, text, p.compact or (p.path in new and p.path not in relaid))):
                s.records += 1
                s.compact += is_compact
                add(s, len(raw or b""))
            wanted.setdefault(folder.parent, set()).update(*stored_refs(text))
        b.versions += 1
        a.versions += 1
        for blob, size in blob_sizes(folder / BLOBS).items():
            add(b, size)
            found.setdefault(folder.parent, {}).setdefault(blob, size)
    for agent_dir, names in wanted.items():
        agent = agent_dir.name
        there = blob_sizes(agent_dir / BLOBS)
        for size in there.values():
            add(before[agent], size)
        there = {**found.get(agent_dir, {}), **there}
        for name in names:
            add(after[agent], there.get(name, len((blobs or {}).get(name, b""))))
    return before, after


def blob_sizes(store: Path) -> dict[str, int]:
    """sha256 hex -> bytes of each blob in `store`."""
    return {b.name.removesuffix(".txt"): b.lstat().st_size for b in store.iterdir()} if store.is_dir() else {}


def stored_refs(data: bytes | None) -> tuple[set[str], set[str]]:
    """The blobs a stored record names: those beside it, and its shared one."""
    try:
        record = parse_json(data) if data is not None else None
        if not isinstance(record, dict):
            return set(), set()
        name = shared_ref(record)
        return set(refs(record)), {name} if name else set()
    except BadFile:
        return set(), set()


def apply(found: Compaction, grace_s: float = GRACE_S) -> int:
    """Write each planned record (atomically, its blobs first), then remove the blobs no record
    refers to, unless written or touched in the last `grace_s` seconds (a probe writing there
    may be about to refer to one): first those an older harness left beside the records of
    each version folder, whose other blobs then move to their agent's store (store.hoist),
    then each agent's store. Returns the blobs removed."""
    for p in found.plans:
        put_blobs(p.path, p.blobs, dict([p.shared] if p.shared else []), write_atomic)
        write_atomic(p.path, p.text)
    removed = sweep([unreferenced(folder) for folder in sorted(found.folders)], grace_s)
    for folder in sorted(found.folders):
        hoist(folder, write_atomic)
    return removed + sweep([unshared(a) for a in sorted(found.agents)], grace_s)


def sweep(gone: list[list[Path] | None], grace_s: float) -> int:
    removed = 0
    now = time.time()
    for blob in (b for blobs in gone for b in blobs or []):
        if now - blob.lstat().st_mtime >= grace_s:
            blob.unlink(missing_ok=True)
            removed += 1
    return removed
