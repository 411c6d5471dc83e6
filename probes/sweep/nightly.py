"""The nightly's plan (`probe nightly plan`): each agent's new releases, every cell they need
(each recipe with its control, in its default setup, every setup it declares and every setup
the agent's evidence holds for it on any release), the cells an earlier night planned and
did not deliver (pending.json), the atlas's incomplete pairs, and the jobs: each agent's
work cut into shards by recipe group (a recipe with its control and every setup of both), so
no two shards ever probe one cell or fill one timeline, balanced by measured cost.

The plan is data (`NightPlan`, written as plan.json): every later step of the night (shard,
merge, report) reads it and nothing else decides, so every runner does the same work."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from probes.agents import AGENTS
from probes.agents import get as get_agent
from probes.catalog import windows
from probes.catalog.recipes import Recipe, load_all
from probes.catalog.setup import base_of, parse_pairs, split_stem, stem
from probes.errors import InputError
from probes.evidence import unrunnable
from probes.evidence.model import write_atomic
from probes.limits import BadFile, listed, load_json, read_bounded, warn
from probes.report import timeline
from probes.sweep import matrix
from probes.versions import spec

PLAN_MAX_BYTES = 8 << 20  # a night of every agent's new releases, each cell a line
PENDING = "pending.json"  # results/<agent>/pending.json: cells a night planned and no shard delivered
NEWEST_FOR_COST = 5  # the newest versions whose records tell a recipe's cost


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlannedCell(Strict):
    version: str
    recipe: str  # the recipe (never RECIPE@KEY)
    setup: str = ""  # its setup key over the recipe's default ("": the default)
    cost_s: float = 0.0

    @property
    def stem(self) -> str:
        return stem(self.recipe, self.setup)


class Shard(Strict):
    shard: str  # I/N
    groups: list[str]  # the groups (their leading recipe) this shard owns
    cost_s: float


class AgentPlan(Strict):
    agent: str
    start: str | None  # releases newer than this are new
    baseline: str | None  # the newest probed release before the first new one
    latest: str | None = None  # the registry's latest when planned
    snapshot: list[str] = []  # every release the registry served when planned (results/<agent>/versions.json)
    versions: list[str]  # the new releases, oldest first
    cells: list[PlannedCell]
    groups: dict[str, list[str]]  # leading recipe -> every recipe of its group
    atlas: list[str] = []  # the non-control recipes whose timelines the night fills (their group's shard)
    skipped: dict[str, str] = {}  # new release -> why no cell is planned on it (it cannot run here)
    shards: list[Shard]

    def group_of(self, recipe: str) -> str:
        return lead_of(self.groups, recipe)

    def shard_named(self, shard: str) -> Shard:
        for s in self.shards:
            if s.shard == shard:
                return s
        raise InputError(f"the plan has no shard {shard} for {self.agent}: {', '.join(s.shard for s in self.shards) or 'none'}")

    def cells_of(self, shard: str) -> list[PlannedCell]:
        mine = set(self.shard_named(shard).groups)
        return [c for c in self.cells if self.group_of(c.recipe) in mine]

    def atlas_of(self, shard: str) -> list[str]:
        mine = set(self.shard_named(shard).groups)
        return [r for r in self.atlas if self.group_of(r) in mine]


class Job(Strict):
    agent: str
    shard: str
    name: str  # the artifact's name: shard-AGENT-I


class NightPlan(Strict):
    recipes: list[str]  # the recipes asked (["all"]: the catalog)
    agents: list[AgentPlan]
    matrix: list[Job]

    def agent(self, name: str) -> AgentPlan:
        for a in self.agents:
            if a.agent == name:
                return a
        raise InputError(f"the plan has no agent {name}: {', '.join(a.agent for a in self.agents) or 'none'}")


def read(path: Path) -> NightPlan:
    """plan.json back, or one line saying why not (exit 2)."""
    try:
        return NightPlan.model_validate_json(read_bounded(path, PLAN_MAX_BYTES, follow=False))
    except BadFile as e:
        raise InputError(f"--plan {path}: {e}") from None
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "the file"
        raise InputError(f"--plan {path}: not the output of `probe nightly plan` ({where}: {err['msg']})") from None


# ---------------------------------------------------------------- groups and setups


def groups_of(recipes: Mapping[str, Recipe], agent: str, names: Sequence[str]) -> dict[str, list[str]]:
    """The recipes `names` with their controls, in groups that share a control (ask-pretool and
    deny-json-pretool share deny-json-pretool-control): leading recipe -> members, sorted."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for n in names:
        find(n)
        other = recipes[n].control_for(agent) or recipes[n].control_of
        if other and agent in recipes[other].agents:
            parent[find(n)] = find(other)
    members: dict[str, list[str]] = {}
    for n in list(parent):
        members.setdefault(find(n), []).append(n)
    return {sorted(m)[0]: sorted(m) for m in members.values()}


