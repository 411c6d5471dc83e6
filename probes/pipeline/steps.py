"""The one probe pipeline, as named steps. `probe run` (and so matrix, bisect and timeline,
which call it) and `probe check` go through the same steps; they differ only in how the
workspace is prepared and how the session is read into an outcome:

    session     a run directory, capped; the runner's files in it; the runner launched
    (prepare)   the caller's: install, then its workspace and hooks, then plan
    install     the CLI version ready (installed once), the caps sized, a fresh git workspace
    plan        the runner's plan for the caller's recipe and hooks
    (run)       the session, while the record modules load
    (collect)   what the session left, typed and scrubbed
    evidence    the record, with the caller's outcome and observations

This module stays light (no pydantic): `probe run` imports it before the runner starts.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import platform
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes import progress
from probes.pipeline import spare
from probes.pipeline.rundirs import RunDirs
from probes.runner import untrusted
from probes.versions import prefixes
from probes.versions.node import own_version

if TYPE_CHECKING:
    from probes.agents import Agent
    from probes.backends import Backend, BackendRun
    from probes.catalog.recipes import ResolvedRecipe
    from probes.evidence.model import Collected, Evidence, Invocation
    from probes.pipeline.plan import Hooks
    from probes.runner.contract import Plan

RUNNER = Path(__file__).parent.parent / "runner"
RUNNER_FILES = (
    "runner.py",
    "contract.py",
    "cutoff.py",
    "model.py",
    "dialects.py",
    "augment.py",
    "arguments.py",
    "evaluations.py",
    "texts.py",
    "hook.py",
    "hooklib.py",
    "mcp_server.py",
    "terminal.py",
    "jail.py",
    "untrusted.py",
)

# What turns a session into a record (and what `probe run` prints it with). Imported in a
# thread while the CLI runs, not before it starts: the session's wait pays for them.
RECORD_MODULES = (
    "probes.evidence.claims",
    "probes.classify",
    "probes.pipeline.collect",
    "probes.evidence.model",
    "probes.evidence.provenance",
    "probes.pipeline.redact",
    "probes.report.cells",
)


def load_record_modules() -> threading.Thread:
    def load() -> None:
        for name in RECORD_MODULES:
            importlib.import_module(name)
        importlib.import_module("tabulate")

    thread = threading.Thread(target=load, name="probe-record-modules", daemon=True)
    thread.start()
    return thread


_install_s: dict[Path, float] = {}  # a run directory -> its install's seconds, from install() to plan()


@dataclass(frozen=True)
class Prepared:
    """What a probe has made ready when its session starts."""

    agent: Agent
    requested: str
    version: str
    recipe: ResolvedRecipe
    prefix: Path
    hooks: Hooks
    plan: Plan
    install_s: float | None = None  # the install this probe waited for: 0.0 when it was there (cached)


@dataclass(frozen=True)
class Ran:
    """A session run and collected, its run directory still there to read."""

    run: RunDirs
    ready: Prepared
    backend: Backend
    ran: BackendRun  # the runner's result, and how the run was isolated
    collected: Collected  # collected and scrubbed
    secrets: set[str]  # the secret values seen: scrubbed from anything else written
    planned_at: float  # when the plan was ready
    returned_at: float  # when the runner returned


def install(backend: Backend, agent: Agent, version: str, recipe: ResolvedRecipe, run: RunDirs) -> Path:
    """The CLI version ready to run (installed once; its prefix), the run's caps sized for
    the recipe, and the workspace a fresh git repository."""
    # Start-up: plan loads the recipes' models (pydantic), after the runner was launched.
    from probes.pipeline.plan import workspace

    cached = backend.name == "local" and prefixes.installed(agent, version)  # an image's build is timed as it goes
    started = time.monotonic()
    prefix = backend.prepare(agent, version)
    _install_s[run.root] = 0.0 if cached else round(time.monotonic() - started, 3)
    run.resize(recipe.disk_mb)
    workspace(run, recipe.files)
    return prefix


def plan(
    backend: Backend,
    agent: Agent,
    requested: str,
    version: str,
    recipe: ResolvedRecipe,
    prefix: Path,
    hooks: Hooks,
    run: RunDirs,
) -> Prepared:
    """The runner's plan, once the workspace holds what the session needs."""
    # Start-up: plan loads the recipes' models (pydantic), after the runner was launched.
    from probes.pipeline.plan import runner_plan

    planned = runner_plan(agent, prefix, recipe, run, backend.node_dir(), hooks.env, hooks.argv)
    # the agent's model URL; a file its session_env did not write for this release is skipped
    port_files = [str(run.home / rel) for rel in agent.port_files if untrusted.exists(run.home, rel)]
    if any(r.url and "{port}" in r.url for r in hooks.registrations):  # an http hook's URL names the receiver
        port_files += [str(f) for f in hooks.files]
    if port_files:
        planned["port_files"] = list(dict.fromkeys(port_files))
    return Prepared(agent, requested, version, recipe, prefix, hooks, planned, _install_s.pop(run.root, None))


