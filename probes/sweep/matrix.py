"""The matrix: every (version, recipe) cell of one agent, in parallel worker processes.
One failing cell never stops the rest; each cell ends as a result with a status and a reason.
Cells start longest first (cost learnt from the evidence already recorded), as many at once
as the CPU leaves room for (schedule.py)."""

from __future__ import annotations

import itertools
import json
import re
import resource
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tqdm import tqdm

from probes import stopping
from probes.agents import AGENTS, Agent
from probes.agents import get as get_agent
from probes.catalog.recipes import Recipe, load_all
from probes.catalog.setup import check, parse_pairs, stem
from probes.errors import InputError, ProbeError
from probes.limits import EVIDENCE_MAX_BYTES, MAX_SHARDS, BadFile, read_bounded
from probes.pipeline.run import probe_repeated
from probes.sweep import schedule
from probes.versions import install, spec


@dataclass
class Cell:
    spec: str
    recipe: str
    setup: str = ""  # KEY=VALUE,...: the setup it runs under, over the recipe's default ("": that)
    status: str = "planned"  # planned, done, failed
    outcome: str | None = None
    reason: str | None = None
    evidence: str | None = None
    wall_s: float | None = None  # the cell's own time, in its worker
    cpu_s: float | None = None  # CPU time of the worker and every process it waited for

    @property
    def key(self) -> tuple[str, str, str]:
        return self.spec, self.recipe, self.setup

    @property
    def name(self) -> str:
        """The recipe as its record is named: RECIPE, or RECIPE@KEY in another setup."""
        return stem(self.recipe, self.setup)


def select_versions(agent: Agent, selector: str, prereleases: bool = False) -> list[str]:
    """`1.0.80,1.0.81`, `1.0.80..1.0.92` (published releases in between, both ends included),
    `latest:N` (the newest N releases) or `latest`."""
    pub = spec.published(agent.package)
    releases = sorted((v for v in pub.versions if prereleases or not spec.is_prerelease(v)), key=spec.semver_key)
    if selector == "latest":
        return [pub.latest]
    if selector.startswith("latest:"):
        n = selector.split(":", 1)[1]
        if not n.isdigit() or int(n) < 1:
            raise InputError(f"--versions {selector}: expected latest:N with N >= 1")
        return releases[-int(n) :]
    if ".." in selector:
        lo, _, hi = selector.partition("..")
        hi = pub.latest if hi == "latest" else hi
        for v in (lo, hi):
            spec.parse_spec(f"{agent.name}@{v}", AGENTS)
        return [v for v in releases if spec.semver_key(lo) <= spec.semver_key(v) <= spec.semver_key(hi)]
    own = agent.translate_version
    chosen = [v.strip() for v in selector.split(",") if v.strip()]
    return [spec.resolve(spec.parse_spec(f"{agent.name}@{v}", AGENTS), agent.package, pub, own) for v in chosen]


def plan(agent_name: str, versions: str, recipe: str, setups: Sequence[str] = (), declared: bool = False) -> list[Cell]:
    agent = get_agent(agent_name)
    crossed = crossed_setups(agent, setups)  # bad input before the registry is asked
    chosen = select_versions(agent, versions)
    if not chosen:
        raise InputError(f"--versions {versions} selects no published {agent_name} version")
    return cells(agent_name, chosen, recipe, crossed, declared)


def crossed_setups(agent: Agent, items: Sequence[str]) -> list[dict[str, str]]:
    """`--setup KEY=V1,V2` items crossed: every combination of the values given ([{}]: none)."""
    axes: dict[str, list[str]] = {}
    for item in items:
        k, eq, values = item.partition("=")
        if not eq or k in axes:
            raise InputError(f"--setup {item[:60]!r}: give each key once, as KEY=VALUE[,VALUE...]")
        axes[k] = [v for v in values.split(",") if v]
        for v in axes[k]:
            check(agent, parse_pairs([f"{k}={v}"]), "--setup")
    return [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())]