def held_setups(results: Path, agent: str) -> dict[str, set[str]]:
    """recipe -> the setup keys its records hold on any release of `agent` (file names only)."""
    out: dict[str, set[str]] = {}
    folder = results / agent
    if not folder.is_dir():
        return out
    for path in listed(results, f"{agent}/*/*.json"):
        recipe, key = split_stem(path.stem)
        if key:
            out.setdefault(recipe, set()).add(key)
    return out


def group_setups(recipes: Mapping[str, Recipe], agent: str, members: Sequence[str], held: Mapping[str, set[str]]) -> list[str]:
    """Every setup key a group runs in: the default, each member's declared setups and those
    held on any release (a recipe and its control in the same setups, or its verdict has no
    control there), each valid for every member that can run it."""
    overs: list[Mapping[str, str]] = [{}]
    for r in members:
        overs += recipes[r].declared_setups(agent)
        overs += [parse_pairs([k], "a record's setup") for k in sorted(held.get(r, ()))]
    keys: list[str] = []
    for over in overs:
        for r in members:
            try:
                key = recipes[r].for_agent(agent, over).setup_key
            except InputError:
                continue
            if key not in keys:
                keys.append(key)
    return keys


# ---------------------------------------------------------------- cost


def measured_cost(results: Path, agent: str, stems: set[str], recipes: Mapping[str, Recipe]) -> dict[str, float]:
    """stem -> seconds a cell should take: its recorded wall (median of the newest records) plus
    the harness, or the matrix's estimate from the recipe alone."""
    recorded = matrix.recorded_wall_s([results], agent, stems)
    return {
        s: round(recorded[s] + matrix.HARNESS_COST_S if s in recorded else matrix.expected_cost_s(recipes[base_of(s)], agent), 2)
        for s in stems
    }


def balance(costs: Mapping[str, float], count: int) -> list[list[str]]:
    """The groups in `count` slices, longest first each to the least loaded (deterministic)."""
    loads, slices = [0.0] * count, [list[str]() for _ in range(count)]
    for g in sorted(costs, key=lambda g: (-costs[g], g)):
        i = min(range(count), key=lambda i: (loads[i], i))
        loads[i] += costs[g]
        slices[i].append(g)
    return [sorted(s) for s in slices]


# ---------------------------------------------------------------- pending


def read_pending(results: Path, agent: str) -> list[PlannedCell]:
    """The cells an earlier night planned and no shard delivered ([] when none, or unreadable:
    a warning names it, and the atlas still finds their default setups)."""
    path = results / agent / PENDING
    if not path.exists() and not path.is_symlink():
        return []
    try:
        data = load_json(path, PLAN_MAX_BYTES)
        return [PlannedCell.model_validate(c) for c in data["cells"]]
    except (BadFile, KeyError, TypeError, ValidationError) as e:
        warn(f"{path}: not a list of pending cells ({str(e).splitlines()[0][:120]}); ignored")
        return []


def write_pending(results: Path, agent: str, cells: Sequence[PlannedCell]) -> None:
    """The cells still missing, for the next night; the file goes when none is."""
    path = results / agent / PENDING
    if not cells:
        if path.is_file() and not path.is_symlink():
            path.unlink()
        return
    doc = {"agent": agent, "cells": [c.model_dump(exclude={"cost_s"}) for c in sorted(cells, key=_order)]}

    write_atomic(path, json.dumps(doc, indent=1) + "\n", "pending cells", "check --results")


def _order(c: PlannedCell) -> tuple[spec.SemverKey, str, str]:
    return spec.semver_key(c.version), c.recipe, c.setup


# ---------------------------------------------------------------- the plan


