"""One module per CLI, each defining `AGENT` (see base.py for what it provides). AGENTS is the
registry, written out: the command line's choices and recipe validation come from its keys.
Adding a CLI is adding its module and one line here."""

from __future__ import annotations

from probes.agents import auggie, claude, cline, codex, copilot, droid, gemini, kilo, opencode, pi, qwen, vscode
from probes.agents.base import NATIVE, Agent, ConfigTarget, ConfigWriter, ExtensionSurface, Registration, Tty, Written
from probes.agents.events import CANONICAL_EVENTS
from probes.errors import InputError

AGENTS: dict[str, Agent] = {
    "auggie": auggie.AGENT,
    "claude": claude.AGENT,
    "cline": cline.AGENT,
    "codex": codex.AGENT,
    "copilot": copilot.AGENT,
    "droid": droid.AGENT,
    "gemini": gemini.AGENT,
    "kilo": kilo.AGENT,
    "opencode": opencode.AGENT,
    "pi": pi.AGENT,
    "qwen": qwen.AGENT,
    "vscode": vscode.AGENT,
}


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
    "ConfigTarget",
    "ConfigWriter",
    "ExtensionSurface",
    "Registration",
    "Tty",
    "Written",
    "config_locations",
    "get",
]
