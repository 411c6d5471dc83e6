"""Writing an agent's native hook config."""

from __future__ import annotations

import json
from pathlib import Path


def native_hooks(registrations, entry) -> dict[str, list]:
    """Registrations grouped by native event key, each as `entry(registration)` makes it, or
    as written in the recipe (`raw`)."""
    hooks: dict[str, list] = {}
    for r in registrations:
        hooks.setdefault(r.native, []).append(r.raw if r.raw is not None else entry(r))
    return hooks


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
