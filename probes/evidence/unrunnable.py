"""Releases that could not run, with the reason, per agent: results/<agent>/unrunnable.json
(`{"agent", "releases": {VERSION: REASON}, "recipes": {RECIPE: {VERSION: REASON}}}`, sorted,
no timestamp: git dates it). `releases` holds what speaks for every recipe (the release did not
install or start, or another version ran); `recipes` what speaks for one recipe alone (its
session ended before it said its version), present only when it holds something. A release
that cannot install or start leaves no evidence record, so without this the atlas would try
it again on every run and its boundary would stay open; with it the boundary is closed by
the reason (docs/ranges.md, the atlas). The */*/*.json globs of the evidence never reach it.
Deleting a line (or the file) has the next `probe atlas` try that release again."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

from probes.evidence.model import write_atomic
from probes.limits import BadFile, load_json, warn
from probes.versions.spec import semver_key

FILE = "unrunnable.json"
MAX_BYTES = 1024 * 1024
REASON_MAX = 300  # npm's first error line, or the harness's: enough to act on


def path_of(results: Path, agent: str) -> Path:
    return results / agent / FILE


def read(results: Path, agent: str, recipe: str | None = None) -> dict[str, str]:
    """version -> reason, for every recipe, and `recipe`'s own when named; {} when there is
    none (or it cannot be read: a warning names it)."""
    doc = _load(results, agent)
    return {**doc[0], **doc[1].get(recipe or "", {})}


def _load(results: Path, agent: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    path = path_of(results, agent)
    if not path.exists():
        return {}, {}
    try:
        data = load_json(path, MAX_BYTES)
        releases = data.get("releases") if isinstance(data, dict) else None
        recipes = data.get("recipes", {}) if isinstance(data, dict) else None
        if not (
            isinstance(releases, dict)
            and _reasons(releases)
            and isinstance(recipes, dict)
            and all(_reasons(r) for r in recipes.values())
        ):
            raise BadFile("releases (and each of recipes) must map versions to reasons")
    except BadFile as e:
        warn(f"{path}: not a list of releases that cannot run ({e}); every release counts as runnable")
        return {}, {}
    return dict(releases), {str(k): dict(v) for k, v in recipes.items()}


def _reasons(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def record(results: Path, agent: str, found: Mapping[str, str], recipe: str | None = None) -> Path | None:
    """Add `found` (version -> reason) to the agent's file, as what speaks for every recipe, or
    for `recipe` alone when named; nothing written when nothing is new. Shards and searches
    of one atlas add to the same file: each read-and-write holds the agent's folder."""
    with _held(results / agent):
        return _record(results, agent, found, recipe)


@contextlib.contextmanager
def _held(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder itself (flock on its descriptor): no lock file is left
    in results/, and the lock goes with the process however it ends."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _record(results: Path, agent: str, found: Mapping[str, str], recipe: str | None) -> Path | None:
    releases, recipes = _load(results, agent)
    had = recipes.get(recipe, {}) if recipe else releases
    new = {v: r[:REASON_MAX] for v, r in found.items()}
    if all(had.get(v) == r for v, r in new.items()):
        return None
    merged = {**had, **new}
    merged = {v: merged[v] for v in sorted(merged, key=semver_key)}
    if recipe:
        recipes[recipe] = merged
    else:
        releases = merged
    doc: dict[str, object] = {"agent": agent, "releases": releases}
    if recipes:
        doc["recipes"] = {r: recipes[r] for r in sorted(recipes)}
    path = path_of(results, agent)
    write_atomic(path, json.dumps(doc, indent=1, ensure_ascii=False) + "\n", "unrunnable releases", "check --results")
    return path


def discard_unknown(path: Path) -> None:
    """The record a search wrote under results/AGENT/unknown-V (the CLI never said its
    version) removed, and that folder once nothing else is in it: the release is listed with
    the reason as one that cannot run (record, above), and an `unknown-V` column
    would sit among the versions of every table and page."""
    folder = path.parent
    if not folder.name.startswith("unknown-"):
        return
    path.unlink(missing_ok=True)
    if not any(folder.glob("*.json")):
        shutil.rmtree(folder, ignore_errors=True)  # its _blobs: rmtree never follows a link


def both(results: Path, agent: str) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """What the agent's file holds: (releases, recipe -> its own releases); ({}, {}) without one."""
    return _load(results, agent)
