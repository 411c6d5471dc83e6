"""`probe list`: the catalog of recipes, whole or for one agent or event; a table when piped,
a block per recipe fitted to a terminal (named list_ after the command: `list` is a builtin)."""

from __future__ import annotations

import argparse
import json

from tabulate import tabulate

from probes.agents import AGENTS, CANONICAL_EVENTS
from probes.catalog.recipes import Recipe, core_names, load_all
from probes.catalog.setup import DIMENSIONS, values
from probes.classify import CLASSIFIERS
from probes.commands.options import add_json
from probes.errors import Exit, InputError
from probes.report.width import columns, wrap
from probes.versions.named import agent_named


def add_arguments(ls: argparse.ArgumentParser) -> None:
    add_json(ls, "print the recipes as JSON, with their classifiers' key observation and what they read")
    ls.add_argument("--setups", action="store_true", help="each agent's setup values (--setup KEY=VALUE), defaults first")
    ls.add_argument("--agent", help="only the recipes that run on AGENT")
    ls.add_argument("--event", help="only the recipes that hook canonical event EVENT (pre_tool, stop, ...)")
    ls.add_argument("--core", action="store_true", help="only the core recipes (and their controls): what every agent answers")
    ls.add_argument("--wide", action="store_true", help="the full table, however wide (as when piped)")


def handle(args: argparse.Namespace) -> int:
    """The catalog; --json adds what each recipe's classifier shows in a table (its key
    observation) and the parts of the session it reads, from the classifier registry."""
    agent = agent_named(args.agent).name if args.agent else None
    if args.event is not None and args.event not in CANONICAL_EVENTS:
        raise InputError(f"unknown event {args.event[:40]!r}: the canonical events are {', '.join(sorted(CANONICAL_EVENTS))}")
    if args.setups:
        return print_setups(args.json, agent, columns(args.wide))
    recipes = [
        r
        for r in load_all().values()
        if (agent is None or agent in r.agents) and (args.event is None or args.event in r.canonical_events())
    ]
    if args.core:
        recipes = [r for r in recipes if r.name in core_names(load_all())]
    if args.json:
        rows = [
            {
                "name": r.name,
                "question": r.question,
                "agents": r.agents,
                "events": r.canonical_events(),
                "hook_types": r.hook_types(),
                "core": r.core,
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
        print(json.dumps(rows, indent=2))
    elif (width := columns(args.wide)) is None:  # a pipe, a file or --wide: the whole table
        print(
            tabulate(
                [(r.name, ",".join(r.agents), ",".join(r.canonical_events()), control_text(r), r.question) for r in recipes],
                headers=["recipe", "agents", "events", "control", "question"],
            )
        )
    else:
        print(blocks(recipes, width), end="")
    return Exit.OK


def blocks(recipes: list[Recipe], width: int) -> str:
    """A terminal's list: per recipe, its name, agents, events and control, then its question
    indented, each wrapped to `width`."""
    out = []
    for r in recipes:
        control = control_text(r)
        control = control if r.control_of else f"control {control}" if control else "no control"
        out.append(wrap(f"{r.name}  {','.join(r.agents)}  {events_short(r.canonical_events())}  {control}", width, "    "))
        out.append(wrap(f"    {r.question}", width, "    "))
    return "".join(line + "\n" for line in out)


def events_short(events: list[str], limit: int = 40) -> str:
    """`pre_tool, post_tool, +12 more` for a list longer than `limit` characters."""
    text = ", ".join(events)
    if len(text) <= limit:
        return text
    shown: list[str] = []
    for e in events:
        if len(", ".join([*shown, e, f"+{len(events)} more"])) > limit:
            break
        shown.append(e)
    return ", ".join([*shown, f"+{len(events) - len(shown)} more"])


def control_text(r: Recipe) -> str:
    if r.control_of:
        return f"(control of {r.control_of})"
    c = r.control
    return c if isinstance(c, str) else ", ".join(f"{a}: {n}" for a, n in (c or {}).items())


def print_setups(as_json: bool, only: str | None = None, width: int | None = None) -> int:
    """Every agent's (or `only`'s) values for each setup dimension, its default first: a table,
    or (`width`, a terminal) a line per dimension under each agent, wrapped."""
    table = {name: values(agent) for name, agent in AGENTS.items() if only in (None, name)}
    if as_json:
        print(json.dumps(table, indent=2))
    elif width is not None:
        pad = max(map(len, DIMENSIONS))
        for name, v in table.items():
            print(name)
            for k in DIMENSIONS:
                print(wrap(f"  {k:{pad}}  {', '.join(v[k])}", width, " " * (pad + 4)))
    else:
        rows = [(name, *(", ".join(v[k]) for k in DIMENSIONS)) for name, v in table.items()]
        print(tabulate(rows, headers=["agent", *DIMENSIONS]))
    return Exit.OK