def plan_agent(
    agent_name: str,
    results: Path,
    asked: Sequence[str],
    shards: int,
    published: spec.Published | None = None,
    start: str | None = None,
    atlas: bool = True,
) -> AgentPlan:
    """One agent's night: its new releases (after `start`, else the newest probed), each cell
    they lack in every setup, the pending cells, the atlas's incomplete pairs, cut in shards."""
    agent = get_agent(agent_name)
    recipes = load_all()
    names = sorted(n for n, r in recipes.items() if agent_name in r.agents and ("all" in asked or n in asked))
    if not names:
        raise InputError(f"none of {', '.join(asked)} runs on {agent_name}")
    groups = groups_of(recipes, agent_name, names)
    pub = published or spec.published(agent.package)
    releases = timeline.candidates_of(pub.versions)
    probed = probed_versions(results, agent_name)
    if start is None:
        start = probed[-1] if probed else None
    if start is None:
        raise InputError(f"no {agent_name} evidence in {results}: pass --from VERSION to say where to start")
    new = [v for v in releases if spec.semver_key(v) > spec.semver_key(start)]
    before = [v for v in probed if not new or spec.semver_key(v) < spec.semver_key(new[0])]
    lost = unrunnable.read(results, agent_name)
    skipped = {v: lost[v] for v in new if v in lost}
    held = held_setups(results, agent_name)
    have = recorded(results, agent_name)
    cells: list[PlannedCell] = []
    for members in groups.values():
        for key in group_setups(recipes, agent_name, members, held):
            for r in members:
                try:
                    recipes[r].for_agent(agent_name, parse_pairs([key]) if key else {})
                except InputError:
                    continue
                cells += [PlannedCell(version=v, recipe=r, setup=key) for v in new if v not in skipped]
    wanted = set(names)
    cells += [c for c in read_pending(results, agent_name) if c.recipe in wanted or "all" in asked]
    todo = sorted({(c.version, c.stem): c for c in cells if (c.version, c.stem) not in have}.values(), key=_order)
    cost = measured_cost(results, agent_name, {c.stem for c in todo}, recipes)
    todo = [c.model_copy(update={"cost_s": cost[c.stem]}) for c in todo]
    pairs = incomplete_pairs(results, agent_name, recipes, names, releases) if atlas else {}
    load = {g: 0.0 for g in groups}
    for c in todo:
        load[lead_of(groups, c.recipe)] += c.cost_s
    for r, probes in pairs.items():
        load[lead_of(groups, r)] += probes * matrix.expected_cost_s(recipes[r], agent_name)
    busy = {g: v for g, v in load.items() if v > 0}
    n = min(shards, len(busy))
    slices = balance(busy, n) if n else []
    return AgentPlan(
        agent=agent_name,
        start=start,
        baseline=before[-1] if before else None,
        latest=pub.latest,
        snapshot=sorted(pub.versions, key=spec.semver_key),
        versions=new,
        cells=todo,
        groups=groups,
        atlas=sorted(pairs),
        skipped=skipped,
        shards=[Shard(shard=f"{i}/{n}", groups=s, cost_s=round(sum(busy[g] for g in s), 1)) for i, s in enumerate(slices, 1)],
    )


def lead_of(groups: Mapping[str, list[str]], recipe: str) -> str:
    """The group a recipe belongs to, by its leading recipe."""
    return next(lead for lead, members in groups.items() if recipe in members)


def probed_versions(results: Path, agent: str) -> list[str]:
    """Versions with a record of `agent` in `results` (by folder: nothing is parsed), oldest first."""
    return sorted({v for v, _ in recorded(results, agent)}, key=spec.semver_key)


def recorded(results: Path, agent: str) -> set[tuple[str, str]]:
    """(version, record stem) of every record file of `agent` (names only)."""
    if not (results / agent).is_dir():
        return set()
    return {(p.parent.name, p.stem) for p in listed(results, f"{agent}/*/*.json") if not p.parent.name.startswith("_")}


def incomplete_pairs(
    results: Path, agent: str, recipes: Mapping[str, Recipe], names: Sequence[str], releases: Sequence[str]
) -> dict[str, int]:
    """recipe -> the probes the atlas needs, for each incomplete non-control recipe of `names`
    over the agent's window (none without a window: VS Code), with the registry as planned."""
    from probes.sweep.atlas import check

    wins = windows.load()
    if agent not in wins or not releases:
        return {}
    found = check(results, wins, recipes, [agent], snapshots={agent: list(releases)})
    wanted = set(names)
    return {c.recipe: max(1, c.probes_needed) for a in found for c in a.recipes if c.recipe in wanted and not c.complete}


def plan(
    results: Path,
    agents: Sequence[str],
    asked: Sequence[str],
    shards: int,
    start: str | None = None,
    atlas: bool = True,
) -> NightPlan:
    """Every agent's night, and the job matrix (one job per agent and shard)."""
    for a in agents:
        if a not in AGENTS:
            raise InputError(f"unknown agent {a!r}")
    plans = [plan_agent(a, results, asked, shards, start=start, atlas=atlas) for a in dict.fromkeys(agents)]
    jobs = [Job(agent=p.agent, shard=s.shard, name=f"shard-{p.agent}-{s.shard.split('/')[0]}") for p in plans for s in p.shards]
    return NightPlan(recipes=list(asked), agents=plans, matrix=jobs)
