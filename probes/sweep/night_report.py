"""The night's report (report.md, the pull request's body): FINDINGS' checks whose truth
changed first, then per agent and new release the verdicts that changed (old -> new, the
boundary as the merged timeline has it, the setup, a `probe cite` block with digests), the
surface diff against the baseline from the saved surfaces, every record of the new release
with its label and digest, what was not delivered (planned again tomorrow), the atlas's work
and the night's cost."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from probes.evidence.findings import Truth
from probes.evidence.load import Cell, load
from probes.report import timeline
from probes.report.cite import cite, evidence_digest
from probes.surface.diff import summary, surface_diff
from probes.surface.saved import load_saved
from probes.sweep.night_merge import Landed
from probes.sweep.nightly import AgentPlan
from probes.versions.spec import semver_key

CITES_MAX_CHARS = 25_000  # the unchanged records' cite blocks, while they fit
BODY_MAX_CHARS = 60_000  # a pull request's body holds 65,536 characters


@dataclass(frozen=True)
class Change:
    agent: str
    stem: str
    before: Cell  # the newest probed record before the new release
    after: Cell
    boundary: str  # where the merged timeline puts the change


def cell_text(text: str) -> str:
    """A value inside a Markdown table cell: one line, no pipe to break the row."""
    return " ".join(text.split()).replace("|", "\\|")


def changes_of(a: AgentPlan, cells: Sequence[Cell], delivered: AbstractSet[tuple[str, str, str]] = frozenset()) -> list[Change]:
    """Each record of a new release whose label differs from the newest earlier record of its
    recipe and setup that was there before the night (not one of `delivered`: a bisection's
    records lie between), with the boundary as the merged timeline has it."""
    by: dict[str, dict[str, Cell]] = {}
    for c in cells:
        if c.record.executed_version == c.version:
            by.setdefault(c.recipe, {})[c.version] = c
    known = timeline.candidates_of(a.snapshot) if a.snapshot else None
    out = []
    for name in sorted(by):
        points = {v: c.label for v, c in by[name].items()}
        _, bounds = timeline.build(points, known)
        for v in a.versions:
            if v not in points:
                continue
            earlier = sorted(
                (u for u in points if semver_key(u) < semver_key(v) and (a.agent, u, name) not in delivered), key=semver_key
            )
            if not earlier or points[earlier[-1]] == points[v]:
                continue
            low = earlier[-1]  # the change lies after it: the last boundary up to v
            b = next(
                (b for b in reversed(bounds) if semver_key(low) <= semver_key(b.before) and semver_key(b.after) <= semver_key(v)),
                None,
            )
            where = "-"
            if b is not None:
                between = timeline.between(b.before, b.after, known or [])
                where = (
                    f"{b.after} (exact: the release after {b.before})"
                    if b.exact
                    else f"open: after {b.before}, up to {b.after} ({len(between)} release(s) between unprobed)"
                )
            out.append(Change(a.agent, name, by[name][earlier[-1]], by[name][v], where))
    return out


def surface_line(results: Path, a: AgentPlan, old: str | None, new: str) -> str:
    if old is None:
        return "Surface: no earlier release to compare with."
    saved = {v: load_saved(results, a.agent, v) for v in (old, new)}
    missing = [v for v, s in saved.items() if s is None]
    if missing:
        return f"Surface not compared: no saved surface of {', '.join(missing)} (`probe surface {a.agent}@V --save`)."
    old_s, new_s = saved[old], saved[new]
    assert old_s is not None and new_s is not None
    return f"Surface {old} → {new}: {summary(surface_diff(old_s, new_s))}."


def link(path: Path, base: str, text: str) -> str:
    return f"[{text}]({base}{path.as_posix()})" if base else f"`{path.as_posix()}`"


def setup_of(cell: Cell) -> str:
    return cell.setup_key or "default"


def agent_section(landed: Landed, a: AgentPlan, results: Path, link_base: str, cites: bool = True) -> tuple[list[str], int]:
    """The agent's part of the report, and its verdict changes."""
    if not a.versions and not a.cells and not a.atlas:
        return [f"## {a.agent}", "", f"Nothing new after {a.start}.", ""], 0
    cells = load(results, a.agent) if (results / a.agent).is_dir() else []
    changes = changes_of(a, cells, landed.delivered)
    title = f"{', '.join(a.versions)} after {a.start}" if a.versions else f"no new release after {a.start}"
    lines = [f"## {a.agent}: {title}", ""]
    reps = [r for (agent, _), r in landed.shards.items() if agent == a.agent]
    ran = sum(len(r.cells) for r in reps)
    cpu = sum(r.cpu_s for r in reps) / 60
    lines += [
        f"{len(a.cells)} cell(s) planned in {len(a.shards)} shard(s), {ran} probed by the shards that delivered "
        f"({cpu:.1f} CPU-min); **{len(changes)} verdict change(s)**."
        + (f" Not planned (cannot run here): {', '.join(f'{v} ({r})' for v, r in a.skipped.items())}." if a.skipped else ""),
        "",
    ]
    before = a.baseline
    for v in a.versions:
        mine = [c for c in changes if c.after.version == v]
        title = f"### {a.agent} {before} → {v}" if before else f"### {a.agent} {v}"
        lines += [title, "", surface_line(results, a, before, v), ""]
        if mine:
            lines += [
                f"#### Changed verdicts ({len(mine)})",
                "",
                "| record | setup | before | after | changed in | evidence |",
                "|---|---|---|---|---|---|",
            ]
            lines += [
                f"| `{c.after.base}` | {setup_of(c.after)} | {cell_text(c.before.label)} ({c.before.version}) | "
                f"**{cell_text(c.after.label)}** | {c.boundary} | {link(c.after.path, link_base, v)} |"
                for c in mine
            ]
            lines.append("")
            for c in mine:
                lines += [f"#### `{c.stem}` on {a.agent} {v}", "", cite(c.after, results), ""]
        else:
            lines += ["No verdict changed.", ""]
        lines += every_record(a, v, [c for c in cells if c.version == v], {c.stem for c in mine}, results, cites)
        before = v
    return lines, len(changes)