def cells(
    agent_name: str,
    versions: list[str],
    recipe: str,
    setups: Sequence[Mapping[str, str]] = ({},),
    declared: bool = False,
) -> list[Cell]:
    """Every (version, recipe, setup) cell; `recipe` is a name or all (those that apply to the
    agent); each recipe under every setup in `setups` (over its default), and with `declared`
    under the other setups it declares too. A setup a recipe cannot run in is left out."""
    recipes = load_all()
    if recipe == "all":
        names = sorted(n for n, r in recipes.items() if agent_name in r.agents)
    elif recipe in recipes:
        names = [recipe]
    else:
        raise InputError(f"unknown recipe {recipe!r}: see `probe list`")
    # The slowest recipes first, so the pool ends with short cells.
    order = sorted(names, key=lambda n: (not recipes[n].slow, n))
    out: list[Cell] = []
    for n in order:
        overs = [*setups, *(recipes[n].declared_setups(agent_name) if declared else [])]
        keys: list[str] = []
        for over in overs:
            try:
                key = recipes[n].for_agent(agent_name, over).setup_key
            except InputError:
                continue  # e.g. a session the recipe's agent cannot have with its config
            if key not in keys:
                keys.append(key)
        out += [Cell(f"{agent_name}@{v}", n, key) for key in keys for v in versions]
    return sorted(out, key=lambda c: (versions.index(c.spec.split("@")[1]), order.index(c.recipe), c.setup))


# ---------------------------------------------------------------- shards

SHARD_RE = re.compile(r"(\d{1,9})/(\d{1,9})", re.ASCII)  # ASCII digits only, bounded before int()
SESSION_COST_S = 2.0  # a CLI session that waits on nothing
ACTION_COST_S = 1.5  # each thing a person does in an interactive session (measured 1-3 s)


