"""`probe run`: one probe, from spec to evidence, through the one pipeline (steps.py):

resolve -> install -> plan (workspace, the recipe's hooks, runner plan) -> session (model
server + CLI) -> collect (typed, scrubbed) -> classify -> evidence -> write

`probe check` goes through the same steps with its own workspace and its own reading of the
session (probes/check/session.py).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from probes import IMPORTED_AT, startup_began
from probes.agents import AGENTS, Agent
from probes.backends import BACKENDS, Backend
from probes.catalog.setup import parse_pairs, split_stem
from probes.errors import InputError
from probes.evidence import unrunnable
from probes.evidence.store import check_writable
from probes.limits import warn
from probes.pipeline import steps
from probes.pipeline.rundirs import RunDirs
from probes.pipeline.steps import Prepared
from probes.runner.hooklib import process_start
from probes.versions import prefixes, spec

if TYPE_CHECKING:
    from probes.catalog.recipes import ResolvedRecipe
    from probes.evidence.model import Evidence

DISK_FULL = "disk-full"  # the outcome of a session the runner ended at the run's disk cap

__all__ = ["check_writable", "probe", "probe_repeated", "resolve"]


def resolve(spec_text: str, results: Path | None = None) -> tuple[Agent, str, str]:
    """(agent, requested version, exact version). An installed exact version needs no
    registry round trip; anything else is checked against the registry. `latest` that the
    atlas found cannot run here (results/AGENT/unrunnable.json) is the newest release below
    it that can, said on stderr."""
    s = spec.parse_spec(spec_text, AGENTS)
    agent = AGENTS[s.agent]
    if s.version != "latest" and prefixes.installed(agent, s.version):
        return agent, s.version, s.version
    pub = spec.published(agent.package)
    exact = spec.resolve(s, agent.package, pub, translate=agent.translate_version)
    lost = unrunnable.read(results, agent.name) if s.version == "latest" and results is not None else {}
    if results is not None and exact in lost:
        top = spec.semver_key(exact)
        below = [v for v in pub.versions if v not in lost and not spec.is_prerelease(v) and spec.semver_key(v) < top]
        if not below:
            raise InputError(f"{agent.name} latest is {exact}, which cannot run here: {lost[exact]}")
        runnable = max(below, key=spec.semver_key)
        where = unrunnable.path_of(results, agent.name)
        warn(f"{agent.name} latest is {exact}, which cannot run here ({where}): {runnable}, the newest release that can")
        exact = runnable
    return agent, s.version, exact


def load_recipe(name: str, agent: Agent, setup: Mapping[str, str] | None = None) -> ResolvedRecipe:
    # Start-up: the recipes' models (pydantic), loaded once the runner was launched.
    from probes.catalog.recipes import get as get_recipe

    recipe = get_recipe(name)
    if agent.name not in recipe.agents:
        raise InputError(f"recipe {name!r} does not apply to {agent.name} (it applies to {', '.join(recipe.agents)})")
    return recipe.for_agent(agent.name, setup)


def probe_repeated(
    spec_text: str,
    recipe_name: str,
    results: Path,
    backend_name: str = "local",
    repeat: int = 1,
    setup: Mapping[str, str] | None = None,
    update: bool = False,
) -> tuple[list[Evidence], Path, bool]:
    """`repeat` probes of one cell; the last is written, with the spread of labels seen, unless
    the stored record differs only in measured numbers (kept; `update`: written anyway).
    (records, path, whether it was written)."""
    records = [probe(spec_text, recipe_name, results, backend_name, write=False, setup=setup)[0] for _ in range(repeat)]
    # A record module (steps.RECORD_MODULES): loaded by now, in the thread, while the CLI ran.
    from probes.evidence.model import evidence_path, save_unless_unchanged

    if repeat > 1:
        records[-1] = records[-1].model_copy(
            update={"repeats": {"runs": repeat, "outcomes": dict(sorted(Counter(r.outcome for r in records).items()))}}
        )
    path = evidence_path(results, records[-1])
    return records, path, save_unless_unchanged(path, records[-1], update)


def prepare(
    spec_text: str,
    recipe_name: str,
    backend: Backend,
    run: RunDirs,
    setup: Mapping[str, str] | None = None,
    results: Path | None = None,
) -> Prepared:
    """Everything a probe does before its session: the version (installed once), the recipe,
    the workspace, the hooks registered, the runner's plan. Bad input fails here, in this order."""
    # Start-up: plan loads the recipes' models (pydantic), after the runner was launched.
    from probes.pipeline.plan import register_hooks

    recipe = load_recipe(recipe_name, AGENTS[spec.parse_spec(spec_text, AGENTS).agent], setup)  # before any registry wait
    if recipe.setup["sh"] != "dash" and backend.name != "local":  # only the local jail binds a shell
        raise InputError(f"sh={recipe.setup['sh']} runs with --backend local (the image's /bin/sh is dash)")
    agent, requested, version = resolve(spec_text, results)
    if recipe.mode not in backend.modes:
        able = ", ".join(b.name for b in BACKENDS.values() if recipe.mode in b.modes)
        raise InputError(f"recipe {recipe.name!r} is {recipe.mode}: it runs with --backend {able}")
    only = agent.backends  # an agent that runs with some backends only
    if only is not None and backend.name not in only:
        raise InputError(f"{agent.name} runs with --backend {', '.join(sorted(only))}, not {backend.name}")
    prefix = steps.install(backend, agent, version, recipe, run)
    hooks = register_hooks(agent, recipe, run, backend.python())
    return steps.plan(backend, agent, requested, version, recipe, prefix, hooks, run)


