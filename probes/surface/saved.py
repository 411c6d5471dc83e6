"""A version's surface saved beside its evidence, results/AGENT/surface-VERSION.json (`probe
surface AGENT@V --save`): the items coverage relates to recipes (events, handler types and
fields, decision fields), each with where it was found, so `probe table` and the page say an
agent's coverage offline, without the install. Sorted, no timestamp: the same read gives the
same bytes. The */*/*.json globs of the evidence never reach it."""

from __future__ import annotations

from pathlib import Path

from probes.evidence.model import write_atomic
from probes.limits import BadFile, read_bounded
from probes.surface.model import Surface
from probes.versions.spec import semver_key

SAVED_KINDS = ("event", "handler_type", "handler_field", "decision_field")
SAVED_MAX = 1 << 20


def saved_path(results: Path, agent: str, version: str) -> Path:
    return results / agent / f"surface-{version}.json"


def save(s: Surface, results: Path) -> Path:
    """Write the items coverage reads (flags and env vars are left out: they are not related to
    recipes, and Claude's flags would double the file)."""
    kept = s.model_copy(update={"items": [i for i in s.items if i.kind in SAVED_KINDS]})
    path = saved_path(results, s.agent, s.version)
    write_atomic(path, kept.model_dump_json(indent=1, exclude_none=True) + "\n", "surface", "check --results")
    return path


def load_saved(results: Path, agent: str, version: str) -> Surface | None:
    """The saved surface of `version`, or None when there is none (or it cannot be read)."""
    try:
        return Surface.model_validate_json(read_bounded(saved_path(results, agent, version), SAVED_MAX, follow=False))
    except (BadFile, ValueError):
        return None


def saved_versions(results: Path, agent: str) -> list[str]:
    """The versions of `agent` with a saved surface, oldest first."""
    folder = results / agent
    found = [p.name.removeprefix("surface-").removesuffix(".json") for p in folder.glob("surface-*.json")]
    return sorted(found, key=semver_key)


def save_installed(agent_name: str, version: str, results: Path) -> Path | None:
    """`probe bump`'s: save the surface of a version installed here (read, or from the read
    cache), beside its evidence; None, installing nothing, when it is not installed here or
    has no reader, or the read fails (a nightly goes on without it)."""
    from probes.agents import AGENTS
    from probes.errors import ProbeError
    from probes.surface.read import READERS, surface
    from probes.versions import install
    from probes.versions.prefixes import installed

    agent = AGENTS.get(agent_name)
    if agent is None or agent_name not in READERS or not installed(agent, version):
        return None
    try:  # install() of an installed version only holds it, so no eviction takes it mid-read
        return save(surface(agent, version, install.install(agent, version)), results)
    except (ProbeError, BadFile, OSError):
        return None
    finally:
        install.release(agent, version)
