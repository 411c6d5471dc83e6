"""`probe cite AGENT@VERSION RECIPE`: a Markdown block an ADR can paste."""

from __future__ import annotations

import argparse
from pathlib import Path

from probes.commands.options import add_results
from probes.errors import Exit, InputError
from probes.evidence.load import load
from probes.report.cite import cite
from probes.versions.named import spec_of


def add_arguments(ci: argparse.ArgumentParser) -> None:
    ci.add_argument("spec", metavar="AGENT@VERSION")
    ci.add_argument("recipe")
    add_results(ci)


def handle(args: argparse.Namespace) -> int:
    s = spec_of(args.spec, exact=True)
    cells = load(Path(args.results), s.agent, args.recipe, s.version, strict=True)
    if not cells:
        raise InputError(
            f"no evidence for {args.spec} {args.recipe} in {args.results}: run `probe run {args.spec} {args.recipe}` first"
        )
    print(cite(cells[0], Path(args.results)), end="")
    return Exit.OK
