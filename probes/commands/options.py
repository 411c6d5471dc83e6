"""Options several commands share, and the checks of counts and directories argparse runs
while parsing. A bad value ends as one line (errors.UsageError, exit 2, from cli.main)
instead of argparse's usage block; names (agents, recipes, specs) are checked by the command
before it asks a registry or runs anything (agents.agent_named, spec.spec_of,
names.recipe_named), with the nearest names."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from probes.catalog.setup import base_of, parse_pairs, split_stem
from probes.errors import UsageError
from probes.limits import MAX_JOBS, MAX_REPEAT, MAX_SHARDS

COUNT_RE = re.compile(r"\d{1,9}", re.ASCII)  # ASCII digits only, bounded before int()


def count(option: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, so a typo cannot ask for no
    workers or a billion runs."""

    def parse(text: str) -> int:
        if not (COUNT_RE.fullmatch(text) and low <= int(text) <= high):
            raise UsageError(f"{option} must be from {low} to {high}, not {text[:20]!r}")
        return int(text)

    return parse


def results_dir(text: str) -> str:
    """An argparse type: a directory name (Path('') would be the current directory)."""
    if text == "":
        raise UsageError("--results needs a directory, not ''")
    return text


def shard(text: str) -> tuple[int, int]:
    """An argparse type: I/N, checked before the registry is asked."""
    # imported when --shard is given: only matrix and bump take it, and they import the matrix anyway
    from probes.sweep.matrix import parse_shard

    return parse_shard(text)


def add_results(p: argparse.ArgumentParser, help: str = "evidence directory (default: ./results)") -> None:
    p.add_argument("--results", type=results_dir, default="results", help=help)


def add_json(p: argparse.ArgumentParser, help: str = "print JSON") -> None:
    p.add_argument("--json", action="store_true", help=help)


def add_repeat(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--repeat", type=count("--repeat", 1, MAX_REPEAT), default=1, metavar="N", help=help)


def add_progress(p: argparse.ArgumentParser) -> None:
    """--progress: each long step on stderr even when it is not a terminal (probes/progress.py)."""
    p.add_argument(
        "--progress",
        action="store_true",
        help="say each long step (install, session, round) on stderr even when it is not a terminal",
    )


def add_setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--setup",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="run under another setup than the recipe's: config, session, permissions, rules or sh "
        "(repeatable; `probe list --setups` shows each agent's values)",
    )


def stem_of(recipe: str, agent: str, setup: list[str]) -> str:
    """The record file a recipe names in a setup: RECIPE, RECIPE@KEY as written, or the recipe
    with --setup pairs (keyed against its default, as `probe run --setup` stores it)."""
    pairs = parse_pairs(setup)
    if not pairs:
        return recipe
    from probes.catalog.recipes import get  # the recipes' models: only when a setup is asked

    name = base_of(recipe)
    return get(name).for_agent(agent, {**parse_pairs([split_stem(recipe)[1]]), **pairs}).stem


def add_jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=count("--jobs", 1, MAX_JOBS),
        metavar="N",
        help=f"cells at once, at most {MAX_JOBS} (default: one per core, more while cores are idle)",
    )


def add_shard(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--shard", metavar="I/N", type=shard, help=help)


def add_shards(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--shards", type=count("--shards", 1, MAX_SHARDS), default=1, metavar="N", help=help)


def add_recipe_choice(p: argparse.ArgumentParser) -> None:
    p.add_argument("--recipe", default="all", help="a recipe name, or all (default)")


def add_dry_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")


def add_search(c: argparse.ArgumentParser, verb: str, recipe_optional: bool = False) -> None:
    """What `bisect` and `timeline` both take (docs/ranges.md); `recipe_optional`: bisect, whose
    --surface searches installs instead of a recipe's verdicts."""
    c.add_argument("agent")
    c.add_argument(
        "recipe",
        nargs="?" if recipe_optional else None,
        help="recipe name (see `probe list`), or RECIPE@KEY=VALUE in another setup",
    )
    add_setup(c)
    c.add_argument("--observation", metavar="KEY", help="compare this observation's value, not the outcome label")
    c.add_argument("--prereleases", action="store_true", help="pre-releases are candidates too")
    add_repeat(c, f"probe each version N times; one whose runs disagree stops the {verb} as flaky")
    c.add_argument(
        "--jobs",
        type=count("--jobs", 1, MAX_JOBS),
        default=1,
        metavar="N",
        help="versions probed at once (N points of an interval; default 1)",
    )
    add_results(c)
    add_json(c)
    add_progress(c)
