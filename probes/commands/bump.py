"""`probe bump`: plan, run and report each agent's new releases; the exit status says what
changed (sweep/bump.py, Night.exit_status)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tabulate import tabulate

from probes.catalog.names import recipe_named
from probes.commands.options import add_dry_run, add_jobs, add_json, add_recipe_choice, add_results, add_shard, add_shards
from probes.errors import Exit, UsageError
from probes.sweep import bump
from probes.versions.named import agent_named
from probes.versions.spec import bare_versions


def add_arguments(b: argparse.ArgumentParser) -> None:
    b.description = (
        "Probe each agent's releases newer than the newest probed one (or --from), "
        "then compare each with the release before it. Exit 3 when a verdict "
        "changed, 1 when cells failed and none changed, 0 otherwise."
    )
    b.add_argument("--agent", action="append", help="repeat for several agents")
    b.add_argument(
        "--plan",
        metavar="FILE",
        help="the output of `bump --dry-run --json`: probe and report exactly its versions (with --agent, only those agents')",
    )
    b.add_argument("--from", dest="start", type=bare_versions, metavar="VERSION", help="probe versions newer than this one")
    b.add_argument("--versions", type=bare_versions, help="exactly these (LIST or RANGE) instead of every newer release")
    add_recipe_choice(b)
    b.add_argument("--prereleases", action="store_true", help="include pre-releases")
    add_results(b)
    add_jobs(b)
    b.add_argument("--link-base", default="", help="prefix for evidence links in the report (e.g. a blob URL)")
    add_shard(b, "run only slice I of N of the cells (a CI job's share)")
    add_shards(b, "with --dry-run --json: split each agent's cells into N CI jobs")
    add_dry_run(b)
    b.add_argument(
        "--report-only",
        action="store_true",
        help="report from the evidence in --results, run nothing; missing cells count as failed",
    )
    add_json(b)


def handle(args: argparse.Namespace) -> int:
    if not (args.plan or args.agent):
        raise UsageError("bump needs --agent or --plan")
    agents = [agent_named(a).name for a in args.agent or ()]
    if not args.plan:
        recipe_named(args.recipe, or_all=True)
    plans = bump.plans(
        Path(args.results),
        agents or None,
        Path(args.plan) if args.plan else None,
        args.start,
        args.recipe,
        args.prereleases,
        args.versions,
        args.shard,
    )
    if args.dry_run:
        if args.json:
            print(json.dumps({"plans": [p.summary() for p in plans], "matrix": bump.github_matrix(plans, args.shards)}, indent=2))
        else:
            print(
                tabulate(
                    [(p.agent, p.start, p.baseline or "-", ", ".join(p.versions) or "-", len(p.cells), p.already) for p in plans],
                    headers=["agent", "after", "baseline", "new versions", "cells to run", "already probed"],
                )
            )
        return Exit.OK
    night = bump.probe_and_report(plans, Path(args.results), args.jobs, args.report_only, args.link_base, surface=True)
    if args.json:
        print(json.dumps({"plans": night.docs, "verdicts_changed": night.changed, "report": "\n".join(night.reports)}, indent=2))
    else:
        print("\n".join(night.reports), end="")
    return night.exit_status
