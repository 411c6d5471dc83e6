"""`probe versions AGENT`: its published versions, marked latest, probed, cached, pre-release,
unserved."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabulate import tabulate

from probes.commands.options import add_json, add_results
from probes.errors import Exit
from probes.sweep.bump import probed_versions
from probes.versions import spec
from probes.versions.named import agent_named
from probes.versions.prefixes import installed_versions


def add_arguments(v: argparse.ArgumentParser) -> None:
    v.add_argument("agent")
    add_results(v, "where probed versions are looked up")
    add_json(v)


def handle(args: argparse.Namespace) -> int:
    agent = agent_named(args.agent)
    table = spec.marked(spec.published(agent.package), probed_versions(Path(args.results), agent.name), installed_versions(agent))
    if args.json:
        print(json.dumps(table, indent=2))
    else:
        marks = ("latest", "probed", "cached", "prerelease", "unserved")
        print(
            tabulate(
                [(r["version"], *(m.replace("prerelease", "pre-release") if r[m] else "" for m in marks)) for r in table],
                headers=["version", *[""] * len(marks)],
            )
        )
    return Exit.OK
