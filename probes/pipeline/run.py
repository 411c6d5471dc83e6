"""One probe, from spec to evidence:

resolve -> install -> plan (workspace, hooks, runner plan) -> backend (model server + CLI)
        -> collect (typed, scrubbed) -> classify -> evidence -> write
"""

from __future__ import annotations

import importlib
import json
import platform
import shutil
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes.agents import AGENTS, Agent
from probes.backends import BACKENDS, Backend
from probes.errors import InputError
from probes.evidence.store import check_writable
from probes.pipeline import rundirs
from probes.pipeline.rundirs import RunDirs
from probes.runner.hook import process_start
from probes.versions import install, spec

if TYPE_CHECKING:
    from probes.backends import BackendRun
    from probes.catalog.recipes import ResolvedRecipe
    from probes.evidence.model import Collected, Evidence
    from probes.pipeline.plan import Hooks
    from probes.runner.contract import Plan

RUNNER_FILES = ("runner.py", "contract.py", "model.py", "dialects.py", "hook.py", "terminal.py", "jail.py", "untrusted.py")
DISK_FULL = "disk-full"  # the outcome of a session the runner ended at the run's disk cap

# What turns a session into a record (and what `probe run` prints it with). Imported in a
# thread while the CLI runs, not before it starts: the session's wait pays for them.
RECORD_MODULES = (
    "probes.evidence.claims",
    "probes.classify",
    "probes.pipeline.collect",
    "probes.evidence.model",
    "probes.evidence.provenance",
    "probes.pipeline.redact",
    "probes.report.tables",
)


def load_record_modules() -> threading.Thread:
    def load() -> None:
        for name in RECORD_MODULES:
            importlib.import_module(name)
        importlib.import_module("tabulate")

    thread = threading.Thread(target=load, name="probe-record-modules", daemon=True)
    thread.start()
    return thread


__all__ = ["RUNNER_FILES", "Probed", "build_evidence", "check_writable", "probe", "probe_repeated", "resolve"]


def resolve(spec_text: str) -> tuple[Agent, str, str]:
    """(agent, requested version, exact version). An installed exact version needs no
    registry round trip; anything else is checked against the registry."""
    s = spec.parse_spec(spec_text, AGENTS)
    agent = AGENTS[s.agent]
    if s.version != "latest" and install.installed(agent, s.version):
        return agent, s.version, s.version
    return agent, s.version, spec.resolve(s, agent.package, translate=agent.translate_version)


def load_recipe(name: str, agent: Agent) -> ResolvedRecipe:
    from probes.catalog.recipes import get as get_recipe

    recipe = get_recipe(name)
    if agent.name not in recipe.agents:
        raise InputError(f"recipe {name!r} does not apply to {agent.name} (it applies to {', '.join(recipe.agents)})")
    return recipe.for_agent(agent.name)


@dataclass(frozen=True)
class Probed:
    """Everything one probe produced, for its evidence record."""

    agent: Agent
    requested: str  # the version asked for
    version: str  # the exact version installed
    recipe: ResolvedRecipe
    backend: str
    ran: BackendRun  # the runner's result, and how the run was isolated
    plan: Plan
    session: Collected  # collected and scrubbed
    outcome: str
    observations: dict[str, Any]
    secrets: set[str]
    home: Path  # the session's HOME (a CLI's own log may name its version)
    route: str | None  # how an extension was loaded


def build_evidence(p: Probed) -> Evidence:
    from probes.evidence import provenance
    from probes.evidence.claims import Run, judge
    from probes.evidence.model import Evidence
    from probes.pipeline.collect import REQUESTS_KEPT, iso, sample
    from probes.pipeline.redact import redact

    session, result, recipe = p.session, p.ran.result, p.recipe
    executed, source = p.agent.executed_version(session.invocations, session.model_requests, p.home)
    jailed = result.get("jail") or {"filesystem": "host", "user": "caller"}
    ev = Evidence(
        agent=p.agent.name,
        requested_version=p.requested,
        executed_version=executed,
        executed_version_source=source,
        version_mismatch=executed != p.version,
        recipe=recipe.name,
        question=recipe.question,
        control=recipe.control,
        control_of=recipe.control_of,
        backend=p.backend,
        network=p.ran.network,
        isolation={
            "network": p.ran.network,
            "filesystem": jailed["filesystem"],
            "user": jailed["user"],
            "disk": p.plan.get("disk", "uncapped"),
        },
        harness_version=provenance.version(),
        harness_commit=provenance.commit(),
        started_at=iso(result["started_at"]) or "",
        platform=f"{platform.system()}-{platform.machine()}",
        subject=session.subject,
        surface=recipe.surface,
        route=p.route,
        mode=recipe.mode,
        transcript=session.transcript,
        outcome=p.outcome,
        observations=p.observations,
        claims=judge(
            recipe.claims,
            p.agent.name,
            executed,
            p.outcome,
            p.observations,
            Run.of(recipe, session.cli.model_dump(mode="json")),
            session.error,
        ),
        hooks=session.hooks,
        run_id=p.plan["run_id"],
        invocations=sample(session.invocations),
        invocation_count=len(session.invocations),
        invocations_by_event=session.invocations_by_event,
        model_requests=sample(session.model_requests, REQUESTS_KEPT),
        model_request_count=len(session.model_requests),
        side_effects=session.side_effects,
        cli=session.cli,
        cli_cwd=session.cli_cwd,
        image=p.ran.image,
        error=session.error,
        cleanup={"alive_at_cli_exit": len(result["alive_at_cli_exit"]), "killed_by_harness": len(result["harness_killed"])},
    )
    # The session was scrubbed already; one more pass over everything that will be written
    # (the CLI's argv, output tails) so no credential can leave this function.
    return Evidence.model_validate(redact(json.loads(ev.model_dump_json()), p.secrets))


