"""`probe atlas`: every recipe's timeline over each agent's window (catalog/windows.yaml);
`--check` reports the coverage offline (sweep/atlas.py), without it what is missing is filled
(sweep/atlas_fill.py; docs/ranges.md, "The atlas")."""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace
from pathlib import Path

from probes import progress
from probes.catalog import windows
from probes.catalog.recipes import load_all
from probes.commands.options import add_json, add_progress, add_results, add_shard, count
from probes.errors import Exit, InputError
from probes.evidence.model import check_writable
from probes.limits import MAX_JOBS
from probes.sweep import atlas, atlas_fill
from probes.versions import cache
from probes.versions.named import agent_named
from probes.versions.spec import SPEC_RE, bare

ATLAS_CACHE_MAX = "30G"  # the installs' bound unless PROBE_CACHE_MAX sets one (docs/cache.md)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Each non-control recipe's timeline over each agent's window (probes/catalog/windows.yaml). "
        "--check: coverage and open boundaries from the evidence, nothing probed (exit 0 complete, 1 not). "
        "Otherwise fill what is missing: the window's ends, each open boundary bisected until adjacent, "
        "each pinned version, the control on every version probed (exit 0 complete, 1 not)."
    )
    p.add_argument("--check", action="store_true", help="report coverage and open boundaries, probe nothing")
    p.add_argument("--agent", help="one agent (default: every agent with a window)")
    p.add_argument("--recipe", help="one recipe (default: every non-control recipe of the agent)")
    p.add_argument("--core", action="store_true", help="the core recipes only (a recipe's `core: true`)")
    p.add_argument(
        "--no-slow",
        dest="slow",
        action="store_false",
        help="fill without the recipes that wait out a long default (`slow: true`; up to 11 min a probe); --check reports them",
    )
    p.add_argument("--from", dest="start", metavar="V", help="narrow the window: from this release")
    p.add_argument("--to", dest="end", metavar="V", help="narrow the window: up to this release")
    p.add_argument("--all", dest="every", action="store_true", help="--check: a line for every recipe, complete ones too")
    add_shard(p, "fill slice I of N of the (agent, recipe) pairs, balanced by expected cost (deterministic)")
    p.add_argument(
        "--jobs",
        type=count("--jobs", 1, MAX_JOBS),
        default=1,
        metavar="N",
        help="versions probed at once in a search (default 1)",
    )
    p.add_argument(
        "--minutes",
        type=count("--minutes", 1, 24 * 60),
        metavar="M",
        help="start no new (agent, recipe) pair after M minutes: what is done stays, the next run resumes (the nightly's bound)",
    )
    add_results(p)
    add_json(p)
    add_progress(p)


def _version(option: str, v: str | None) -> str | None:
    if v is None:
        return None
    v = bare(v)
    if not SPEC_RE.fullmatch(f"a@{v}") or v == "latest":
        raise InputError(f"{option} {v[:40]!r}: expected an exact release (e.g. 1.0.80)")
    return v


def handle(args: argparse.Namespace) -> int:
    wins = windows.load()
    if args.agent:
        agent_named(args.agent)
        if args.agent not in wins:
            raise InputError(f"{args.agent} has no window in {windows.windows_file()}: windows for {', '.join(sorted(wins))}")
    recipes = load_all()
    if args.recipe and args.recipe not in recipes:
        from probes.catalog.names import recipe_named

        recipe_named(args.recipe)  # the nearest names, in one line
    if args.recipe and recipes[args.recipe].control_of is not None:
        raise InputError(f"{args.recipe} is a control: the atlas runs it beside {recipes[args.recipe].control_of}")
    if args.shard and args.check:
        raise InputError("--shard slices the filling; --check reports every pair")
    lo, hi = _version("--from", args.start), _version("--to", args.end)
    results = Path(args.results)
    agents = [args.agent] if args.agent else sorted(wins)
    found = atlas.check(results, wins, recipes, agents, args.recipe, args.core, lo, hi)
    if args.recipe and not any(a.recipes for a in found):
        raise InputError(f"{args.recipe} does not run on {', '.join(agents)}")
    if args.check:
        print(json.dumps(atlas.as_json(found), indent=2) if args.json else atlas.text(found, args.every))
        return Exit.OK if all(c.complete for a in found for c in a.recipes) else Exit.HARNESS
    check_writable(results)
    if cache.max_bytes() is None:  # hundreds of releases: Claude Code's window alone fills 36 GB
        os.environ[cache.MAX_ENV] = ATLAS_CACHE_MAX
    progress.enable(args.progress)
    # the slow recipes left out before the slicing: balanced by cost, they would fill whole shards
    wanted = [replace(a, recipes=[c for c in a.recipes if args.slow or not recipes[c.recipe].slow]) for a in found]
    pairs = atlas_fill.sharded(wanted, args.shard)
    if args.minutes and args.check:
        raise InputError("--minutes bounds the filling; --check probes nothing")
    done = atlas_fill.fill_all(pairs, results, args.jobs, args.minutes)
    after = atlas.check(results, wins, recipes, agents, args.recipe, args.core, lo, hi)
    if args.json:
        print(json.dumps({"filled": [atlas_fill.done_json(d) for d in done], **atlas.as_json(after)}, indent=2))
    else:
        print("\n".join([*(atlas_fill.done_text(d) for d in done), atlas.text(after)]))
    return atlas_fill.exit_status(done, pairs)
