"""`probe bisect AGENT RECIPE --from V1 --to V2`: the release where a recipe's verdict changed
(the work: probes/sweep/bisect.py; docs/ranges.md); `--surface KIND:NAME` instead of a recipe:
the first release whose install declares a surface item (probes/sweep/surface_bisect.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from probes import progress
from probes.agents import Agent
from probes.commands.options import add_search, stem_of
from probes.errors import InputError
from probes.evidence.model import check_writable
from probes.sweep.bisect import as_json, bisect, text
from probes.sweep.checks import check_recipe
from probes.versions.named import agent_named
from probes.versions.spec import SPEC_RE, bare_versions


def add_arguments(bi: argparse.ArgumentParser) -> None:
    bi.description = (
        "Probe --from and --to, then halve the published releases between them until two adjacent "
        "ones give different verdicts; the recipe's control is probed on both. Exit 0 when a boundary was found "
        "or the ends agree, 1 when a needed cell could not run or a version was flaky, 2 for bad input."
    )
    add_search(bi, "bisect", recipe_optional=True)
    bi.add_argument(
        "--surface",
        metavar="KIND:NAME",
        help="instead of a recipe: the first version whose install declares this item of the hook surface "
        "(e.g. event:PreModelSwitch; KIND as `probe surface` lists them), reading installs only, no sessions",
    )
    bi.add_argument("--from", dest="start", required=True, type=bare_versions, metavar="V1", help="an exact published version")
    bi.add_argument(
        "--to", dest="end", required=True, type=bare_versions, metavar="V2", help="a later published version, or latest"
    )


def handle(args: argparse.Namespace) -> int:
    agent = agent_named(args.agent)
    if args.surface is not None or args.recipe is None:
        return surface(args, agent)
    check_recipe(agent, args.recipe, args.observation)
    args.recipe = stem_of(args.recipe, agent.name, args.setup)  # RECIPE@KEY in another setup
    for option, v in (("--from", args.start), ("--to", args.end)):
        if not SPEC_RE.fullmatch(f"{agent.name}@{v}"):
            raise InputError(f"{option} {v[:40]!r}: expected an exact version (e.g. 1.0.80) or latest")
    check_writable(Path(args.results))
    progress.enable(args.progress)
    r = bisect(
        agent,
        args.recipe,
        args.start,
        args.end,
        Path(args.results),
        args.observation,
        args.prereleases,
        args.repeat,
        args.jobs or 1,
    )
    print(json.dumps(as_json(r), indent=2) if args.json else text(r))
    return r.exit_status


def surface(args: argparse.Namespace, agent: Agent) -> int:
    """`--surface KIND:NAME`: the search over installs (probes/sweep/surface_bisect.py)."""
    from probes.surface.read import check_agent
    from probes.sweep import surface_bisect as sb

    if args.surface is None:
        raise InputError("bisect needs a RECIPE, or --surface KIND:NAME")
    if args.recipe is not None:
        raise InputError(f"give a recipe or --surface, not both ({args.recipe!r} and --surface {args.surface!r})")
    given = [o for o, v in (("--observation", args.observation), ("--setup", args.setup)) if v]
    given += [o for o, v in (("--repeat", args.repeat), ("--jobs", args.jobs)) if v != 1]
    if given:
        raise InputError(f"{', '.join(given)}: a --surface bisect runs no session (installs are read one at a time)")
    sb.parse_item(args.surface)
    check_agent(agent.name)
    for option, v in (("--from", args.start), ("--to", args.end)):
        if not SPEC_RE.fullmatch(f"{agent.name}@{v}"):
            raise InputError(f"{option} {v[:40]!r}: expected an exact version (e.g. 1.0.80) or latest")
    check_writable(Path(args.results))  # the registry's snapshot is kept there, as bisect keeps it
    progress.enable(args.progress)
    r = sb.surface_bisect(agent, args.surface, args.start, args.end, Path(args.results), args.prereleases)
    print(json.dumps(sb.as_json(r), indent=2) if args.json else sb.text(r))
    return r.exit_status
