"""`probe import DIR`: a recorder's log as evidence, provenance recorded-by-person, apart from
driven runs (the work: probes/recorder.py; docs/recorder.md). Named import_ after the command:
`import` is a keyword."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from probes.commands.options import add_results
from probes.errors import Exit
from probes.evidence.model import check_writable
from probes.recorder import import_log


def add_arguments(im: argparse.ArgumentParser) -> None:
    im.description = (
        "Read DIR/.probe-recorder/log.jsonl (or DIR/log.jsonl), check it whole, and write evidence "
        "under RESULTS/<agent>/_recorded/<version>/ (docs/recorder.md)."
    )
    im.add_argument("dir", metavar="DIR")
    add_results(im)


def handle(args: argparse.Namespace) -> int:
    results = Path(args.results)
    check_writable(results)
    for path in import_log(Path(args.dir), results):
        print(os.fspath(path))
    return Exit.OK
