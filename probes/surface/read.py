"""A version's surface: installed with the harness's own installer (cached), read by its
agent's reader and its --help, and kept beside the install (cache_root()/surface/AGENT/
VERSION-READER.json) so that reading it again costs nothing. READER is a digest of this
package's code: a changed reader reads again."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from probes.agents import Agent
from probes.errors import InputError
from probes.limits import BadFile, read_bounded
from probes.surface import auggie, claude, cline, codex, copilot, droid, gemini, kilo, opencode, pi, qwen
from probes.surface.help import read_flags
from probes.surface.model import Item, Surface, dedupe
from probes.versions.prefixes import cache_root

Reader = Callable[[Agent, Path], tuple[list[Item], list[str]]]
# An agent's reader is the module of this package named after it (its `read`): agent names
# live in probes/agents/ alone.
READERS: dict[str, Reader] = {
    m.__name__.rsplit(".", 1)[-1]: m.read
    for m in (auggie, claude, cline, codex, copilot, droid, gemini, kilo, opencode, pi, qwen)
}
CACHE_MAX = 8 << 20  # one cached surface (Claude 2.1.332: ~100 KiB)


# What uses a read rather than makes it: a change to these reads nothing again.
NOT_READING = {"coverage.py", "diff.py", "kinds.py", "saved.py"}


@functools.cache
def reader_digest() -> str:
    """What the readers are: a digest of this package's sources (those that read)."""
    h = hashlib.sha256()
    for path in sorted(p for p in Path(__file__).parent.glob("*.py") if p.name not in NOT_READING):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def cache_path(agent: str, version: str) -> Path:
    return cache_root() / "surface" / agent / f"{version}-{reader_digest()}.json"


def read_installed(agent: Agent, version: str, prefix: Path) -> Surface:
    """Read the install at `prefix` (no cache)."""
    reader = READERS.get(agent.name)
    if reader is None:
        raise InputError(f"probe surface reads {', '.join(sorted(READERS))}; not {agent.name}")
    items, notes = reader(agent, prefix)
    flag_items, flag_notes = read_flags(agent, prefix)
    return Surface(agent=agent.name, version=version, items=dedupe(items + flag_items), notes=notes + flag_notes)


def surface(agent: Agent, version: str, prefix: Path) -> Surface:
    """The surface of `agent` at `version`, installed at `prefix`: from the cache, or read and
    cached (written atomically: a concurrent reader sees the old file or the new one)."""
    path = cache_path(agent.name, version)
    try:
        return Surface.model_validate_json(read_bounded(path, CACHE_MAX, follow=False))
    except (BadFile, ValueError):
        pass  # absent or unreadable: read it again
    found = read_installed(agent, version, prefix)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(found.model_dump_json())
    tmp.replace(path)
    return found


def check_agent(name: str) -> None:
    """One line before anything is installed when the agent has no reader (vscode)."""
    if name not in READERS:
        raise InputError(f"probe surface reads {', '.join(sorted(READERS))}; not {name}")


def changed_line(agent_name: str, old: str, new: str) -> str | None:
    """`surface changed: +X, -Y` between two installed versions, for a report (probe bump);
    None for an agent with no reader; a version not installed here is said, not installed."""
    from probes.agents import AGENTS
    from probes.errors import ProbeError
    from probes.surface.diff import summary, surface_diff
    from probes.versions.install import install
    from probes.versions.prefixes import installed

    agent = AGENTS[agent_name]
    if agent_name not in READERS:
        return None
    missing = [v for v in (old, new) if not installed(agent, v)]
    if missing:
        return f"surface not compared: {', '.join(missing)} not installed here"
    try:  # install() of an installed version only holds it, so no eviction takes it mid-read
        a, b = (surface(agent, v, install(agent, v)) for v in (old, new))
    except (ProbeError, BadFile, OSError) as e:
        return f"surface not compared ({str(e)[:200]})"
    return summary(surface_diff(a, b))