def every_record(
    a: AgentPlan, version: str, cells: Sequence[Cell], changed: set[str], results: Path, cites: bool = True
) -> list[str]:
    """Each record of the release: label, setup and digest; their cite blocks while they fit."""
    if not cells:
        return ["No record of this release."]
    rows = [
        f"| `{c.base}` | {setup_of(c)} | {cell_text(c.label)} | `{evidence_digest(c.path)[:16]}` |"
        for c in sorted(cells, key=lambda c: c.recipe)
    ]
    lines = [
        f"<details><summary>Every record of {a.agent} {version} ({len(cells)}): label and sha256 "
        f"(`probe cite {a.agent}@{version} RECIPE[@SETUP]` gives each block)</summary>",
        "",
        "| record | setup | label | sha256 |",
        "|---|---|---|---|",
        *rows,
        "",
        "</details>",
        "",
    ]
    blocks: list[str] = []
    size = 0
    for c in sorted(cells, key=lambda c: c.recipe) if cites else []:
        if c.recipe in changed:
            continue
        block = cite(c, results)
        if size + len(block) > CITES_MAX_CHARS:
            blocks.append(f"... {len(cells) - len(blocks)} more: `probe cite {a.agent}@{version} RECIPE`")
            break
        blocks += [f"#### `{c.recipe}`", "", block]
        size += len(block)
    if blocks:
        lines += [f"<details><summary>Cite blocks of {a.agent} {version}</summary>", "", *blocks, "</details>", ""]
    return lines


def findings_lines(landed: Landed) -> list[str]:
    moved = landed.findings_changed
    broke = [t for old, t in moved if not t.holds]
    if not landed.after:
        return []
    if not moved:
        return [f"FINDINGS: all {sum(t.holds for t in landed.after)} of {len(landed.after)} check(s) hold as before.", ""]
    lines = [f"**FINDINGS: {len(broke)} check(s) no longer hold, {len(moved) - len(broke)} hold now.**", ""]
    lines += [f"- {'broken' if not t.holds else 'now holds'}: _{t.title}_: `{t.check[:160]}`{why(t)}" for _, t in moved]
    return [*lines, ""]


def why(t: Truth) -> str:
    return f" ({cell_text(t.why[:200])})" if t.why else ""


def not_delivered(landed: Landed) -> list[str]:
    lines = []
    for j in landed.missing_jobs:
        lines.append(f"| {j.agent} {j.shard} | every cell of the shard | no artifact of it landed |")
    for art, reason in landed.refused:
        lines.append(f"| {cell_text(art)} | every cell of the artifact | refused: {cell_text(reason[:240])} |")
    for r in landed.shards.values():
        lines += [
            f"| {r.agent}@{c.version} | `{c.recipe}`{f' {c.setup}' if c.setup else ''} | {cell_text(c.reason or c.status)} |"
            for c in r.cells
            if c.status != "done"
        ]
    pending = sum(len(v) for v in landed.pending.values())
    if not lines and not pending:
        return []
    out = ["## Not delivered", ""]
    if lines:
        out += ["| where | what | why |", "|---|---|---|", *lines, ""]
    if pending:
        out += [f"{pending} planned cell(s) have no record: kept in results/AGENT/pending.json, planned again next night.", ""]
    return out


def cost_lines(landed: Landed) -> list[str]:
    rows = []
    for (agent, shard), r in sorted(landed.shards.items()):
        probes = sum(d.get("probes", 0) for d in r.atlas)
        left = f", {len(r.atlas_left)} left" if r.atlas_left else ""
        pairs = f"{len(r.atlas)} ({probes} probe(s){left})"
        rows.append(f"| {agent} | {shard} | {len(r.cells)} | {len(r.bisected)} | {pairs} | {r.wall_s:.0f} | {r.cpu_s / 60:.1f} |")
    if not rows:
        return []
    return [
        "## Shards",
        "",
        "| agent | shard | cells | bisected | atlas pairs | wall s | CPU-min |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]


def report(landed: Landed, results: Path, link_base: str = "", cites: bool = True) -> tuple[str, int]:
    """The Markdown report and the count of verdicts changed; without the unchanged records'
    cite blocks when with them it would not fit a pull request's body."""
    body, changed = [], 0
    for a in landed.night.agents:
        part, n = agent_section(landed, a, results, link_base, cites)
        body += part
        changed += n
    head = ["# Nightly probe", "", *findings_lines(landed)]
    agents = ", ".join(f"{a.agent} {', '.join(a.versions)}" for a in landed.night.agents if a.versions) or "none"
    head += [f"New releases: {agents}. **{changed} verdict change(s).**", ""]
    text = "\n".join([*head, *body, *not_delivered(landed), *cost_lines(landed)]) + "\n"
    if cites and len(text) > BODY_MAX_CHARS:
        return report(landed, results, link_base, cites=False)
    return text, changed
