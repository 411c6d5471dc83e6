"""Merge evidence trees (the results of matrix shards) into one results/ tree. Everything is
checked before anything is written: two different records for one cell stop the merge."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from .errors import InputError
from .evidence import Evidence, check_writable, evidence_path, write_atomic


def records(tree: Path) -> dict[str, Path]:
    """`agent/version/recipe.json` -> file, for every evidence record in `tree`."""
    if not tree.is_dir():
        raise InputError(f"no results directory {tree}")
    found = {}
    for path in sorted(tree.glob("*/*/*.json")):
        rel = path.relative_to(tree).as_posix()
        try:
            ev = Evidence.model_validate_json(path.read_text())
        except (ValidationError, ValueError) as e:
            raise InputError(f"{path}: not an evidence record ({str(e).splitlines()[0]})") from None
        if rel != evidence_path(Path(), ev).as_posix():
            raise InputError(f"{path}: holds {ev.agent}@{ev.executed_version} {ev.recipe}, not what its path says")
        found[rel] = path
    return found


def describe(path: Path) -> str:
    ev = Evidence.model_validate_json(path.read_text())
    return f"{path} (run {ev.run_id[:8]}, outcome {ev.outcome})"


def merge(sources: list[Path], dest: Path, replace: bool = False) -> tuple[int, int]:
    """Copy every record of `sources` into `dest`. Returns (written, already identical)."""
    chosen: dict[str, Path] = {}
    for tree in sources:
        for rel, path in records(tree).items():
            if rel in chosen and chosen[rel].read_bytes() != path.read_bytes():
                raise InputError(f"conflicting records for {_cell(rel)}: {describe(chosen[rel])} and "
                                 f"{describe(path)}; drop one of them and merge again")
            chosen[rel] = path
    existing = records(dest) if dest.is_dir() else {}
    same = {rel for rel, path in chosen.items() if rel in existing and existing[rel].read_bytes() == path.read_bytes()}
    clash = sorted(rel for rel in chosen if rel in existing and rel not in same)
    if clash and not replace:
        raise InputError(f"{dest} already holds a different record for {_cell(clash[0])}"
                         f"{f' and {len(clash) - 1} more cell(s)' if len(clash) > 1 else ''}: "
                         f"{describe(existing[clash[0]])}; pass --replace to let the merged records win")
    dest.mkdir(parents=True, exist_ok=True)
    check_writable(dest)
    for rel, path in chosen.items():
        if rel not in same:
            write_atomic(dest / rel, path.read_text())
    return len(chosen) - len(same), len(same)


def _cell(rel: str) -> str:
    agent, version, name = rel.split("/")
    return f"{agent}@{version} {name.removesuffix('.json')}"
