"""Writing an agent's native hook config."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .base import Registration


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


def write_github_hooks(
    workspace: Path, registrations: Sequence[Registration], command: str, timeout: str, header: dict[str, Any]
) -> list[Path]:
    """The repository's .github/hooks/probe.json, which Copilot CLI and VS Code both read: each
    registration as {"type": "command", COMMAND: ..., TIMEOUT: ..., "matcher": ...} under its
    native event, the file's other keys from `header`. The key names are the agent's dialect."""

    def entry(r: Registration) -> dict[str, Any]:
        hook: dict[str, Any] = {"type": "command", command: r.command}
        if r.timeout_s is not None:
            hook[timeout] = r.timeout_s
        if r.matcher is not None:
            hook["matcher"] = r.matcher
        return hook

    path = workspace / ".github" / "hooks" / "probe.json"
    write_json(path, {**header, "hooks": native_hooks(registrations, entry)})
    return [path]
