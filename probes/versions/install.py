"""Installs: each (agent, version) once, into its own prefix in the user cache.

A prefix is built in a temporary sibling directory and renamed into place only when the
install (and the agent's own preparation) succeeded, under a file lock, so two `probe`
processes never install the same version twice and nobody ever uses a half-built prefix.
Before the rename, other platforms' files are dropped and identical files shared with other
versions (slim.py); after it, PROBE_CACHE_MAX evicts least recently used versions (cache.py).
Where each version lives, and whether it is complete, is prefixes.py (the agents read it).
Every process that uses a prefix holds it (cache.hold) until it exits, so none is evicted
from under a probe.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from probes import progress
from probes.agents import AGENTS, Agent
from probes.errors import HarnessError, HostError
from probes.versions import cache, node, slim
from probes.versions.prefixes import cache_root, installed, prefix_for
from probes.versions.spec import npm, npm_error

INSTALL_TIMEOUT_S = 600
DISK_FLOOR_BYTES = 2 * 1024**3  # a release of Claude Code takes 250 MB, its run a few MB more


def installed_in(agent_name: str, prefix: Path) -> bool:
    """Whether `prefix` (cli/AGENT/VERSION) holds a complete install of the agent so named."""
    agent = AGENTS.get(agent_name)
    return agent is not None and agent.binary_path(prefix).exists()


def install(agent: Agent, version: str) -> Path:
    """The prefix holding `agent` at `version`, installing it first if needed; held (in use)
    by this process from now on."""
    limit = cache.max_bytes()  # a bad PROBE_CACHE_MAX: one line before anything is installed
    prefix = prefix_for(agent, version)
    if not installed(agent, version):
        agent.preflight()  # what the host lacks for it: one line before anything is written
    cache.hold(prefix)
    if installed(agent, version):
        _node_for_older_install(agent, version, prefix)
        return prefix
    with FileLock(str(prefix) + ".lock"):
        if installed(agent, version):  # another process finished while we waited
            return prefix
        for stale in [*prefix.parent.glob(f".{version}.partial-*"), *prefix.parent.glob(f".{version}.npm-cache-*")]:
            shutil.rmtree(stale, ignore_errors=True)  # from a killed install
        staging = prefix.with_name(f".{version}.partial-{os.getpid()}")
        # npm's cache for this install alone, removed with it: ~/.npm grew without bound (18 GB
        # after an atlas; a release's tarballs are its own, so a shared cache saves under 1.5 s)
        npm_cache = prefix.with_name(f".{version}.npm-cache-{os.getpid()}")
        if shutil.disk_usage(prefix.parent).free < DISK_FLOOR_BYTES:
            raise HostError(
                f"installing {agent.name} {version}: only {disk_free(prefix.parent)} free on the disk of "
                f"{prefix.parent}: prune the cache (probe cache prune --max SIZE) or set PROBE_CACHE_MAX"
            )
        try:
            started = time.monotonic()
            staging.mkdir(parents=True)
            with progress.step(f"installing {agent.name} {version} from npm", sizer=lambda: progress.dir_bytes(staging)):
                _npm_install(agent.package, version, staging, npm_cache, agent.install_env(staging))
                _check_native(agent, version, staging)
                npm_s = time.monotonic() - started
                wanted = agent.node_wanted(staging)
                own_node = ensure_node(agent, version, staging, wanted)
                agent.prepare_install(staging)
                dropped = slim.drop_foreign(staging, agent.binary_path(staging))
                shared = slim.share(staging, cache_root() / "store")
            record = cache.InstallRecord(
                agent=agent.name,
                version=version,
                installed_at=datetime.now(UTC).isoformat(timespec="seconds"),
                install_s=round(time.monotonic() - started, 2),
                npm_s=round(npm_s, 2),
                dropped_bytes=dropped,
                shared_bytes=shared,
            )
            record["node_wanted"] = wanted
            if own_node:
                record["node"] = own_node
            cache.write_record(prefix, record)
            shutil.rmtree(prefix, ignore_errors=True)  # a leftover without its binary
            staging.rename(prefix)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
            shutil.rmtree(npm_cache, ignore_errors=True)
    cache.hold(prefix)  # used now, after its install
    if limit is not None:
        cache.evict(cache_root(), limit, installed_in)
    return prefix


def _check_native(agent: Agent, version: str, staging: Path) -> None:
    """npm reports an install done when it skipped the optional package holding the CLI's
    binary for this platform. When the registry has that package, npm failed to fetch or
    write it (a full disk): the host's fault. When it never had it (Copilot 1.0.56, 1.0.77;
    Codex 0.142.1), that is how the release was published: some run their JavaScript without
    it, and a run says for itself whether this one can."""
    missing = slim.native_missing(staging, agent.package)
    if not missing:
        return
    name, wanted = next(iter(missing.items()))
    target = wanted.removeprefix("npm:") if wanted.startswith("npm:") else f"{name}@{wanted}"
    try:
        view = subprocess.run([npm(), "view", target, "version"], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        raise HostError(f"npm view {target} took over 120 s: check the registry and retry (nothing was kept)") from None
    if view.returncode != 0 and "E404" in view.stderr:
        return
    raise HostError(
        f"npm install {agent.package}@{version} left out {name}, its binary for this platform (an optional "
        f"package npm could not fetch or write: is the disk full? {disk_free(staging)} free): nothing was kept, retry"
    )


def disk_free(path: Path) -> str:
    return cache.human(shutil.disk_usage(path).free)


def release(agent: Agent, version: str) -> None:
    """This process is done with `agent` at `version`: PROBE_CACHE_MAX may evict it now
    (otherwise it stays held until the process exits)."""
    cache.release(prefix_for(agent, version))


def _node_for_older_install(agent: Agent, version: str, prefix: Path) -> None:
    """An install made before the harness installed Node.js with a CLI (its record does not
    say what it wants) gets the Node it asks for now, once."""
    record = cache.read_record(prefix)
    if record is None or "node_wanted" in record:
        return
    with FileLock(str(prefix) + ".lock"):
        record = cache.read_record(prefix)
        if record is None or "node_wanted" in record:
            return
        wanted = agent.node_wanted(prefix)
        own_node = ensure_node(agent, version, prefix, wanted)
        record["node_wanted"] = wanted
        if own_node:
            record["node"] = own_node
        cache.write_record(prefix, record)


def ensure_node(agent: Agent, version: str, staging: Path, wanted: str | None = None) -> str | None:
    """The Node.js the CLI asks for, where the host's is older (node.py); its version."""
    try:
        return node.ensure(staging, agent.node_wanted(staging) if wanted is None else wanted, npm())
    except node.NodeError as e:
        raise HarnessError(f"{agent.name} {version}: {e}") from None


def _npm_install(package: str, version: str, staging: Path, npm_cache: Path, env: dict[str, str] | None = None) -> None:
    cmd = [npm(), "install", "--prefix", str(staging), "--cache", str(npm_cache), "--no-audit", "--no-fund", "--loglevel=error"]
    cmd.append(f"{package}@{version}")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise HarnessError(
            f"npm install {package}@{version} took over {INSTALL_TIMEOUT_S}s: check the registry and retry"
        ) from None
    if proc.returncode != 0:
        why = npm_error(proc.stderr)
        hint = (
            "install the system package it needs (see the agent's page in docs/)"
            if "build step" in why
            else "check the registry and retry"
        )
        raise HarnessError(f"npm install {package}@{version} failed ({why}): {hint}")
