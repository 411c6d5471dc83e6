"""`probe matrix --agent A --versions V`: recipes across versions of an agent, in parallel."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabulate import tabulate

from probes.catalog.names import recipe_named
from probes.commands.options import add_dry_run, add_jobs, add_json, add_recipe_choice, add_repeat, add_results, add_shard
from probes.errors import Exit
from probes.evidence.model import check_writable
from probes.sweep import matrix
from probes.versions.named import agent_named
from probes.versions.spec import bare_versions


def add_arguments(m: argparse.ArgumentParser) -> None:
    m.add_argument("--agent", required=True)
    m.add_argument(
        "--versions", required=True, type=bare_versions, help="LIST (1.0.80,1.0.81), RANGE (1.0.80..1.0.92) or latest:N"
    )
    add_recipe_choice(m)
    add_jobs(m)
    add_repeat(m, "runs per cell; the table shows the spread")
    add_results(m)
    add_shard(m, "run only slice I of N (disjoint, balanced by expected cost)")
    m.add_argument(
        "--setup",
        action="append",
        default=[],
        metavar="KEY=V1[,V2...]",
        help="run every cell under each of these setups (repeatable: the keys' values crossed)",
    )
    m.add_argument("--setups", choices=["declared"], help="declared: also every setup each recipe declares (`setups:`)")
    add_dry_run(m)
    add_json(m)


def handle(args: argparse.Namespace) -> int:
    agent = agent_named(args.agent)
    recipe_named(args.recipe, or_all=True)
    cells = matrix.plan(agent.name, args.versions, args.recipe, args.setup, args.setups == "declared")
    if args.shard:
        cells = matrix.shard(cells, *args.shard)
    if args.dry_run:
        if args.json:
            print(json.dumps(matrix.as_dicts(cells), indent=2))
        else:
            print(tabulate([(c.spec, c.name) for c in cells], headers=["cell", "recipe"]))
        return Exit.OK
    Path(args.results).mkdir(parents=True, exist_ok=True)
    check_writable(Path(args.results))
    cells = matrix.run(cells, Path(args.results), args.jobs, args.repeat)
    failed = [c for c in cells if c.status != "done"]
    if args.json:
        print(json.dumps(matrix.as_dicts(cells), indent=2))
    else:
        print(f"{len(cells) - len(failed)} of {len(cells)} cells ran; evidence in {args.results}")
        if failed:
            print(tabulate([(c.spec, c.name, c.reason) for c in failed], headers=["could not run", "recipe", "why"]))
    return Exit.HARNESS if failed else Exit.OK
