"""Where each installed CLI version lives (cli/AGENT/VERSION in the user cache) and whether
it is complete: what the installer, the cache and an agent listing its own installs ask. Apart
from install.py, which imports the agents' registry, so an agent module can read it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    from probes.agents import Agent


def cache_root() -> Path:
    """PROBE_CACHE, or the platform's user cache directory."""
    return Path(os.environ.get("PROBE_CACHE") or platformdirs.user_cache_dir("probe"))


def prefix_for(agent: Agent, version: str) -> Path:
    return cache_root() / "cli" / agent.name / version


def installed(agent: Agent, version: str) -> bool:
    return agent.binary_path(prefix_for(agent, version)).exists()


def installed_versions(agent: Agent) -> list[str]:
    root = cache_root() / "cli" / agent.name
    return sorted(p.name for p in root.iterdir() if p.is_dir() and installed(agent, p.name)) if root.is_dir() else []