_previous_end: list[float] = []  # when this process's last probe ended (the next one's start-up begins there)


def probe(
    spec_text: str,
    recipe_name: str,
    results: Path,
    backend_name: str = "local",
    write: bool = True,
    setup: Mapping[str, str] | None = None,
) -> tuple[Evidence, Path]:
    """One probe: the shared session (steps.session), read by the recipe's classifier.
    `recipe_name` may be a record's stem, RECIPE@KEY: the recipe in that setup."""
    recipe_name, key = split_stem(recipe_name)
    setup = {**parse_pairs([key]), **(setup or {})}
    entered = time.time()
    began = _previous_end[-1] if _previous_end else startup_began(IMPORTED_AT, process_start())
    backend = BACKENDS[backend_name]
    check_writable(results)
    with steps.session(backend, lambda run: prepare(spec_text, recipe_name, backend, run, setup, results)) as done:
        # Record modules (steps.RECORD_MODULES): loaded by now, in the thread, while the CLI ran.
        from probes.classify import label
        from probes.evidence.model import HarnessTimes, evidence_path, save_evidence

        outcome, observations = label(done.ready.recipe.classifier, done.collected.classifiable())
        if done.ran.result.get("disk_full"):  # the session was ended at its disk cap: that is what it did
            outcome = DISK_FULL
        ev = steps.evidence(done, outcome, observations)
    built = time.time()
    result, planned, returned = done.ran.result, done.planned_at, done.returned_at
    phases = {
        "startup_s": entered - began,
        "prepare_s": planned - entered,
        "launch_s": result["started_at"] - planned,
        "spawn_s": result.get("runner_at", result["started_at"]) - planned,
        "cli_s": result["wall_s"],
        "teardown_s": returned - result["cli_ended_at"],
        "record_s": built - returned,
        "total_s": built - began,
    }
    times = HarnessTimes(**{k: round(v, 3) for k, v in phases.items()}, install_s=done.ready.install_s)
    ev = ev.model_copy(update={"harness": times})
    _previous_end[:] = [time.time()]
    path = evidence_path(results, ev)
    if write:
        save_evidence(path, ev)
    return ev, path
