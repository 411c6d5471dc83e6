"""`probe diff AGENT@V1 AGENT@V2`: what changed between two versions of an agent."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from probes.commands.options import add_json, add_results
from probes.errors import Exit, InputError
from probes.evidence.load import load
from probes.report.diff import compared, diff, diff_text
from probes.versions.named import newest_probed, spec_of


def add_arguments(d: argparse.ArgumentParser) -> None:
    d.add_argument("a", metavar="AGENT@V1")
    d.add_argument("b", metavar="AGENT@V2", help="an exact version each, or latest: the newest with evidence in --results")
    add_results(d)
    d.add_argument("--timings", action="store_true", help="also list timing observations (*_s)")
    add_json(d)


def handle(args: argparse.Namespace) -> int:
    a, b = spec_of(args.a), spec_of(args.b)
    if a.agent != b.agent:
        raise InputError(f"diff compares two versions of one agent, not {a.agent} and {b.agent}")
    a, b = (newest_probed(Path(args.results), x) for x in (a, b))  # latest: the newest probed
    cells = load(Path(args.results), a.agent)
    changes = diff(cells, a.agent, a.version, b.version, args.timings)
    if args.json:
        print(json.dumps(changes, indent=2, sort_keys=True))
    else:
        print(diff_text(changes, a.agent, a.version, b.version, compared(cells, a.agent, a.version, b.version)))
    return Exit.OK
