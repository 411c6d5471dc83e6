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
