"""One module per CLI. A module here that defines `AGENT` is an agent (see base.py for what it
provides); AGENTS maps each one's name to it, and the command line's choices and recipe
validation come from its keys. Adding a CLI is adding its module."""

from __future__ import annotations

import importlib
import pkgutil

from probes.agents.base import NATIVE, Agent, ConfigWriter, ExtensionSurface, Registration, Tty
from probes.agents.events import CANONICAL_EVENTS
from probes.errors import InputError

NOT_AGENTS = ("base", "config", "events")  # this package's shared modules


def _discover() -> dict[str, Agent]:
    found: list[Agent] = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        if module not in NOT_AGENTS:
            agent = getattr(importlib.import_module(f"{__name__}.{module}"), "AGENT", None)
            if agent is not None:
                found.append(agent)
    return {agent.name: agent for agent in found}


AGENTS: dict[str, Agent] = _discover()


def get(name: str) -> Agent:
    """The agent called `name`, or one line naming the known ones."""
    if name not in AGENTS:
        raise InputError(f"unknown agent {name!r}: choose one of {', '.join(sorted(AGENTS))}")
    return AGENTS[name]


def config_locations() -> set[str]:
    """Every config location some agent reads (a recipe's `config_location`)."""
    return {loc for agent in AGENTS.values() for loc in agent.config_locations}


__all__ = [
    "AGENTS",
    "CANONICAL_EVENTS",
    "NATIVE",
    "Agent",
    "ConfigWriter",
    "ExtensionSurface",
    "Registration",
    "Tty",
    "config_locations",
    "get",
]
