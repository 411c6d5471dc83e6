"""The version bump: find the releases of an agent newer than the newest probed one, run the
catalog on them through the matrix, and report what changed against the release before each.
Nightly jobs run it; its exit status (Exit.VERDICTS_CHANGED) tells a workflow to open a pull request."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from probes.agents import AGENTS
from probes.agents import get as get_agent
from probes.errors import Exit, InputError
from probes.evidence.load import load, versions_of
from probes.evidence.model import check_writable
from probes.limits import PLAN_MAX_BYTES, BadFile, load_json
from probes.report.diff import Change, compared, diff, diff_text
from probes.surface.read import changed_line
from probes.surface.saved import save_installed
from probes.sweep import matrix
from probes.sweep.narrow import Narrowed, narrow
from probes.versions import spec

# What `bump --dry-run --json` says of one agent's plan (and `from_file` reads back).
PlanSummary = TypedDict(
    "PlanSummary",
    {
        "agent": str,
        "from": str,
        "baseline": str | None,
        "versions": list[str],
        "recipe": str,
        "cells": int,
        "already_probed": int,
    },
)
StepJson = TypedDict(
    "StepJson",
    {"from": str | None, "to": str, "compared": int, "changes": list[Change], "bisected": list[dict[str, Any]]},
)


class PlanReport(PlanSummary):
    steps: list[StepJson]
    verdicts_changed: int
    failed: list[dict[str, Any]]  # matrix cells, as dataclasses.asdict makes them


# One job of the CI matrix: an agent's versions and one shard of its cells.
Job = TypedDict("Job", {"agent": str, "versions": str, "recipe": str, "from": str, "shard": str})


@dataclass
class Plan:
    agent: str
    start: str  # versions newer than this are new
    baseline: str | None  # the newest probed version before the first new one
    versions: list[str]
    recipe: str
    cells: list[matrix.Cell]
    already: int = 0  # cells of the new versions whose evidence exists (not run again)
    fixed: bool = False  # from --plan or a shard: exactly its versions, nothing bisected (narrow.py)

    def summary(self) -> PlanSummary:
        return {
            "agent": self.agent,
            "from": self.start,
            "baseline": self.baseline,
            "versions": self.versions,
            "recipe": self.recipe,
            "cells": len(self.cells),
            "already_probed": self.already,
        }


@dataclass
class Step:
    """One new version compared with the version before it."""

    before: str | None
    after: str
    compared: int = 0
    changes: list[Change] = field(default_factory=list)
    narrowed: dict[str, Narrowed] = field(default_factory=dict)  # recipe -> its change bisected

    @property
    def verdicts(self) -> list[Change]:
        return [c for c in self.changes if c["what"] == "outcome"]


def probed_versions(results: Path, agent: str) -> list[str]:
    """Versions with at least one evidence record in `results`, oldest first (a file that is
    not a record is skipped, with a warning naming it)."""
    return versions_of(load(results, agent) if results.is_dir() else [], agent)


def plan(
    agent_name: str,
    results: Path,
    start: str | None = None,
    recipe: str = "all",
    prereleases: bool = False,
    versions: str | None = None,
) -> Plan:
    agent = get_agent(agent_name)
    have = load(results, agent_name) if results.is_dir() else []
    probed = versions_of(have, agent_name)
    if start is None:
        if not probed:
            raise InputError(f"no {agent_name} evidence in {results}: pass --from VERSION to say where to start")
        start = probed[-1]
    else:
        spec.parse_spec(f"{agent_name}@{start}", AGENTS)
    chosen = matrix.select_versions(agent, versions or f"{start}..latest", prereleases)
    new = sorted((v for v in chosen if spec.semver_key(v) > spec.semver_key(start)), key=spec.semver_key)
    before = [v for v in probed if new and spec.semver_key(v) < spec.semver_key(new[0])]
    cells = matrix.cells(agent_name, new, recipe)
    done = {(f"{c.agent}@{c.version}", c.recipe) for c in have}  # a corrupt record is run again
    todo = [c for c in cells if (c.spec, c.recipe) not in done]
    return Plan(agent_name, start, before[-1] if before else None, new, recipe, todo, len(cells) - len(todo))


def from_file(path: Path, results: Path, agents: list[str] | None = None) -> list[Plan]:
    """The plans a `bump --dry-run --json` wrote, fixed: releases published since are not added,
    so every job of one nightly run works on the same versions."""
    try:
        saved = load_json(path, PLAN_MAX_BYTES)["plans"]
        for s in saved:  # the shape read below, so a hand-edited plan fails here, in one line
            if not (
                isinstance(s["agent"], str)
                and isinstance(s["from"], str)
                and isinstance(s["recipe"], str)
                and isinstance(s["versions"], list)
                and all(isinstance(v, str) for v in s["versions"])
            ):
                raise BadFile("agent, from, recipe and versions must be strings (versions a list)")
            for v in s["versions"]:
                if spec.parse_spec(f"{s['agent']}@{v}", AGENTS).version == "latest":
                    raise BadFile("versions must be exact")
    except (BadFile, KeyError, TypeError) as e:
        why = f"no {e}" if isinstance(e, KeyError) else str(e)
        raise InputError(f"--plan {path}: not the output of `probe bump --dry-run --json` ({why})") from None
    unknown = set(agents or ()) - {s["agent"] for s in saved}
    if unknown:
        raise InputError(f"--plan {path} has no plan for {', '.join(sorted(unknown))}")
    return [
        plan(s["agent"], results, s["from"], s["recipe"], prereleases=True, versions=",".join(s["versions"]))
        if s["versions"]
        else Plan(s["agent"], s["from"], None, [], s["recipe"], [])
        for s in saved
        if not agents or s["agent"] in agents
    ]


def compare(p: Plan, results: Path) -> list[Step]:
    """Each new version against the version before it (the baseline for the first)."""
    only = None if p.recipe == "all" else p.recipe
    cells = load(results, p.agent, only) if results.is_dir() else []
    have = set(versions_of(cells, p.agent))
    steps, before = [], p.baseline
    for v in p.versions:
        step = Step(before, v)
        if before is not None and before in have and v in have:
            step.compared = compared(cells, p.agent, before, v)
            step.changes = diff(cells, p.agent, before, v)
        steps.append(step)
        if v in have:
            before = v
    return steps


def report(
    p: Plan, steps: list[Step], failed: list[matrix.Cell], results: Path, link_base: str = "", surface: bool = False
) -> str:
    """A Markdown change report, fit for a pull-request body; with `surface`, each step says
    what the new release declares that the one before did not (both installed here)."""

    def link(version: str, recipe: str) -> str:
        path = results / p.agent / version / f"{recipe}.json"
        return f"[{version}]({link_base}{path.as_posix()})"

    changed = sum(len(s.verdicts) for s in steps)
    lines = [f"## {p.agent}: {len(p.versions)} new release(s) after {p.start}", ""]
    if not p.versions:
        return "\n".join(lines + ["Nothing new to probe.", ""])
    what = p.recipe if p.recipe != "all" else "the catalog"
    ran = f"{len(p.cells)} cell(s) run" + (f", {p.already} already probed" if p.already else "")
    lines += [f"Probed {', '.join(p.versions)} with {what} ({ran}): **{changed} verdict change(s)**.", ""]
    for s in steps:
        title = f"### {p.agent} {s.before} → {s.after}" if s.before else f"### {p.agent} {s.after}"
        lines += [title, ""]
        if not s.compared or s.before is None:
            lines += [
                "No earlier evidence to compare with."
                if s.before is None
                else f"No recipe has evidence on both {s.before} and {s.after}.",
                "",
            ]
            continue
        if surface and (said := changed_line(p.agent, s.before, s.after)):  # docs/surface.md
            lines += [f"{said}.", ""]
        if s.verdicts:
            lines += [f"| recipe | {s.before} | {s.after} | changed in | evidence |", "|---|---|---|---|---|"]
            lines += [
                f"| `{c['recipe']}` | {c['from']} | **{c['to']}** | {changed_in(s, c['recipe'])} | "
                f"{link(s.before, c['recipe'])} · {link(s.after, c['recipe'])} |"
                for c in s.verdicts
            ]
        else:
            lines.append(f"No verdict changed in {s.compared} recipe(s).")
        others = [c for c in s.changes if c["what"] != "outcome"]
        if others:
            lines += [
                "",
                "<details><summary>Observations that changed</summary>",
                "",
                *[f"- `{line.strip()}`" for line in diff_text(others, p.agent, s.before, s.after, s.compared).splitlines()[1:]],
                "",
                "</details>",
            ]
        lines.append("")
    if failed:
        lines += ["### Could not run", "", "| cell | recipe | why |", "|---|---|---|"]
        lines += [f"| {c.spec} | `{c.recipe}` | {c.reason} |" for c in failed]
        lines.append("")
    return "\n".join(lines)


def changed_in(s: Step, recipe: str) -> str:
    """The release that changed the verdict, as the bisect found it ("-": not bisected, e.g.
    --report-only or a shard)."""
    found = s.narrowed.get(recipe)
    return found.text() if found else "-"


def bisect_changes(p: Plan, steps: list[Step], results: Path, jobs: int | None) -> None:
    """Each verdict change with unprobed releases between its two versions, bisected to the
    release that made it (its evidence written as usual), so the report names that release."""
    for s in steps:
        if s.before and s.verdicts:
            found = narrow(p.agent, s.before, s.after, [c["recipe"] for c in s.verdicts], results, jobs or 1)
            s.narrowed = {n.recipe: n for n in found}


def as_json(p: Plan, steps: list[Step], failed: list[matrix.Cell]) -> PlanReport:
    return {
        **p.summary(),
        "steps": [
            {
                "from": s.before,
                "to": s.after,
                "compared": s.compared,
                "changes": s.changes,
                "bisected": [n.as_json() for n in s.narrowed.values()],
            }
            for s in steps
        ],
        "verdicts_changed": sum(len(s.verdicts) for s in steps),
        "failed": [asdict(c) for c in failed],
    }


def github_matrix(plans: list[Plan], shards: int) -> list[Job]:
    """The jobs of a CI matrix: one per (agent, shard), never more shards than cells."""
    jobs: list[Job] = []
    for p in plans:
        n = min(shards, len(p.cells))
        jobs += [
            {"agent": p.agent, "versions": ",".join(p.versions), "recipe": p.recipe, "from": p.start, "shard": f"{i}/{n}"}
            for i in range(1, n + 1)
        ]
    return jobs


# ---------------------------------------------------------------- the command


def plans(
    results: Path,
    agents: list[str] | None,
    plan_file: Path | None = None,
    start: str | None = None,
    recipe: str = "all",
    prereleases: bool = False,
    versions: str | None = None,
    part: tuple[int, int] | None = None,
) -> list[Plan]:
    """The plans `probe bump` works on: read from `plan_file` (only `agents`' when given), or
    made for each of `agents`; cut to shard `part` (I, N) when given."""
    if plan_file is not None:
        chosen = from_file(plan_file, results, agents)
    else:
        chosen = [plan(a, results, start, recipe, prereleases, versions) for a in dict.fromkeys(agents or ())]
    if part:
        for p in chosen:
            p.cells = matrix.shard(p.cells, *part)
    for p in chosen:  # the nightly's jobs probe exactly the plan, sharded or not
        p.fixed = bool(part or plan_file)
    return chosen


@dataclass
class Night:
    """What one `probe bump` found: a Markdown report and its data per plan."""

    reports: list[str] = field(default_factory=list)
    docs: list[PlanReport] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(d["verdicts_changed"] for d in self.docs)

    @property
    def failed(self) -> int:
        return sum(len(d["failed"]) for d in self.docs)

    @property
    def exit_status(self) -> int:
        """VERDICTS_CHANGED when a label changed, HARNESS (1) when cells failed and none changed, else OK."""
        return Exit.VERDICTS_CHANGED if self.changed else Exit.HARNESS if self.failed else Exit.OK


def probe_and_report(
    plans: list[Plan],
    results: Path,
    jobs: int | None = None,
    report_only: bool = False,
    link_base: str = "",
    surface: bool = False,
) -> Night:
    """Run each plan's cells through the matrix (none with `report_only`: a cell without
    evidence then counts as failed) and compare each new version with the one before it."""
    if any(p.cells for p in plans) and not report_only:
        results.mkdir(parents=True, exist_ok=True)
        check_writable(results)
    night = Night()
    for p in plans:
        if report_only:
            for c in p.cells:
                c.status, c.reason = "failed", "no evidence (its job did not deliver it)"
            done = p.cells
        else:
            done = matrix.run(p.cells, results, jobs) if p.cells else []
        bad = [c for c in done if c.status != "done"]
        if surface and not report_only:  # each new release's surface beside its evidence (docs/surface.md)
            for v in p.versions:
                save_installed(p.agent, v, results)
        steps = compare(p, results)
        if not (report_only or p.fixed):
            bisect_changes(p, steps, results, jobs)
        night.reports.append(report(p, steps, bad, results, link_base, surface))
        night.docs.append(as_json(p, steps, bad))
    return night
