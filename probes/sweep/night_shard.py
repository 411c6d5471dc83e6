"""One job of the night (`probe nightly shard`): its slice of the plan's cells probed through
the matrix, the new releases' surfaces saved (and the baseline's, by the first shard of each
agent, so the report can diff them though the baseline is not installed where it is read),
its atlas pairs filled (ends, open boundaries bisected, controls) within a time bound, then
delivered: every file it added or changed under results/ copied into the artifact directory
with the same layout (`OUT/results/AGENT/...`), and `OUT/shard.json` saying what it did, what
failed and what it cost. The workflow uploads OUT as it is; `probe nightly merge` reads it."""

from __future__ import annotations

import hashlib
import resource
import shutil
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from probes import progress
from probes.agents import get as get_agent
from probes.catalog import windows
from probes.catalog.recipes import load_all
from probes.catalog.setup import stem
from probes.errors import InputError, ProbeError
from probes.evidence.model import check_writable, write_atomic
from probes.evidence.store import BLOBS, refs, shared_ref
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, parse_json, read_bounded
from probes.report import timeline
from probes.surface.saved import load_saved, save_installed
from probes.sweep import atlas, atlas_fill, matrix
from probes.sweep.narrow import Narrowed, narrow
from probes.sweep.nightly import PLAN_MAX_BYTES, AgentPlan, NightPlan, recorded
from probes.versions import install, spec

MANIFEST = "shard.json"
DELIVERED = ("*/*.json", "_blobs/*.txt", "*/_blobs/*.txt", "surface-*.json", "unrunnable.json")  # under results/AGENT