@contextlib.contextmanager
def session(backend: Backend, prepare: Callable[[RunDirs], Prepared], runner_files: Sequence[str] = ()) -> Iterator[Ran]:
    """One session, from an empty run directory to what it left, collected; the run
    directory is removed when the block ends. The runner starts before `prepare` (its
    namespaces and interpreter start while this process plans), and is ended if it fails; in
    a worker that runs probe after probe, it was started during the last one (spare.py)."""
    started = spare.take(backend) or spare.start(backend, RUNNER_FILES, RUNNER)
    with started.stack:
        run, launch = started.run, started.launch
        spare.copy_runner_files(run.bin, runner_files, RUNNER)  # read once the plan is given
        try:
            ready = prepare(run)
        except BaseException:
            launch.cancel()
            raise
        planned_at = time.time()
        loading = load_record_modules()
        budget = f"budget {ready.plan['budget_s']:g}s"
        spare.make(backend, RUNNER_FILES, RUNNER)  # while this session runs: ready when the next probe is
        with progress.step(f"session: {ready.recipe.name} on {ready.agent.name} {ready.version} ({budget})"):
            ran = launch.run(ready.plan)
        returned_at = time.time()
        loading.join()
        # A record module (RECORD_MODULES): loaded by now, in the thread, while the CLI ran.
        from probes.pipeline.collect import collect

        collected, secrets = collect(ready.recipe, run, ready.hooks, ready.plan, ran.result, ready.prefix, backend.python())
        yield Ran(run, ready, backend, ran, collected, secrets, planned_at, returned_at)


def setup_read(jailed: Mapping[str, Any], invocations: Sequence[Invocation]) -> dict[str, Any]:
    """What the run showed of its setup: the shell at /bin/sh inside it (None: no jail of
    ours, as in a container), and what started its hooks."""
    from probes.pipeline.shells import named

    sh = jailed.get("sh")
    parents = Counter(i.parent["is"] for i in invocations if i.parent)
    return {"sh": named(sh["dev"], sh["ino"]) if isinstance(sh, dict) else None, "hook_parents": dict(sorted(parents.items()))}


def evidence(done: Ran, outcome: str, observations: dict[str, Any]) -> Evidence:
    """The session's record, with the caller's reading of it."""
    # Record modules (RECORD_MODULES): loaded by now, in the thread, while the CLI ran.
    from probes.evidence import provenance
    from probes.evidence.claims import Run, judge
    from probes.evidence.model import Evidence, iso
    from probes.pipeline.collect import REQUESTS_KEPT, sample
    from probes.pipeline.redact import redact

    ready, session, result, recipe = done.ready, done.collected, done.ran.result, done.ready.recipe
    agent = ready.agent
    executed, source = agent.executed_version(session.invocations, session.model_requests, done.run.home)
    jailed = result.get("jail") or {"filesystem": "host", "user": "caller"}
    ev = Evidence(
        agent=agent.name,
        requested_version=ready.requested,
        executed_version=executed,
        executed_version_source=source,
        version_mismatch=executed != ready.version,
        recipe=recipe.name,
        question=recipe.question,
        control=recipe.control,
        control_of=recipe.control_of,
        backend=done.backend.name,
        network=done.ran.network,
        isolation={
            "network": done.ran.network,
            "filesystem": jailed["filesystem"],
            "user": jailed["user"],
            "disk": ready.plan.get("disk", "uncapped"),
        },
        harness_version=provenance.version(),
        harness_commit=provenance.commit(),
        started_at=iso(result["started_at"]) or "",
        platform=f"{platform.system()}-{platform.machine()}",
        subject=session.subject,
        surface=recipe.surface,
        route=ready.hooks.route,
        mode=recipe.mode,
        setup=dict(recipe.setup) or None,
        setup_key=recipe.setup_key if recipe.setup else None,
        setup_read=setup_read(jailed, session.invocations) if recipe.setup else None,
        transcript=session.transcript,
        outcome=outcome,
        observations=observations,
        claims=judge(
            recipe.claims,
            agent.name,
            executed,
            outcome,
            observations,
            Run.of(recipe, session.cli.model_dump(mode="json")),
            session.error,
        ),
        hooks=session.hooks,
        run_id=ready.plan["run_id"],
        invocations=sample(session.invocations),
        invocation_count=len(session.invocations),
        invocations_by_event=session.invocations_by_event,
        model_requests=sample(session.model_requests, REQUESTS_KEPT),
        model_request_count=len(session.model_requests),
        side_effects=session.side_effects,
        cli=session.cli,
        cli_cwd=session.cli_cwd,
        image=done.ran.image,
        node=own_version(ready.prefix),
        error=session.error,
        cleanup={"alive_at_cli_exit": len(result["alive_at_cli_exit"]), "killed_by_harness": len(result["harness_killed"])},
    )
    # The session was scrubbed already; one more pass over everything that will be written
    # (the CLI's argv, output tails) so no credential can leave this function.
    return Evidence.model_validate(redact(json.loads(ev.model_dump_json()), done.secrets))
