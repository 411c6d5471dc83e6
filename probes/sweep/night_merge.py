"""The night landed (`probe nightly merge`): each shard's artifact checked and merged on its own
(one that is missing or refused is reported, and the others still land), the releases that
could not run added to unrunnable.json, the registry snapshot as planned, the cells no shard
delivered kept in pending.json for the next night's plan, the records compacted, and
FINDINGS' checks evaluated before and after. The report is night_report.py's."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from probes import progress
from probes.errors import InputError
from probes.evidence import compaction, findings, unrunnable
from probes.evidence.merge import merge
from probes.evidence.model import check_writable
from probes.report import timeline
from probes.sweep.night_shard import ShardReport, read_report
from probes.sweep.nightly import Job, NightPlan, PlannedCell, recorded, write_pending
from probes.versions import spec


@dataclass
class Landed:
    night: NightPlan
    shards: dict[tuple[str, str], ShardReport] = field(default_factory=dict)  # (agent, shard) -> its report
    refused: list[tuple[str, str]] = field(default_factory=list)  # (artifact, why)
    written: int = 0  # records new or changed in results/
    identical: int = 0
    pending: dict[str, list[PlannedCell]] = field(default_factory=dict)  # agent -> cells still missing
    delivered: set[tuple[str, str, str]] = field(default_factory=set)  # (agent, version, stem) of each record landed
    before: list[findings.Truth] = field(default_factory=list)
    after: list[findings.Truth] = field(default_factory=list)

    @property
    def missing_jobs(self) -> list[Job]:
        return [j for j in self.night.matrix if (j.agent, j.shard) not in self.shards]

    @property
    def findings_changed(self) -> list[tuple[findings.Truth | None, findings.Truth]]:
        return findings.changed(self.before, self.after)


def land(night: NightPlan, artifacts: list[Path], results: Path, compact: bool = True) -> Landed:
    """Merge every artifact that checks out into `results`; what did not is said, not raised."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}")
    check_writable(results)
    done = Landed(night)
    progress.say("nightly merge: FINDINGS' checks before")
    done.before = findings.evaluate(results)
    jobs = {(j.agent, j.shard) for j in night.matrix}
    for art in artifacts:
        try:
            rep = read_report(art)
            if (rep.agent, rep.shard) not in jobs:
                raise InputError(f"{art}: shard {rep.agent} {rep.shard} is not a job of this plan")
            if (rep.agent, rep.shard) in done.shards:
                raise InputError(f"{art}: shard {rep.agent} {rep.shard} delivered twice")
            tree = art / "results"
            if tree.is_dir():
                written, same = merge([tree], results)
                done.delivered |= {(p.parts[-3], p.parts[-2], p.stem) for p in tree.glob("*/*/*.json")}
                done.written, done.identical = done.written + written, done.identical + same
                lost = unrunnable.both(tree, rep.agent)
                if lost[0]:
                    unrunnable.record(results, rep.agent, lost[0])
                for recipe, vs in lost[1].items():
                    unrunnable.record(results, rep.agent, vs, recipe)
        except InputError as e:
            done.refused.append((str(art), str(e)))
            progress.say(f"nightly merge: {art} refused: {e}")
            continue
        done.shards[rep.agent, rep.shard] = rep
    for a in night.agents:
        if a.snapshot:
            timeline.write_snapshot(results, a.agent, spec.Published(a.snapshot, a.latest or a.snapshot[-1]))
        have = recorded(results, a.agent)
        done.pending[a.agent] = [c for c in a.cells if (c.version, c.stem) not in have]
        write_pending(results, a.agent, done.pending[a.agent])
    if compact:
        progress.say("nightly merge: compacting")
        found = compaction.plan(results, [a.agent for a in night.agents if a.snapshot])
        if found.plans or found.before != found.after:
            compaction.apply(found)
    progress.say("nightly merge: FINDINGS' checks after")
    done.after = findings.evaluate(results)
    return done