def parse_shard(text: str) -> tuple[int, int]:
    m = SHARD_RE.fullmatch(text)
    if not m or not 1 <= int(m[1]) <= int(m[2]):
        raise InputError(f"--shard {text[:40]!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
    if int(m[2]) > MAX_SHARDS:  # shard() keeps a load per slice
        raise InputError(f"--shard {text}: at most {MAX_SHARDS} shards")
    return int(m[1]), int(m[2])


def expected_cost_s(recipe: Recipe, agent: str) -> float:
    """What a cell should cost, from the recipe alone (so every runner computes the same
    shards): a session, plus each interactive action, plus every wait its hooks make, capped
    by their timeout and the budget."""
    if recipe.slow:
        return recipe.budget_s
    resolved = recipe.for_agent(agent)
    waits = ACTION_COST_S * len(resolved.actions) if recipe.mode == "interactive" else 0.0
    for hook in resolved.hooks:
        behavior = hook.behavior
        if not (behavior.hang or behavior.seconds):
            continue
        wait = float("inf") if behavior.hang else (behavior.seconds or 0.0)
        waits += min(wait, hook.timeout_s or recipe.budget_s)
    return min(SESSION_COST_S + waits, recipe.budget_s)


def shard(cells: list[Cell], index: int, count: int) -> list[Cell]:
    """Slice `index` of `count` (1-based): deterministic, disjoint, the slices together cover
    every cell, balanced by expected cost (longest first, each to the least loaded slice)."""
    recipes = load_all()
    cost = {c.key: expected_cost_s(recipes[c.recipe], c.spec.split("@")[0]) for c in cells}
    loads = [0.0] * count
    owner: dict[tuple[str, str, str], int] = {}
    for c in sorted(cells, key=lambda c: (-cost[c.key], c.key)):
        slot = min(range(count), key=lambda i: (loads[i], i))
        loads[slot] += cost[c.key]
        owner[c.key] = slot
    return [c for c in cells if owner[c.key] == index - 1]


def _cpu_s() -> float:
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def _run_cell(cell: Cell, results: str, repeat: int) -> Cell:
    start, cpu = time.monotonic(), _cpu_s()
    try:
        setup = parse_pairs([cell.setup])
        records, path, _ = probe_repeated(cell.spec, cell.recipe, Path(results), repeat=repeat, setup=setup)  # kept: unchanged
        cell.status, cell.outcome, cell.evidence = "done", records[-1].outcome, str(path)
    except ProbeError as e:
        cell.status, cell.reason = "failed", str(e)
    except Exception as e:  # one broken cell must not stop the others
        cell.status, cell.reason = "failed", f"{type(e).__name__}: {e}"
    cell.wall_s, cell.cpu_s = round(time.monotonic() - start, 3), round(_cpu_s() - cpu, 3)
    return cell


def _worker_died(cell: Cell, error: BaseException) -> Cell:
    """A cell whose worker process died (killed from outside: the OOM killer, a person), or
    that a pool broken by such a death could not take: failed, with the reason."""
    cell.status, cell.reason = "failed", f"its worker process died ({type(error).__name__}: {error})"
    return cell


# ---------------------------------------------------------------- order

HARNESS_COST_S = 0.8  # a probe's own cost beside the CLI's session (benchmarks/README.md)


RECORDS_PER_RECIPE = 5  # the newest versions' records are enough, and keep a sweep's start quick


def recorded_wall_s(dirs: list[Path], agent: str, names: set[str]) -> dict[str, float]:
    """The median `cli.wall_s` of each recipe over the newest versions of `agent` probed in
    `dirs` (at most RECORDS_PER_RECIPE). A record that cannot be read is passed over: order is
    a hint, never a reason to stop."""
    versions: list[Path] = []
    for d in dict.fromkeys(dirs):
        try:
            versions += [v for v in (d / agent).iterdir() if v.is_dir() and not v.name.startswith("_")]
        except OSError:
            continue
    seen: dict[str, list[float]] = {}
    for v in sorted(versions, key=lambda v: spec.semver_key(v.name), reverse=True):
        for name in names:
            path = v / f"{name}.json"
            if len(seen.get(name, ())) >= RECORDS_PER_RECIPE or not path.is_file():
                continue
            try:  # json.loads alone: parse_json's depth walk costs 6x, and a deep record only fails here
                wall = json.loads(read_bounded(path, EVIDENCE_MAX_BYTES)).get("cli", {}).get("wall_s")
            except (BadFile, ValueError, RecursionError, AttributeError):
                continue
            if isinstance(wall, (int, float)) and not isinstance(wall, bool) and 0 <= wall < 1e6:
                seen.setdefault(name, []).append(float(wall))
    return {n: statistics.median(w) for n, w in seen.items()}


def longest_first(cells: list[Cell], dirs: list[Path]) -> list[Cell]:
    """The cells by expected cost, longest first: a recipe's recorded wall where `dirs` hold
    evidence of it (on any version), else the estimate from the recipe alone."""
    recipes = load_all()
    cost: dict[tuple[str, str, str], float] = {}
    for agent in {c.spec.split("@")[0] for c in cells}:
        mine = [c for c in cells if c.spec.split("@")[0] == agent]
        recorded = recorded_wall_s(dirs, agent, {c.recipe for c in mine})
        for c in mine:
            known = recorded.get(c.recipe)
            cost[c.key] = known + HARNESS_COST_S if known is not None else expected_cost_s(recipes[c.recipe], agent)
    return sorted(cells, key=lambda c: (-cost[c.key], c.key))


# ---------------------------------------------------------------- run


def run(cells: list[Cell], results: Path, jobs: int | None = None, repeat: int = 1) -> list[Cell]:
    """Install each version once, then run the cells longest first: `jobs` at most when
    given, else as many as the CPU leaves room for (schedule.policy), reporting progress."""
    for s in sorted({c.spec for c in cells}):
        agent, version = s.split("@")
        try:
            install.install(AGENTS[agent], version)
        except ProbeError as e:
            for c in cells:
                if c.spec == s:
                    c.status, c.reason = "failed", f"install: {e}"
    todo = longest_first([c for c in cells if c.status == "planned"], [results, Path("results")])
    report = _progress(len(cells))
    for c in cells:
        if c.status == "failed":
            report(c)
    done = [c for c in cells if c.status == "failed"]
    p = schedule.policy(jobs, schedule.cores())
    # A worker ends with the matrix that started it, even when that one is SIGKILLed; on
    # SIGINT or SIGTERM (Ctrl-C, `timeout`, a cancelled job) the pool is stopped within
    # stopping.STOP_GRACE_S, each cell running then ends as an interrupted probe does.
    try:
        with stopping.pool_of(p.cap) as pool:
            work = partial(stopping.in_cell, partial(_run_cell, results=str(results), repeat=repeat))
            for cell in schedule.schedule(pool, work, todo, p, schedule.CpuGauge(), failed=_worker_died):
                done.append(cell)
                report(cell)
    finally:
        report(None)  # on a terminal, the bar ends its line (before the one that says why, if any)
    key = {c.key: i for i, c in enumerate(cells)}
    return sorted(done, key=lambda c: key[c.key])


Report = Callable[[Cell | None], None]  # a cell done; None: all done


def _progress(total: int) -> Report:
    """A live bar on a terminal (tqdm), plain lines otherwise."""
    if sys.stderr.isatty():
        bar = tqdm(total=total, unit="cell", file=sys.stderr)

        def bar_report(cell: Cell | None) -> None:
            if cell is None:
                bar.close()
                return
            bar.set_postfix_str(f"{cell.spec} {cell.name}: {cell.outcome or 'failed'}", refresh=False)
            bar.update(1)

        return bar_report
    n = [0]

    def report(cell: Cell | None) -> None:
        if cell is not None:
            n[0] += 1
            print(
                f"[{n[0]}/{total}] {cell.spec} {cell.name}: {cell.outcome or 'FAILED: ' + str(cell.reason)}",
                file=sys.stderr,
                flush=True,
            )

    return report


def as_dicts(cells: list[Cell]) -> list[dict[str, Any]]:
    return [asdict(c) for c in cells]
