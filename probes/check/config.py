"""The user's hook configs: every file the agent reads in the folder, parsed bounded, and each
command hook in it as the check installs it (Configured). Bad input is one line naming the file."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probes.agents import AGENTS, CANONICAL_EVENTS, Agent
from probes.agents.config import HookSource, UserEntry, file_event, file_interpreter, user_entries
from probes.errors import InputError
from probes.limits import (
    HOOK_CONFIG_MAX_BYTES,
    HOOK_CONFIGS_MAX,
    HOOKS_MAX,
    HOOKS_PER_CONFIG_MAX,
    JSON_MAX_DEPTH,
    BadFile,
    decode,
    json_depth,
    nul_at,
    read_bounded,
)


@dataclass
class ConfigFile:
    source: HookSource
    path: Path  # in the user's folder
    label: str  # relative to the folder
    data: Any
    entries: list[UserEntry]


def sources_of(agent: Agent) -> tuple[HookSource, ...]:
    """An agent's hook sources: an agent without them cannot be checked."""
    sources = agent.hook_sources
    if not sources:
        able = ", ".join(sorted(a.name for a in AGENTS.values() if a.hook_sources))
        raise InputError(f"probe check does not know where {agent.name} reads a repository's hooks yet (it does: {able})")
    return sources


def discover(agent: Agent, folder: Path) -> list[ConfigFile]:
    """Every hook config file the agent reads in `folder`, parsed; one line naming the file
    when one cannot be read, or when there is none. Bounded: HOOK_CONFIGS_MAX files, each a
    regular file (not a link, FIFO or device) of at most HOOK_CONFIG_MAX_BYTES, JSON no deeper
    than JSON_MAX_DEPTH, HOOKS_PER_CONFIG_MAX hooks in one and HOOKS_MAX in all."""
    if not folder.is_dir():
        raise InputError(f"--hooks {folder}: not a directory")
    found: list[ConfigFile] = []
    for source in sources_of(agent):
        for path in sorted(folder.glob(source.pattern)):
            label = str(path.relative_to(folder))
            if source.layout == "files" and file_event(source, path.name) is None:
                continue  # a README, a helper script: not named by an event, so no hook
            if len(found) >= HOOK_CONFIGS_MAX:
                raise InputError(f"--hooks {folder}: more than {HOOK_CONFIGS_MAX} hook config files; point it at the hooks only")
            if source.layout == "files":
                found.append(hook_file(source, path, label))
                continue
            data = load_config(path, label)
            try:
                entries = user_entries(source, data, label)
            except OverflowError:  # a timeout of 400 digits
                raise InputError(f"{label}: a timeout too large to read") from None
            if any(e.timeout_s is not None and not math.isfinite(e.timeout_s) for e in entries):
                raise InputError(f"{label}: a timeout that is not a finite number")
            if len(entries) > HOOKS_PER_CONFIG_MAX:
                raise InputError(f"{label}: {len(entries)} hooks, over the limit of {HOOKS_PER_CONFIG_MAX} in one file")
            found.append(ConfigFile(source, path, label, data, entries))
    total = sum(len(c.entries) for c in found)
    if total > HOOKS_MAX:
        raise InputError(f"--hooks {folder}: {total} hooks in all, over the limit of {HOOKS_MAX}")
    if not total:
        where = " or ".join(s.pattern for s in sources_of(agent))
        raise InputError(f"--hooks {folder}: no hook for {agent.name} (looked in {where})")
    return found


def hook_file(source: HookSource, path: Path, label: str) -> ConfigFile:
    """A hook file of a `files` source: one hook, its event its name's, its command its path;
    `data` is the program the agent starts it with (file_interpreter) and the file's mode. A regular file only (a
    link is one line: the agent's folder scan skips it, 3.0.65's Dirent.isFile)."""
    try:
        label.encode("utf-8")
        head = read_bounded(path, HOOK_CONFIG_MAX_BYTES, follow=False)[:256]
    except UnicodeEncodeError:
        raise InputError(f"{label!r}: a file name that is not UTF-8") from None
    except BadFile as e:
        raise InputError(f"{label}: {e} (a hook file is read as a regular file: copy it in)") from None
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    event = file_event(source, path.name)
    assert event is not None
    entry = UserEntry(label, event, None, None, label, {}, "", "command")
    data = {"program": file_interpreter(source, path.name, first), "mode": stat.S_IMODE(os.lstat(path).st_mode)}
    return ConfigFile(source, path, label, data, [entry])


def load_config(path: Path, label: str) -> Any:
    """A config file's JSON, bounded (probes/limits.py), or one line naming the file."""

    try:
        label.encode("utf-8")
        text = decode(read_bounded(path, HOOK_CONFIG_MAX_BYTES, follow=False))
    except UnicodeEncodeError:
        raise InputError(f"{label!r}: a file name that is not UTF-8") from None
    except BadFile as e:
        raise InputError(f"{label}: {e}") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputError(f"{label}: nested deeper than {JSON_MAX_DEPTH}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{label}:{e.lineno}: not valid JSON ({e.msg})") from None
    except ValueError as e:  # an integer too long to convert
        raise InputError(f"{label}: not valid JSON ({str(e).splitlines()[0]})") from None
    if json_depth(data) > JSON_MAX_DEPTH:
        raise InputError(f"{label}: nested deeper than {JSON_MAX_DEPTH}")
    nul = nul_at(data)
    if nul is not None:
        raise InputError(f"{label}: {'.'.join(map(str, nul))}: contains a NUL character")
    return data


EXPANDED_VARS = re.compile(rf"\$\{{?({'|'.join(v for a in AGENTS.values() for v in a.expanded_vars)})\}}?")  # an agent replaces
PROJECT_VARS = re.compile(rf"\$\{{?({'|'.join([*(v for a in AGENTS.values() for v in a.project_dir_vars), 'PWD'])})\}}?")


