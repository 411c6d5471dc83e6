"""`probe timeline AGENT RECIPE`: a recipe's verdict as ranges of versions, from the evidence,
or filled by probing (the work: probes/sweep/fill.py; docs/ranges.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from probes import progress
from probes.commands.options import add_search, count, stem_of
from probes.errors import Exit, InputError
from probes.evidence.model import check_writable
from probes.report import timeline
from probes.report.width import columns, wrap
from probes.sweep.checks import check_recipe
from probes.sweep.fill import fill, filled_json, filled_text, restricted
from probes.versions.named import agent_named
from probes.versions.spec import bare_versions


def add_arguments(tl: argparse.ArgumentParser) -> None:
    tl.description = (
        "From the evidence (offline) unless --fill (bisect every open boundary) or --every K "
        "(probe every K-th release of --versions, then bisect between samples that differ)."
    )
    add_search(tl, "search")
    tl.add_argument(
        "--versions", type=bare_versions, metavar="RANGE", help="only these: LIST, RANGE (1.0.57..1.0.92) or latest:N"
    )
    tl.add_argument("--every", type=count("--every", 1, 10000), metavar="K", help="with --versions: sample every K-th release")
    tl.add_argument("--fill", action="store_true", help="bisect every open boundary")


def handle(args: argparse.Namespace) -> int:
    agent = agent_named(args.agent)
    check_recipe(agent, args.recipe, args.observation)
    args.recipe = stem_of(args.recipe, agent.name, args.setup)  # RECIPE@KEY in another setup
    if args.every and not args.versions:
        raise InputError("--every K samples a range: give it with --versions RANGE (e.g. 1.0.57..1.0.92)")
    results = Path(args.results)
    filled = None
    if args.fill or args.every:
        check_writable(results)
        progress.enable(args.progress)
        filled = fill(
            agent,
            args.recipe,
            results,
            args.observation,
            args.versions,
            args.every,
            args.jobs or 1,
            args.repeat,
            args.prereleases,
        )
    t = timeline.of_results(results, agent.name, args.recipe, args.observation)
    if args.versions:
        t = restricted(t, results, agent, args.versions)
    timeline.require_evidence(t, results)
    if args.json:
        doc = timeline.as_json(t)
        print(json.dumps({**doc, **({"fill": filled_json(filled)} if filled else {})}, indent=2))
    else:
        print(wrap(timeline.text(t), columns(), indent="    "))
        if filled:
            print(filled_text(filled))
    return filled.exit_status if filled else Exit.OK
