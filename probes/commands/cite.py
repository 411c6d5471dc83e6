"""`probe cite AGENT@VERSION RECIPE`: a Markdown block an ADR can paste."""

from __future__ import annotations

import argparse
from pathlib import Path

from probes.commands.options import add_results, add_setup, stem_of
from probes.errors import Exit, InputError
from probes.evidence.load import load
from probes.report.cite import cite
from probes.versions.named import newest_probed, spec_of


def add_arguments(ci: argparse.ArgumentParser) -> None:
    ci.add_argument(
        "spec",
        metavar="AGENT@VERSION",
        help="an exact version, or latest: the newest with evidence in --results (said on stderr)",
    )
    ci.add_argument("recipe", help="a recipe, or RECIPE@KEY=VALUE for a record of another setup")
    add_results(ci)
    add_setup(ci)


def handle(args: argparse.Namespace) -> int:
    s = spec_of(args.spec)
    wanted = stem_of(args.recipe, s.agent, args.setup)
    s = newest_probed(Path(args.results), s, wanted)  # latest: the newest probed of this recipe
    cells = load(Path(args.results), s.agent, wanted, s.version, strict=True)
    if not cells:
        raise InputError(f"no evidence for {s} {args.recipe} in {args.results}: run `probe run {s} {args.recipe}` first")
    print(cite(cells[0], Path(args.results)), end="")
    return Exit.OK
