"""`probe list`: the catalog of recipes (named list_ after the command: `list` is a builtin)."""

from __future__ import annotations

import argparse
import json

from tabulate import tabulate

from probes.agents import AGENTS
from probes.catalog.recipes import Recipe, load_all
from probes.catalog.setup import DIMENSIONS, values
from probes.classify import CLASSIFIERS
from probes.commands.options import add_json
from probes.errors import Exit


def add_arguments(ls: argparse.ArgumentParser) -> None:
    add_json(ls, "print the recipes as JSON, with their classifiers' key observation and what they read")
    ls.add_argument("--setups", action="store_true", help="each agent's setup values (--setup KEY=VALUE), defaults first")


def handle(args: argparse.Namespace) -> int:
    """The catalog; --json adds what each recipe's classifier shows in a table (its key
    observation) and the parts of the session it reads, from the classifier registry."""
    if args.setups:
        return print_setups(args.json)
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
                "setup": r.default_setup(),
                "setups": r.setups,
                "compare_with": r.compare_with,
            }
            for r in recipes
        ]
                "hook_types": r.hook_types(),
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


def print_setups(as_json: bool) -> int:
    """Every agent's values for each setup dimension, its default first."""
    table = {name: values(agent) for name, agent in AGENTS.items()}
    if as_json:
        print(json.dumps(table, indent=2))
    else:
        rows = [(name, *(", ".join(v[k]) for k in DIMENSIONS)) for name, v in table.items()]
        print(tabulate(rows, headers=["agent", *DIMENSIONS]))
    return Exit.OK
