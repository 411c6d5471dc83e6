"""A setup: the conditions a verdict is measured under, one value per dimension.

    config       where the hooks are written: project (the agent's own project config), or
                 another source the agent reads (user, plugin, claude-settings, ...)
    session      print (-p / exec), or interactive (a terminal session driven step by step)
    permissions  preapproved (the tools allowed up front), none (the agent's own default), or
                 one of the agent's permission modes
    rules        permission rules written into the settings the hooks go to: none, or one the
                 agent declares (Claude: allow-bash, ask-bash, deny-bash)
    sh           the shell at /bin/sh inside the run (the jail binds it there): dash, bash, busybox

Each agent has its own values (the first is its default). A recipe states its default setup
(`setup:`) and the other setups it is committed under (`setups:`); `--setup KEY=VALUE` varies
one run. A record made under another setup than its recipe's default is stored beside it as
RECIPE@KEY=VALUE[,KEY=VALUE].json, the keys in the order above: its setup key names only what
differs from the recipe's default, so every default record keeps its name.

A dimension added after records were committed (ADDED) has the value every earlier record was
made under; a record's setup without its key reads as that value (`filled`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from probes.errors import InputError

if TYPE_CHECKING:
    from probes.agents import Agent

DIMENSIONS = ("config", "session", "permissions", "rules", "sh")
# Dimensions added after records were committed, with the value every record before them was
# made under (the first of each agent's values).
ADDED = {"rules": "none"}
SHELLS = ("dash", "bash", "busybox")  # the first is what every committed record before setups ran under
VALUE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")

Setup = dict[str, str]  # every dimension, in DIMENSIONS order


def values(agent: Agent) -> dict[str, tuple[str, ...]]:
    """The values each dimension has on `agent`, its default first."""
    return {
        "config": tuple(agent.config_locations),
        "session": agent.sessions,
        "permissions": agent.permission_setups,
        "rules": agent.rule_setups,
        "sh": SHELLS,
    }


def default(agent: Agent) -> Setup:
    return {k: v[0] for k, v in values(agent).items()}


def check(agent: Agent, given: Mapping[str, str], where: str) -> None:
    """InputError naming the first key or value `agent` does not have."""
    known = values(agent)
    for k, v in given.items():
        if k not in known:
            raise InputError(f"{where}: no setup key {k!r}; known: {', '.join(DIMENSIONS)}")
        if v not in known[k]:
            raise InputError(f"{where}: {agent.name} has no {k} value {v!r}; known: {', '.join(known[k])}")


def resolve(agent: Agent, *layers: Mapping[str, str]) -> Setup:
    """The agent's default setup with each layer's values over it, in order (checked)."""
    setup = default(agent)
    for layer in layers:
        check(agent, layer, f"setup for {agent.name}")
        setup.update(layer)
    return {k: setup[k] for k in DIMENSIONS}


def filled(setup: Mapping[str, str]) -> Setup:
    """A record's setup with the dimensions added since it was made (ADDED) at the value it was
    made under; its other keys as they are."""
    return {**{k: v for k, v in ADDED.items() if k not in setup}, **setup}


def key(setup: Mapping[str, str], base: Mapping[str, str]) -> str:
    """What `setup` changes from `base`, as a file name's suffix reads it: "" when nothing. A
    key either lacks that was added since (ADDED) is its value then."""
    setup, base = filled(setup), filled(base)
    return ",".join(f"{k}={setup[k]}" for k in DIMENSIONS if setup.get(k) != base.get(k))


def parse_pairs(items: Iterable[str], where: str = "--setup") -> dict[str, str]:
    """KEY=VALUE items (one or several joined by ',') as a mapping; InputError on a bad one."""
    out: dict[str, str] = {}
    for item in items:
        for pair in filter(None, item.split(",")):
            k, eq, v = pair.partition("=")
            if not eq or k not in DIMENSIONS or not VALUE_RE.fullmatch(v):
                raise InputError(
                    f"{where}: {pair[:60]!r} is not KEY=VALUE with KEY one of {', '.join(DIMENSIONS)}"
                    " and VALUE a word (letters, digits, '-', '_')"
                )
            if out.get(k, v) != v:
                raise InputError(f"{where}: {k} given twice ({out[k]}, {v})")
            out[k] = v
    return out


def split_stem(stem: str) -> tuple[str, str]:
    """A record file's stem as (recipe, setup key): "ask-pretool@permissions=none"."""
    recipe, _, setup_key = stem.partition("@")
    return recipe, setup_key


def base_of(stem: str) -> str:
    """The recipe a record file's stem names."""
    return stem.partition("@")[0]


def stem(recipe: str, setup_key: str) -> str:
    return f"{recipe}@{setup_key}" if setup_key else recipe


def setup_line(setup: Mapping[str, str], setup_key: str | None) -> str:
    """A record's setup in a line: every dimension (those added since it was made at the value
    it was made under), and what differs from the recipe's default."""
    setup = filled(setup)
    line = " ".join(
        f"{k}={setup[k]}"
        for k in sorted(setup, key=lambda k: (k not in DIMENSIONS, DIMENSIONS.index(k) if k in DIMENSIONS else 0))
    )
    return f"{line} (the recipe's default)" if not setup_key else f"{line} (not the default: {setup_key})"
