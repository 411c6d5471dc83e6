"""`probe list`: the catalog of recipes (named list_ after the command: `list` is a builtin)."""

from __future__ import annotations

import argparse
import json

from tabulate import tabulate

from probes.catalog.recipes import Recipe, load_all
from probes.classify import CLASSIFIERS
from probes.commands.options import add_json
from probes.errors import Exit


def add_arguments(ls: argparse.ArgumentParser) -> None:
    add_json(ls, "print the recipes as JSON, with their classifiers' key observation and what they read")


def handle(args: argparse.Namespace) -> int:
    """The catalog; --json adds what each recipe's classifier shows in a table (its key
    observation) and the parts of the session it reads, from the classifier registry."""
    recipes = load_all().values()
    if args.json:
        rows = [
            {
                "name": r.name,
                "question": r.question,
                "agents": r.agents,
                "events": r.canonical_events(),
                "control": r.control,
                "control_of": r.control_of,
                "classifier": r.classifier,
                "key_observation": CLASSIFIERS[r.classifier].key,
                "reads": list(CLASSIFIERS[r.classifier].reads),
                "surface": r.surface,
                "mode": r.mode,
                "compare_with": r.compare_with,
            }
            for r in recipes
        ]
        print(json.dumps(rows, indent=2))
    else:
        print(
            tabulate(
                [(r.name, ",".join(r.agents), control_text(r), r.question) for r in recipes],
                headers=["recipe", "agents", "control", "question"],
            )
        )
    return Exit.OK


def control_text(r: Recipe) -> str:
    if r.control_of:
        return f"(control of {r.control_of})"
    c = r.control
    return c if isinstance(c, str) else ", ".join(f"{a}: {n}" for a, n in (c or {}).items())