def probe_repeated(
    spec_text: str, recipe_name: str, results: Path, backend_name: str = "local", repeat: int = 1
) -> tuple[list[Evidence], Path]:
    """`repeat` probes of one cell; the last is written, with the spread of labels seen."""
    records = [probe(spec_text, recipe_name, results, backend_name, write=False)[0] for _ in range(repeat)]
    from probes.evidence.model import evidence_path, save_evidence  # loaded by now, while the CLI ran

    if repeat > 1:
        records[-1] = records[-1].model_copy(
            update={"repeats": {"runs": repeat, "outcomes": dict(sorted(Counter(r.outcome for r in records).items()))}}
        )
    path = evidence_path(results, records[-1])
    save_evidence(path, records[-1])
    return records, path


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


def prepare(spec_text: str, recipe_name: str, backend: Backend, run: RunDirs) -> Prepared:
    """Everything a probe does before its session: the version (installed once), the recipe,
    the workspace, the hooks registered, the runner's plan. Bad input fails here, in this order."""
    from probes.pipeline.plan import register_hooks, runner_plan, workspace

    agent, requested, version = resolve(spec_text)
    recipe = load_recipe(recipe_name, agent)
    if recipe.mode not in backend.modes:
        able = ", ".join(b.name for b in BACKENDS.values() if recipe.mode in b.modes)
        raise InputError(f"recipe {recipe.name!r} is {recipe.mode}: it runs with --backend {able}")
    only = agent.backends  # an agent that runs with some backends only
    if only is not None and backend.name not in only:
        raise InputError(f"{agent.name} runs with --backend {', '.join(sorted(only))}, not {backend.name}")
    prefix = backend.prepare(agent, version)
    run.resize(recipe.disk_mb)
    workspace(run)
    hooks = register_hooks(agent, recipe, run, backend.python())
    plan = runner_plan(agent, prefix, recipe, run, backend.node_dir(), hooks.env)
    return Prepared(agent, requested, version, recipe, prefix, hooks, plan)


_previous_end: list[float] = []  # when this process's last probe ended (the next one's start-up begins there)


def probe(
    spec_text: str, recipe_name: str, results: Path, backend_name: str = "local", write: bool = True
) -> tuple[Evidence, Path]:
    entered = time.time()
    began = _previous_end[-1] if _previous_end else process_start()
    backend = BACKENDS[backend_name]
    check_writable(results)
    with rundirs.run_directory() as tmp:
        run = RunDirs(tmp)
        run.cap()  # before the runner's namespaces are made: they see the caps
        for name in RUNNER_FILES:
            shutil.copy(Path(__file__).parent.parent / "runner" / name, run.bin / name)
        launch = backend.launch(run.root)  # the runner starts now, while this process plans
        try:
            ready = prepare(spec_text, recipe_name, backend, run)
        except BaseException:
            launch.cancel()
            raise
        planned = time.time()
        loading = load_record_modules()
        ran = launch.run(ready.plan)
        returned = time.time()
        loading.join()
        from probes.classify import label
        from probes.evidence.model import HarnessTimes, evidence_path, save_evidence
        from probes.pipeline.collect import collect

        recipe, python = ready.recipe, backend.python()
        session, secrets = collect(recipe, run, ready.hooks, ready.plan, ran.result, ready.prefix, python)
        outcome, observations = label(recipe.classifier, session.classifiable())
        if ran.result.get("disk_full"):  # the session was ended at its disk cap: that is what it did
            outcome = DISK_FULL
        probed = Probed(
            ready.agent,
            ready.requested,
            ready.version,
            recipe,
            backend.name,
            ran,
            ready.plan,
            session,
            outcome,
            observations,
            secrets,
            run.home,
            ready.hooks.route,
        )
        ev = build_evidence(probed)
    built = time.time()
    result = ran.result
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
    ev = ev.model_copy(update={"harness": HarnessTimes(**{k: round(v, 3) for k, v in phases.items()})})
    _previous_end[:] = [time.time()]
    path = evidence_path(results, ev)
    if write:
        save_evidence(path, ev)
    return ev, path
