"""`probe reclassify`: label committed evidence again with the current classifiers (no CLI is run)."""

from __future__ import annotations

import argparse
from pathlib import Path

from probes.catalog.recipes import load_all
from probes.commands.options import add_results
from probes.errors import Exit
from probes.evidence.model import SCHEMA_VERSION
from probes.evidence.reclassify import reclassify


def add_arguments(rc: argparse.ArgumentParser) -> None:
    add_results(rc)


def handle(args: argparse.Namespace) -> int:
    changed = upgraded = kept = 0
    for r in reclassify(Path(args.results), load_all()):
        kept += r.compact
        if r.compact and not r.relabelled and not r.migrated:
            continue  # unchanged: counted in the summary
        if r.relabelled:
            changed += 1
            print(f"{r.path}: {r.before} -> {r.after}" if r.after != r.before else f"{r.path}: {r.what}")
        else:
            upgraded += 1
            print(f"{r.path}: upgraded (schema_version {SCHEMA_VERSION}, stored compact)")
    print(
        f"{changed} record(s) changed"
        + (f", {upgraded} upgraded" if upgraded else "")
        + (f"; {kept} compact record(s) kept their labels (their sessions are not stored: not classified again)" if kept else "")
    )
    return Exit.OK
