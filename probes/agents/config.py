"""Writing an agent's native hook config, and reading a repository's own (probe check)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from probes.agents.base import Registration, Written
from probes.errors import HarnessError, InputError
from probes.runner import untrusted

MERGE_MAX = 1024 * 1024  # a settings file a writer merges into: the harness's own, small


def native_hooks(registrations: Sequence[Registration], entry: Callable[[Registration], Any]) -> dict[str, list[Any]]:
    """Registrations grouped by native event key, each as `entry(registration)` makes it, or
    as written in the recipe (`raw`)."""
    hooks: dict[str, list[Any]] = {}
    for r in registrations:
        hooks.setdefault(r.native, []).append(r.raw if r.raw is not None else entry(r))
    return hooks


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def merge_json(root: Path, rel: str, updates: Mapping[str, Any], deep: bool = False) -> Path:
    """The JSON object at `rel` under `root` with `updates`' keys set over its own (a file the
    agent's session_env, prepare_interactive or a hook writer wrote first keeps its other
    keys); written fresh when there is none. `deep`: an object under a key is merged the same
    way into the object there (permissions' rules beside its defaultMode). Read without
    following a link."""
    data: dict[str, Any] = {}
    if untrusted.exists(root, rel):
        try:
            loaded = json.loads(untrusted.text(root, rel, MERGE_MAX))
        except (untrusted.Refused, ValueError) as e:
            raise HarnessError(f"{rel}: cannot merge into it ({e})") from None
        if not isinstance(loaded, dict):
            raise HarnessError(f"{rel}: cannot merge into it (not a JSON object)")
        data = loaded
    for k, v in updates.items():
        data[k] = {**data[k], **v} if deep and isinstance(v, Mapping) and isinstance(data.get(k), dict) else v
    path = root / rel
    write_json(path, data)
    return path


def github_hooks(registrations: Sequence[Registration], command: str, timeout: str, header: Mapping[str, Any]) -> dict[str, Any]:
    """A .github/hooks/*.json file, which Copilot CLI and VS Code both read: each registration
    as {"type": "command", COMMAND: ..., TIMEOUT: ..., "matcher": ...} under its native event,
    the file's other keys from `header`. The key names are the agent's dialect."""

    def entry(r: Registration) -> dict[str, Any]:
        if r.handler_type == "prompt":  # Copilot's: {"type": "prompt", "prompt": TEXT}, nothing else
            return {"type": "prompt", "prompt": r.prompt}
        hook: dict[str, Any] = {"type": "command", command: r.command}
        if r.handler_type == "http":  # Copilot's: {"type": "http", "url", TIMEOUT, ...its fields}
            hook = {"type": "http", "url": r.url, **r.fields}
        if r.timeout_s is not None:
            hook[timeout] = r.timeout_s
        if r.matcher is not None:
            hook["matcher"] = r.matcher
        return hook

    return {**header, "hooks": native_hooks(registrations, entry)}


def write_github_hooks(
    workspace: Path, registrations: Sequence[Registration], command: str, timeout: str, header: Mapping[str, Any]
) -> Written:
    """The repository's .github/hooks/probe.json (see github_hooks)."""
    path = workspace / ".github" / "hooks" / "probe.json"
    write_json(path, github_hooks(registrations, command, timeout, header))
    return Written([path])


# ---------------------------------------------------------------- a repository's own hooks (probe check)

Layout = Literal["github", "claude", "either", "files"]
Matchers = Literal["full", "search", "ignored"]


@dataclass(frozen=True)
class HookSource:
    """Where an agent reads a repository's own hook config, and the shape of its entries:
    `github` is .github/hooks/*.json ({"hooks": {EVENT: [{"type": "command", KEY: ...}]}}),
    `claude` is .claude/settings.json ({"hooks": {EVENT: [{"matcher", "hooks": [...]}]}}),
    `either` takes each item in the one shape or the other (a list of hooks under `hooks`
    makes it a group); `files` is a folder of hook files, each an executable named by its
    event (Cline's .clinerules/hooks/PreToolUse): the file is the hook, its path its command."""

    pattern: str  # a glob relative to the repository root
    layout: Layout
    command_keys: tuple[str, ...]  # the entry keys holding a command for this OS, first found wins
    timeout_key: str
    timeout_unit_s: float = 1.0  # the timeout's unit in seconds (Gemini's are milliseconds)
    matchers: Matchers = "full"  # a matcher is a regular expression matching the whole tool name, any part of it, or is not read
    not_events: tuple[str, ...] = ()  # keys under `hooks` that are settings, not events
    type_required: bool = False  # an entry without "type" is not read (else it is a command)
    events_at_top: bool = False  # the file is the event map itself (droid's hooks.json), not {"hooks": ...}
    # the agent's tool -> the name this file's matchers call it by (Copilot reading Claude's
    # settings matches `Bash` for its `bash`: measured on 1.0.92, where `BASH` matches nothing)
    matcher_names: tuple[tuple[str, str], ...] = ()
    # A command the agent passes to a shell matches this (searched); another, or one with `args`,
    # it splits into words and starts itself, where no shell (and so no watcher) sees it. None:
    # every command goes through a shell.
    shell_re: str | None = None
    # `files`: the event names a file may be named by (matched without case), and the
    # interpreter the agent starts a file without a shebang with, by the name's suffix (the
    # suffixes it reads; "" is a bare name). A file named otherwise is no hook.
    file_events: tuple[str, ...] = ()
    file_suffixes: tuple[tuple[str, str], ...] = ()


def file_event(source: HookSource, name: str) -> str | None:
    """The event a hook file's name names in a `files` source (None: not a hook file)."""
    for suffix, _ in sorted(source.file_suffixes, key=lambda s: -len(s[0])):
        if name.lower().endswith(suffix) and (stem := name[: len(name) - len(suffix)].strip().lower()):
            event = next((e for e in source.file_events if e.lower() == stem), None)
            if event is not None and "." not in stem:
                return event
    return None


def file_interpreter(source: HookSource, name: str, first_line: str) -> str:
    """What the agent starts a hook file with: its shebang's program (through `env`), else the
    interpreter of its name's suffix."""
    words = first_line[2:].split() if first_line.startswith("#!") else []
    while words and words[0].rsplit("/", 1)[-1] == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if words:
        return words[0]
    return next((i for suffix, i in sorted(source.file_suffixes, key=lambda s: -len(s[0])) if name.lower().endswith(suffix)), "")


@dataclass
class UserEntry:
    """One hook of a user's config, and where in the parsed file it sits, so that its command
    (or, for a hook of another type, its prompt or URL) can be rewritten in place."""

    source: str  # the file, relative to the repository root
    native: str  # the event key as written
    matcher: str | None
    timeout_s: float | None
    command: str  # a command hook's command; another type's subject (HANDLER_SUBJECT)
    holder: dict[str, Any]  # the entry object that holds the command
    command_key: str  # the key holding `command` ("" for an mcp_tool hook: server and tool)
    type: str = "command"  # its handler type as written: command, prompt, agent, http, mcp_tool, ...


# What names a hook of another type, the key that holds it (a hook without it is refused).
HANDLER_SUBJECT = {"prompt": "prompt", "agent": "prompt", "http": "url"}


def other_entry(entry: dict[str, Any], kind: Any, where: str) -> tuple[str, str, str]:
    """A hook that is no command: (type, what names it, the key holding that). One line when
    the type is not a string or the field that names it is missing."""
    if not isinstance(kind, str):
        raise InputError(f'{where} has a hook whose "type" is not a string')
    if kind == "mcp_tool":
        server, tool = entry.get("server"), entry.get("tool")
        if not isinstance(server, str) or not isinstance(tool, str):
            raise InputError(f'{where} has an mcp_tool hook without "server" and "tool"')
        return kind, f"{server}/{tool}", ""
    key = HANDLER_SUBJECT.get(kind)
    if key is None:  # a type the harness does not know: named by its type, reported as not judged
        return kind, kind, ""
    if not isinstance(entry.get(key), str):
        raise InputError(f'{where} has {"an" if kind in ("agent", "http") else "a"} {kind} hook without "{key}"')
    return kind, entry[key], key


def _timeout(value: Any, unit_s: float) -> float | None:
    return float(value) * unit_s if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def user_entries(source: HookSource, data: Any, label: str) -> list[UserEntry]:
    """The hooks of one parsed config file, in file order: command hooks, and hooks of other
    types (prompt, agent, http, mcp_tool) with their `type`. A shape the agent cannot read is
    one line naming the file."""
    if not isinstance(data, dict):
        raise InputError(f"{label}: expected a JSON object at the top")
    hooks = data if source.events_at_top else data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InputError(f"{label}: `hooks` must be an object of event -> list of hooks")
    out: list[UserEntry] = []
    for event, items in hooks.items():
        if event in source.not_events:
            continue
        if not isinstance(items, list):
            raise InputError(f"{label}: hooks.{event} must be a list")
        for n, item in enumerate(items):
            if not isinstance(item, dict):
                raise InputError(f"{label}: hooks.{event}[{n}] must be an object")
            if source.layout == "github" or (source.layout == "either" and not isinstance(item.get("hooks"), list)):
                groups: list[tuple[str | None, dict[str, Any]]] = [(item.get("matcher"), item)]
            else:
                inner = item.get("hooks")
                if not isinstance(inner, list) or not all(isinstance(h, dict) for h in inner):
                    raise InputError(f"{label}: hooks.{event}[{n}].hooks must be a list of objects")
                groups = [(item.get("matcher"), h) for h in inner]
            for matcher, entry in groups:
                if source.type_required and "type" not in entry:
                    raise InputError(
                        f'{label}: hooks.{event}[{n}] has a hook without "type": "command", which this agent does not read'
                    )
                where = f"{label}: hooks.{event}[{n}]"
                if entry.get("type", "command") != "command":
                    kind, subject, subject_key = other_entry(entry, entry.get("type"), where)
                    timeout_s = _timeout(entry.get(source.timeout_key), source.timeout_unit_s)
                    m = matcher if isinstance(matcher, str) else None
                    out.append(UserEntry(label, event, m, timeout_s, subject, entry, subject_key, kind))
                    continue
                key = next((k for k in source.command_keys if isinstance(entry.get(k), str)), None)
                if key is None:
                    raise InputError(f"{label}: hooks.{event}[{n}] has no command ({' or '.join(source.command_keys)})")
                out.append(
                    UserEntry(
                        source=label,
                        native=event,
                        matcher=matcher if isinstance(matcher, str) else None,
                        timeout_s=_timeout(entry.get(source.timeout_key), source.timeout_unit_s),
                        command=entry[key],
                        holder=entry,
                        command_key=key,
                    )
                )
    return out
