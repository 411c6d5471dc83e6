"""`probe merge DIR...`: combine evidence trees (e.g. shards) into one results tree."""

from __future__ import annotations

import argparse
from pathlib import Path

from probes.commands.options import add_results
from probes.errors import Exit, UsageError
from probes.evidence.merge import merge


def add_arguments(mg: argparse.ArgumentParser) -> None:
    mg.add_argument("dirs", nargs="+", metavar="DIR")
    add_results(mg, "the tree to merge into (default: ./results)")
    mg.add_argument("--replace", action="store_true", help="merged records replace different ones already there")


def handle(args: argparse.Namespace) -> int:
    if "" in args.dirs:
        raise UsageError("merge DIR: a directory, not ''")
    written, same = merge([Path(d) for d in args.dirs], Path(args.results), args.replace)
    print(f"{written} record(s) merged into {args.results}" + (f", {same} already there" if same else ""))
    return Exit.OK
