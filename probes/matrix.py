"""The matrix: every (version, recipe) cell of one agent, in parallel worker processes.
One failing cell never stops the rest; each cell ends as a result with a status and a reason."""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import install, spec
from .agents import AGENTS, Agent
from .agents import get as get_agent
from .errors import InputError, ProbeError
from .limits import MAX_SHARDS
from .recipes import Recipe, load_all
from .runner.jail import die_with_parent


@dataclass
class Cell:
    spec: str
    recipe: str
    status: str = "planned"  # planned, done, failed
    outcome: str | None = None
    reason: str | None = None
    evidence: str | None = None


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
    chosen = [v.strip() for v in selector.split(",") if v.strip()]
    for v in chosen:
        spec.resolve(spec.parse_spec(f"{agent.name}@{v}", AGENTS), agent.package, pub)
    return chosen


def plan(agent_name: str, versions: str, recipe: str) -> list[Cell]:
    chosen = select_versions(get_agent(agent_name), versions)
    if not chosen:
        raise InputError(f"--versions {versions} selects no published {agent_name} version")
    return cells(agent_name, chosen, recipe)


def cells(agent_name: str, versions: list[str], recipe: str) -> list[Cell]:
    """Every (version, recipe) cell; `recipe` is a name or all (those that apply to the agent)."""
    recipes = load_all()
    if recipe == "all":
        names = sorted(n for n, r in recipes.items() if agent_name in r.agents)
    elif recipe in recipes:
        names = [recipe]
    else:
        raise InputError(f"unknown recipe {recipe!r}: see `probe list`")
    # The slowest recipes first, so the pool ends with short cells.
    order = sorted(names, key=lambda n: (not recipes[n].slow, n))
    return [Cell(f"{agent_name}@{v}", n) for v in versions for n in order]


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
    cost = {(c.spec, c.recipe): expected_cost_s(recipes[c.recipe], c.spec.split("@")[0]) for c in cells}
    loads = [0.0] * count
    owner: dict[tuple[str, str], int] = {}
    for c in sorted(cells, key=lambda c: (-cost[c.spec, c.recipe], c.spec, c.recipe)):
        slot = min(range(count), key=lambda i: (loads[i], i))
        loads[slot] += cost[c.spec, c.recipe]
        owner[c.spec, c.recipe] = slot
    return [c for c in cells if owner[c.spec, c.recipe] == index - 1]


def _run_cell(cell: Cell, results: str, repeat: int) -> Cell:
    from .run import probe_repeated

    try:
        records, path = probe_repeated(cell.spec, cell.recipe, Path(results), repeat=repeat)
        cell.status, cell.outcome, cell.evidence = "done", records[-1].outcome, str(path)
    except ProbeError as e:
        cell.status, cell.reason = "failed", str(e)
    except Exception as e:  # one broken cell must not stop the others
        cell.status, cell.reason = "failed", f"{type(e).__name__}: {e}"
    return cell


def run(cells: list[Cell], results: Path, jobs: int, repeat: int = 1) -> list[Cell]:
    """Install each version once, then run the cells `jobs` at a time, reporting progress."""
    for s in sorted({c.spec for c in cells}):
        agent, version = s.split("@")
        try:
            install.install(AGENTS[agent], version)
        except ProbeError as e:
            for c in cells:
                if c.spec == s:
                    c.status, c.reason = "failed", f"install: {e}"
    todo = [c for c in cells if c.status == "planned"]
    report = _progress(len(cells))
    for c in cells:
        if c.status == "failed":
            report(c)
    done = [c for c in cells if c.status == "failed"]
    # A worker ends with the matrix that started it, even when that one is SIGKILLed.
    with ProcessPoolExecutor(max_workers=jobs, initializer=die_with_parent, initargs=(signal.SIGKILL, os.getpid())) as pool:
        futures = [pool.submit(_run_cell, c, str(results), repeat) for c in todo]
        for f in as_completed(futures):
            done.append(f.result())
            report(done[-1])
    report(None)
    key = {(c.spec, c.recipe): i for i, c in enumerate(cells)}
    return sorted(done, key=lambda c: key[c.spec, c.recipe])


Report = Callable[[Cell | None], None]  # a cell done; None: all done


def _progress(total: int) -> Report:
    """A live bar on a terminal (tqdm), plain lines otherwise."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, unit="cell", file=sys.stderr)

        def bar_report(cell: Cell | None) -> None:
            if cell is None:
                bar.close()
                return
            bar.set_postfix_str(f"{cell.spec} {cell.recipe}: {cell.outcome or 'failed'}", refresh=False)
            bar.update(1)

        return bar_report
    n = [0]

    def report(cell: Cell | None) -> None:
        if cell is not None:
            n[0] += 1
            print(
                f"[{n[0]}/{total}] {cell.spec} {cell.recipe}: {cell.outcome or 'FAILED: ' + str(cell.reason)}",
                file=sys.stderr,
                flush=True,
            )

    return report


def default_jobs() -> int:
    return os.cpu_count() or 1


def as_dicts(cells: list[Cell]) -> list[dict[str, Any]]:
    return [asdict(c) for c in cells]
