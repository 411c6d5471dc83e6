"""One module per CLI. AGENTS maps a name to its agent; the command line's choices and
recipe validation come from its keys."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .claude import Claude
from .copilot import Copilot
from .events import CANONICAL_EVENTS  # noqa: F401  (a recipe names these)

AGENTS = {agent.name: agent for agent in (Copilot(), Claude())}


def get(name: str):
    """The agent called `name`, or one line naming the known ones."""
    if name not in AGENTS:
        raise InputError(f"unknown agent {name!r}: choose one of {', '.join(sorted(AGENTS))}")
    return AGENTS[name]


@dataclass(frozen=True)
class Registration:
    """One hook entry in the agent's native config."""

    key: str  # names the entry in the instrumented hook's sidecar
    native: str  # native event key, e.g. preToolUse, PreToolUse
    command: str
    timeout_s: float | None
    matcher: str | None
    raw: dict | None = None  # an entry written as given instead of the instrumented hook


def hook_command(python: str, hook_path: Path, key: str) -> str:
    # -S -E -s: no site, no PYTHON* env, no user site: the fastest start and the same
    # interpreter behaviour wherever the hook runs.
    return " ".join(shlex.quote(p) for p in (python, "-S", "-E", "-s", str(hook_path), key))