class CellDone(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: str
    recipe: str
    setup: str = ""
    status: str  # done, failed
    outcome: str | None = None
    reason: str | None = None
    wall_s: float | None = None
    cpu_s: float | None = None


class ShardReport(BaseModel):
    """OUT/shard.json: what one job of the night did."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    shard: str
    cells: list[CellDone]
    bisected: list[dict[str, Any]] = []  # narrow.Narrowed.as_json of each changed verdict bisected
    atlas: list[dict[str, Any]] = []  # atlas_fill.done_json of each pair filled
    atlas_left: list[str] = []  # the shard's pairs still incomplete (the next night resumes)
    files: int = 0  # files delivered
    wall_s: float = 0.0
    cpu_s: float = 0.0  # every process of the job, children included


def fingerprint(results: Path, agent: str) -> dict[str, str]:
    """rel path -> sha256 of each file a night may add or change under results/AGENT (regular
    files only: a link is never delivered)."""
    out = {}
    for pattern in DELIVERED:
        for path in sorted((results / agent).glob(pattern)):
            if path.is_symlink() or not path.is_file():
                continue
            out[path.relative_to(results).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def deliver(results: Path, agent: str, before: dict[str, str], out: Path) -> int:
    """Copy what changed since `before` into OUT/results/..., as the artifact holds it, with
    every blob a delivered record refers to (most were there before: an artifact is whole)."""
    after = fingerprint(results, agent)
    changed = {rel for rel, h in after.items() if before.get(rel) != h}
    for rel in list(changed):
        if rel.count("/") == 2 and rel.endswith(".json"):  # agent/version/stem.json
            changed |= blobs_of(results, rel)
    for rel in sorted(changed):
        dest = out / "results" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(results / rel, dest, follow_symlinks=False)
    return len(changed)


def blobs_of(results: Path, rel: str) -> set[str]:
    """The blobs (rel paths) the record at `rel` refers to, where they are stored."""
    try:
        record = parse_json(read_bounded(results / rel, EVIDENCE_MAX_BYTES, follow=False))
    except BadFile:
        return set()
    if not isinstance(record, dict):
        return set()
    agent, version, _ = rel.split("/")
    names = [*refs(record), *([shared] if (shared := shared_ref(record)) else [])]
    out = set()
    for name in names:
        for rel_blob in (f"{agent}/{BLOBS}/{name}.txt", f"{agent}/{version}/{BLOBS}/{name}.txt"):
            path = results / rel_blob
            if path.is_file() and not path.is_symlink():
                out.add(rel_blob)
                break
    return out


def _cpu_s() -> float:
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def run_shard(
    night: NightPlan, agent: str, shard: str, results: Path, out: Path, jobs: int | None = None, minutes: int | None = None
) -> ShardReport:
    """Probe, save, fill and deliver one shard; what failed is said in the report, never raised."""
    t0, cpu0 = time.monotonic(), _cpu_s()
    a = night.agent(agent)
    a.shard_named(shard)  # one line when the plan has no such shard
    if out.exists() and any(out.iterdir()):
        raise InputError(f"--out {out} is not empty: a shard delivers into a directory of its own")
    check_writable(results)
    out.mkdir(parents=True, exist_ok=True)
    before = fingerprint(results, agent)
    if a.snapshot:  # the registry as planned: the atlas's window reaches the new releases
        timeline.write_snapshot(results, agent, spec.Published(a.snapshot, a.latest or a.snapshot[-1]))
    done = probe_cells(a, shard, results, jobs)
    bisected = bisect_changes(a, done, results, jobs)
    save_surfaces(a, shard, results)
    filled, left = fill_atlas(a, shard, results, jobs, minutes)
    report = ShardReport(
        agent=agent,
        shard=shard,
        cells=done,
        bisected=[n.as_json() for n in bisected],
        atlas=[atlas_fill.done_json(d) for d in filled],
        atlas_left=left,
    )
    report.files = deliver(results, agent, before, out)
    report.wall_s, report.cpu_s = round(time.monotonic() - t0, 1), round(_cpu_s() - cpu0, 1)
    write_atomic(out / MANIFEST, report.model_dump_json(indent=1) + "\n", "shard report", "check --out")
    return report


def probe_cells(a: AgentPlan, shard: str, results: Path, jobs: int | None) -> list[CellDone]:
    have = recorded(results, a.agent)
    planned = a.cells_of(shard)
    todo = [matrix.Cell(f"{a.agent}@{c.version}", c.recipe, c.setup) for c in planned if (c.version, c.stem) not in have]
    progress.say(f"nightly {a.agent} {shard}: {len(todo)} cell(s) to probe, {len(planned) - len(todo)} already recorded")
    ran = matrix.run(todo, results, jobs) if todo else []
    return [
        CellDone(
            version=c.spec.split("@", 1)[1],
            recipe=c.recipe,
            setup=c.setup,
            status=c.status,
            outcome=c.outcome,
            reason=c.reason,
            wall_s=c.wall_s,
            cpu_s=c.cpu_s,
        )
        for c in ran
    ]


def bisect_changes(a: AgentPlan, done: list[CellDone], results: Path, jobs: int | None) -> list[Narrowed]:
    """Each verdict of a new release that differs from the newest probed release before it,
    with releases between them unprobed (a setup held on a few releases, a release that
    failed), bisected to the release that made it, over the releases as planned."""
    out: list[Narrowed] = []
    for c in done:
        name = stem(c.recipe, c.setup)
        if c.status != "done":
            continue
        points = timeline.points_of(results, a.agent, name)
        earlier = sorted((v for v in points if spec.semver_key(v) < spec.semver_key(c.version)), key=spec.semver_key)
        if not earlier or c.version not in points or points[earlier[-1]] == points[c.version]:
            continue
        if timeline.between(earlier[-1], c.version, timeline.candidates_of(a.snapshot)):
            progress.say(f"nightly {a.agent}: {name} changed between {earlier[-1]} and {c.version}: bisecting")
            out += narrow(a.agent, earlier[-1], c.version, [name], results, jobs or 1, releases=a.snapshot)
    return out


def save_surfaces(a: AgentPlan, shard: str, results: Path) -> None:
    """Each new release's surface (installed by its cells); the first shard also installs the
    baseline when its surface was never saved, so the merge can diff the two offline."""
    for v in a.versions:
        save_installed(a.agent, v, results)
    if a.baseline and shard.startswith("1/") and a.versions and load_saved(results, a.agent, a.baseline) is None:
        agent = get_agent(a.agent)
        try:
            install.install(agent, a.baseline)
        except ProbeError as e:
            progress.say(f"nightly: baseline {a.agent} {a.baseline} not installed, its surface not saved ({e})")
            return
        save_installed(a.agent, a.baseline, results)


def fill_atlas(
    a: AgentPlan, shard: str, results: Path, jobs: int | None, minutes: int | None
) -> tuple[list[atlas_fill.Done], list[str]]:
    """The shard's atlas pairs filled over the window (the registry as planned)."""
    mine = set(a.atlas_of(shard))
    wins = windows.load()
    if not mine or a.agent not in wins:
        return [], []
    found = atlas.check(results, wins, load_all(), [a.agent])
    pairs = [c for f in found for c in f.recipes if c.recipe in mine]
    done = atlas_fill.fill_all(pairs, results, jobs or 1, minutes)
    after = {(d.agent, d.recipe): d.after for d in done}
    left = [c.recipe for c in pairs if not (after.get((c.agent, c.recipe)) or c).complete]
    return done, left


def read_report(artifact: Path) -> ShardReport:
    """An artifact's shard.json, or InputError naming what is wrong."""
    path = artifact / MANIFEST
    try:
        return ShardReport.model_validate_json(read_bounded(path, PLAN_MAX_BYTES, follow=False))
    except BadFile as e:
        raise InputError(f"{path}: {e}") from None
    except ValueError as e:
        raise InputError(f"{path}: not a shard report ({str(e).splitlines()[0][:160]})") from None
