"""`probe schema`: the JSON Schema of the evidence record (docs/evidence.schema.json)."""

from __future__ import annotations

import argparse

from probes.errors import Exit
from probes.evidence.schema import evidence_schema_text


def add_arguments(sc: argparse.ArgumentParser) -> None:
    sc.description = (
        "Print the JSON Schema of an evidence record (results/AGENT/VERSION/RECIPE.json), "
        "exported from the harness's own models; docs/evidence.schema.json is this output."
    )


def handle(args: argparse.Namespace) -> int:
    print(evidence_schema_text(), end="")
    return Exit.OK
