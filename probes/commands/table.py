"""`probe table`: committed evidence as each recipe's verdicts in version ranges per agent
(markdown, a compact view fitted to the terminal, JSON or the HTML page); a full table also
writes the results' index."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from probes.catalog.recipes import load_all
from probes.commands.options import add_results
from probes.errors import Exit, InputError
from probes.evidence.load import load, versions_of
from probes.evidence.model import write_atomic
from probes.report import tables
from probes.report.coverage import coverages
from probes.report.page import html_page
from probes.report.ranges import known_candidates
from probes.report.width import columns


def add_arguments(t: argparse.ArgumentParser) -> None:
    add_results(t)
    t.add_argument("--agent")
    t.add_argument("--recipe")
    t.add_argument("--grid", action="store_true", help="markdown: recipes x versions, one column per version")
    t.add_argument(
        "--format",
        choices=["markdown", "json", "html"],
        help="default: a compact view fitted to the terminal (COLUMNS), the Markdown when piped",
    )
    t.add_argument("--wide", action="store_true", help="the full Markdown table, however wide")
    t.add_argument("--output", help="where --format html writes (default: RESULTS/index.html)")
    t.add_argument(
        "--at",
        metavar="AGENT@V",
        help="with --recipe: the answer for one release, from the range that contains it (or why there is none)",
    )


def handle(args: argparse.Namespace) -> int:
    results = Path(args.results)
    out = Path(args.output or results / "index.html")
    if args.grid and args.format not in (None, "markdown"):
        raise InputError(f"--grid is a markdown layout: --format {args.format} has none (json lists every record)")
    # no --format, --grid or --wide: fitted to a terminal, or today's Markdown in a pipe or file
    width = None if args.format or args.grid else columns(args.wide)
    if args.format == "html" and args.output:  # refused before anything is read or written
        if out.is_dir():
            raise InputError(f"--output {out} is a directory: name the file to write")
        if not out.parent.is_dir():
            raise InputError(f"--output {out}: no directory {out.parent}")
    if args.at:  # one release's answer, from the range that holds it (report/at.py)
        from probes.report.at import at_release

        found = at_release(results, args.recipe, args.at, args.agent)
        print(json.dumps([a.as_json() for a in found], indent=2) if args.format == "json" else "\n".join(a.text for a in found))
        return Exit.OK if found[0].answered else Exit.HARNESS  # the recipe's own row (its default setup) first
    cells = load(results, args.agent, args.recipe, setups=True)  # --recipe R: its rows in every setup
    if not cells:
        raise InputError(f"no evidence in {results} for {args.agent or 'any agent'} {args.recipe or ''}".rstrip())
    recipes = load_all()
    classifiers = {name: r.classifier for name, r in recipes.items()}
    # a record of another setup (RECIPE@KEY) is a row of its own, read by its recipe's classifier
    classifiers.update({c.recipe: recipes[c.base].classifier for c in cells if c.setup_key and c.base in recipes})
    pairs = {name: r.compare_with for name, r in recipes.items() if r.compare_with}  # extension -> command-hook recipe
    known = known_candidates(results, sorted({c.agent for c in cells}))  # the registry snapshots
    full = not (args.agent or args.recipe)
    # each agent's events probed, from its saved surface (offline): on the page and the index
    cov = coverages(results, {a: versions_of(cells, a) for a in known}, recipes) if full or args.format == "html" else {}
    if args.format == "json":
        print(tables.as_json(cells), end="")
    elif args.format == "html":
        write_atomic(
            out,
            html_page(cells, classifiers, out.parent, known, cov),
            "table",
            "check --output" if args.output else "check the results directory",
        )
        print(out)
    elif width is None:
        print(tables.markdown(cells, classifiers, pairs, known, args.grid), end="")
    else:
        questions = {name: r.question for name, r in recipes.items()}
        # a setup's row (RECIPE@KEY=VALUE) asks its recipe's question: said once
        questions.update({c.recipe: f"{c.base}'s question, under {c.setup_key}" for c in cells if c.setup_key})
        print(tables.compact(cells, classifiers, known, width, questions), end="")
    if full:  # the index covers everything, so only a full table writes it
        tables.write_index(results, cells, classifiers, pairs, known, {a: c.line for a, c in cov.items()})
    return Exit.OK
