"""Installs: each (agent, version) once, into its own prefix in the user cache.

A prefix is built in a temporary sibling directory and renamed into place only when the
install (and the agent's own preparation) succeeded, under a file lock, so two `probe`
processes never install the same version twice and nobody ever uses a half-built prefix.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs
from filelock import FileLock

from .errors import HarnessError
from .spec import npm, npm_error

if TYPE_CHECKING:
    from .agents import Agent

INSTALL_TIMEOUT_S = 600


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


def install(agent: Agent, version: str) -> Path:
    """The prefix holding `agent` at `version`, installing it first if needed."""
    prefix = prefix_for(agent, version)
    if installed(agent, version):
        return prefix
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(prefix) + ".lock"):
        if installed(agent, version):  # another process finished while we waited
            return prefix
        for stale in prefix.parent.glob(f".{version}.partial-*"):  # from a killed install
            shutil.rmtree(stale, ignore_errors=True)
        staging = prefix.with_name(f".{version}.partial-{os.getpid()}")
        try:
            _npm_install(agent.package, version, staging)
            agent.prepare_install(staging)
            shutil.rmtree(prefix, ignore_errors=True)  # a leftover without its binary
            staging.rename(prefix)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return prefix


def _npm_install(package: str, version: str, staging: Path) -> None:
    staging.mkdir(parents=True)
    cmd = [npm(), "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--loglevel=error", f"{package}@{version}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise HarnessError(
            f"npm install {package}@{version} took over {INSTALL_TIMEOUT_S}s: check the registry and retry"
        ) from None
    if proc.returncode != 0:
        raise HarnessError(f"npm install {package}@{version} failed ({npm_error(proc.stderr)}): check the registry and retry")