def scripts_named(command: str) -> list[str]:
    """The relative paths a command names (words with a slash, after the project-dir variables):
    what must exist in the folder for the command to run. Absolute paths are the machine's."""
    try:
        words = shlex.split(PROJECT_VARS.sub(".", command))
    except ValueError:
        return []
    return [w for w in words if "/" in w and not w.startswith(("/", "~", "$", "-")) and not re.search(r"[*?|<>;&`]", w)]


def check_scripts(folder: Path, configs: Sequence[ConfigFile]) -> None:
    for c in configs:
        for e in c.entries:
            for rel in scripts_named(e.command) if e.type == "command" else ():
                if os.path.normpath(rel).split(os.sep)[0] == "..":
                    raise InputError(f"{c.label}: {e.native} hook runs {rel}, outside {folder}: the check copies the folder only")
                if not (folder / rel).exists():
                    raise InputError(f"{c.label}: {e.native} hook runs {rel}, which is not in {folder}")


def canonical_of(agent: Agent, native: str) -> str | None:
    for casing in ("native", "pascal", "camel"):
        for c in CANONICAL_EVENTS:
            if agent.native_event(c, casing) == native:
                return c
    return None


# The handler types the check answers in place of the user's model, URL or MCP server (check/kinds.py).
ANSWERED_TYPES = ("prompt", "agent", "http", "mcp_tool")


def not_judged(agent: Agent, kind: str) -> str | None:
    """Why the check cannot judge a hook of this handler type on this agent (None: it can)."""
    if kind == "command":
        return None
    if kind in agent.interactive_only_types:
        return (
            f"{agent.name} runs {kind} hooks only in interactive sessions (its hooks reference), and the check plays "
            "a -p session: not judged, left as written"
        )
    if kind not in ANSWERED_TYPES or kind not in agent.handler_types:
        known = ", ".join(sorted(agent.handler_types))
        return f"{agent.name} runs no {kind} hooks that the harness knows of (it knows: {known}): not judged, left as written"
    return None


def unwatched(agent: Agent, source: HookSource, entry: UserEntry) -> str | None:
    """Why the check cannot watch a command hook: the agent starts it without a shell."""
    if entry.type != "command" or source.shell_re is None:
        return None
    if not entry.holder.get("args") and re.search(source.shell_re, entry.command):
        return None
    return (
        f"{agent.name} starts this command itself, not through a shell (it has `args`, or none of the characters that "
        "make it use bash: `|&;<>$`, a backquote, a leading `~`), where the check cannot watch it: not judged, left as "
        'written (`"$AUGMENT_PROJECT_DIR"/...` goes through bash)'
    )


WATCHED_PROGRAMS = ("sh", "bash", "dash")  # the shells the watcher covers (workspace.WATCHED_SHELLS), by name


def unseen_program(h: Configured) -> str | None:
    """Why a hook file may run unseen: the program its agent starts it with is no watched shell
    (python3, node: the check sees only shells). None for a watched one, or no hook file."""
    if h.program is None or h.program.rsplit("/", 1)[-1] in WATCHED_PROGRAMS:
        return None
    return (
        f"its program is {h.program or 'unknown'} (its shebang, or its name's suffix), which the check does not watch (it "
        "sees shells only): where the agent starts it with that program, it runs unseen: not judged, left as written"
    )


@dataclass(frozen=True)
class Configured:
    """One configured hook as the check installs it."""

    key: str  # names its shim entry and records
    source: str
    native: str
    canonical: str | None
    matcher: str | None
    timeout_s: float | None
    command: str
    matchers: str = "full"  # how the agent reads its matcher (HookSource.matchers)
    matcher_names: tuple[tuple[str, str], ...] = ()  # the agent's tool -> its name in this file's matchers
    type: str = "command"  # its handler type; for another than command, `command` is its prompt, URL or server/tool
    mcp: tuple[str, str] | None = None  # an mcp_tool hook's server and tool
    why_not: str | None = None  # why the check does not judge it (not_judged): it is left as written
    condition: str | None = None  # its `if` (Claude Code: a permission rule the tool call must match)
    api: str | None = None  # a plugin file's API (returned, registered): its handlers are recorded (check/plugins.py)
    changed: str | None = None  # what the check's copy does with the plugin, said in its report line
    plugin_events: tuple[tuple[str, str], ...] = ()  # a plugin's handler name -> canonical event
    program: str | None = None  # a hook file's (HookSource `files`): what the agent starts it with
    mode: int | None = None  # a hook file's permission bits


def configured(agent: Agent, configs: Sequence[ConfigFile]) -> list[Configured]:
    out: list[Configured] = []
    for c in configs:
        for e in c.entries:
            # lower case: a prompt hook's key is read back from its text (runner/evaluations.py KEY)
            key = f"{len(out)}-{re.sub(r'[^a-z_]', '_', e.native.lower())[:40]}"
            canonical = canonical_of(agent, e.native)
            src = c.source
            mcp = (str(e.holder["server"]), str(e.holder["tool"])) if e.type == "mcp_tool" else None
            out.append(
                Configured(
                    key,
                    e.source,
                    e.native,
                    canonical,
                    e.matcher,
                    e.timeout_s,
                    e.command,
                    src.matchers,
                    src.matcher_names,
                    e.type,
                    mcp,
                    not_judged(agent, e.type) or unwatched(agent, src, e),
                    e.holder["if"] if isinstance(e.holder.get("if"), str) else None,
                    program=c.data["program"] if src.layout == "files" else None,
                    mode=c.data["mode"] if src.layout == "files" else None,
                )
            )
    return out
