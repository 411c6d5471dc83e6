"""Where recipes live and what a recipe may be named: all a command needs to check a recipe
name, without loading the recipe models (pydantic), so `probe run` can start the runner first."""

from __future__ import annotations

import os
import re
from pathlib import Path

from probes.errors import InputError
from probes.suggest import perhaps


def recipes_dir() -> Path:
    return Path(os.environ.get("PROBE_RECIPES") or Path(__file__).parent / "recipes")


NAME_MAX = 80  # the longest shipped name is 35; a name becomes a file name in results/
NAME_RE = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{NAME_MAX - 1}}}", re.ASCII)


def recipe_files() -> list[Path]:
    """The recipe files, every one named as a recipe can be (so `list` shows only what `run`
    can run). Hidden files (editors' and tools' leftovers) are not recipes."""
    files = sorted(p for p in recipes_dir().glob("*.yaml") if not p.name.startswith("."))
    for p in files:
        if not NAME_RE.fullmatch(p.stem):
            raise InputError(
                f"invalid recipe {p}: a recipe file is named NAME.yaml, NAME lower-case "
                f"words joined by '-' (at most {NAME_MAX} characters)"
            )
    return files


def recipe_named(name: str, or_all: bool = False) -> str:
    """A recipe in the catalog (read later, once, by what runs it; `or_all`: or `all`), or
    one line: a malformed name, else the nearest names, else the known ones (as recipes.get
    says them: the recipe models, pydantic, are not loaded to check a name)."""
    if or_all and name == "all":
        return name
    if not NAME_RE.fullmatch(name):
        raise InputError(
            f"unknown recipe {name[:100]!r}: recipe names are lower-case words joined by '-' "
            f"(at most {NAME_MAX} characters); see `probe list`"
        )
    if (recipes_dir() / f"{name}.yaml").exists():
        return name
    known = [p.stem for p in recipe_files()]
    hint = perhaps(name, known)
    raise InputError(
        f"unknown recipe {name!r}: see `probe list`{hint}"
        if hint
        else f"unknown recipe {name!r}: see `probe list` ({', '.join(known)})"
    )
