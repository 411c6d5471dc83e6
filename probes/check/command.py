"""`probe check AGENT@VERSION --hooks DIR`: the input checked before anything is installed or
run (the folder, its configs, the scenario, the versions), each version checked, the report
printed, the exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from probes.agents import Agent, get
from probes.catalog.names import NAME_RE
from probes.catalog.parts import Step
from probes.catalog.scenarios import SESSION, TOOL, Scenario, load
from probes.check import plugins
from probes.check.config import ConfigFile, Configured, check_scripts, configured, discover
from probes.check.report import PROGRESS, table, versions_table
from probes.check.verdicts import ok
from probes.check.version import check_version
from probes.check.workspace import check_folder
from probes.errors import Exit, InputError
from probes.evidence.store import check_writable
from probes.pipeline.run import resolve
from probes.sweep.matrix import select_versions
from probes.versions import prefixes
from probes.versions.named import spec_of


def scenario_name_ok(scenario: Scenario) -> None:
    if not NAME_RE.fullmatch(scenario.name):
        raise InputError(f"scenario name {scenario.name!r}: lower-case words joined by '-' (it names the evidence file)")


def scenario_fits(agent: Agent, scenario: Scenario) -> None:
    """A scenario whose steps need a tool the agent's sessions do not have is refused."""
    if agent.tool_kinds is None:
        return
    missing = sorted({s.tool for s in scenario.turns if s.tool} - agent.tool_kinds)
    if missing:
        raise InputError(
            f"scenario {scenario.name} needs a {' and a '.join(missing)} tool, which {agent.name} has not here "
            f"(its scenarios can use: {', '.join(sorted(agent.tool_kinds))})"
        )


def prepare(agent_name: str, folder: Path) -> tuple[Agent, list[ConfigFile], list[Configured]]:
    """Everything checked before anything is installed or run: bad input is one line."""
    agent = get(agent_name)
    folder = folder.resolve()
    if not folder.is_dir():
        raise InputError(f"--hooks {folder}: not a directory")
    check_folder(folder)  # first: nothing in it is opened before it is known to be a file
    if agent.plugin_sources:  # its hooks are code: each plugin file is a hook (check/plugins.py)
        return agent, [], plugins.configured(agent, plugins.discover(agent, folder), folder)
    configs = discover(agent, folder)
    check_scripts(folder, configs)
    return agent, configs, configured(agent, configs)


def versions_of(agent: Agent, spec_version: str, selector: str | None) -> list[tuple[str, str]]:
    """(requested, exact) pairs: the spec's version, resolved as `probe run` resolves it
    (an agent's own version scheme translated), or --versions. Installed exact versions need
    no registry round trip."""
    if selector is None:
        _, requested, exact = resolve(f"{agent.name}@{spec_version}")
        return [(requested, exact)]
    listed = [v.strip() for v in selector.split(",") if v.strip()]
    if ".." not in selector and not selector.startswith("latest") and all(prefixes.installed(agent, v) for v in listed):
        return [(v, v) for v in listed]
    chosen = select_versions(agent, selector)
    if not chosen:
        raise InputError(f"--versions {selector} selects no published {agent.name} version")
    return [(v, v) for v in chosen]


def commands_scenario(commands: Sequence[str]) -> Scenario:
    """--command CMD ...: one shell step per command, in order, then a text."""
    turns = [Step(tool="shell", command=c) for c in commands] + [Step(text="done")]
    return Scenario(name="commands", description="the commands given with --command", turns=turns, events=SESSION + TOOL)


def cmd_check(args: Any) -> int:
    """probe check AGENT@VERSION --hooks DIR: 0, or 4 with --strict when a hook is not as
    its scenario expects or a command not as --expect says."""
    s = spec_of(args.spec)
    PROGRESS[0] = bool(args.progress) or sys.stderr.isatty()
    commands, expect = args.command or [], args.expect or []
    if commands and args.scenario is not None:
        raise InputError("--command builds its own scenario: give --scenario or --command, not both")
    if expect and len(expect) != len(commands):
        raise InputError(f"--expect goes with --command, one each: {len(commands)} --command, {len(expect)} --expect")
    if any("\0" in c or not c.strip() for c in commands):
        raise InputError("--command: an empty command, or one with a NUL character")
    agent, configs, hooks = prepare(s.agent, Path(args.hooks))
    scenario = commands_scenario(commands) if commands else load(args.scenario or "shell")
    scenario_name_ok(scenario)
    scenario_fits(agent, scenario)
    chosen = versions_of(agent, s.version, args.versions)  # an unpublished version: before anything is written
    results = Path(args.results)
    check_writable(results)
    reports = []
    for requested, version in chosen:
        report = check_version(
            agent, requested, version, scenario, Path(args.hooks).resolve(), configs, hooks, results, expect=expect
        )
        reports.append(report)
        if not args.json and len(chosen) == 1:
            print(table(report), flush=True)
    if args.json:
        out = [{k: v for k, v in r.items() if k != "requested"} for r in reports]
        print(json.dumps(out if args.versions else out[0], indent=2))
    elif len(chosen) > 1:
        print(versions_table(reports), flush=True)
    failed = [h for r in reports for h in r["hooks"] if not ok(h)]
    unmet = [e for r in reports for e in r.get("expectations") or [] if not e["met"]]
    return Exit.NOT_AS_EXPECTED if args.strict and (failed or unmet) else Exit.OK
