"""`probe cite AGENT@VERSION RECIPE`: a Markdown block an ADR can paste."""

from __future__ import annotations

import argparse
from pathlib import Path

from probes.commands.options import add_results, add_setup, stem_of
from probes.errors import Exit, InputError
from probes.evidence.load import load
from probes.report.cite import cite
from probes.versions.named import spec_of


def add_arguments(ci: argparse.ArgumentParser) -> None:
    ci.add_argument("spec", metavar="AGENT@VERSION")
    ci.add_argument("recipe", help="a recipe, or RECIPE@KEY=VALUE for a record of another setup")
    add_results(ci)
    add_setup(ci)


def handle(args: argparse.Namespace) -> int:
    s = spec_of(args.spec, exact=True)
    wanted = stem_of(args.recipe, s.agent, args.setup)
    cells = load(Path(args.results), s.agent, wanted, s.version, strict=True)
    if not cells:
        raise InputError(
            f"no evidence for {args.spec} {args.recipe} in {args.results}: run `probe run {args.spec} {args.recipe}` first"
        )
    print(cite(cells[0], Path(args.results)), end="")
    return Exit.OK
