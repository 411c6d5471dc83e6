"""Releases that could not run, with the reason, per agent: results/<agent>/unrunnable.json
(`{"agent", "releases": {VERSION: REASON}}`, sorted, no timestamp: git dates it). A release
that cannot install or start leaves no evidence record, so without this the atlas would try
it again on every run and its boundary would stay open; with it the boundary is closed by
the reason (docs/ranges.md, the atlas). The */*/*.json globs of the evidence never reach it.
Deleting a line (or the file) has the next `probe atlas` try that release again."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path

from probes.evidence.model import write_atomic
from probes.limits import BadFile, load_json, warn
from probes.versions.spec import semver_key

FILE = "unrunnable.json"
MAX_BYTES = 1024 * 1024
REASON_MAX = 300  # npm's first error line, or the harness's: enough to act on


def path_of(results: Path, agent: str) -> Path:
    return results / agent / FILE


def read(results: Path, agent: str) -> dict[str, str]:
    """version -> reason; {} when there is none (or it cannot be read: a warning names it)."""
    path = path_of(results, agent)
    if not path.exists():
        return {}
    try:
        data = load_json(path, MAX_BYTES)
        releases = data.get("releases") if isinstance(data, dict) else None
        if not (isinstance(releases, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in releases.items())):
            raise BadFile("releases must map versions to reasons")
    except BadFile as e:
        warn(f"{path}: not a list of releases that cannot run ({e}); every release counts as runnable")
        return {}
    return dict(releases)


def record(results: Path, agent: str, found: Mapping[str, str]) -> Path | None:
    """Add `found` (version -> reason) to the agent's file; nothing written when nothing is new."""
    had = read(results, agent)
    new = {v: r[:REASON_MAX] for v, r in found.items()}
    if all(had.get(v) == r for v, r in new.items()):
        return None
    merged = {**had, **new}
    doc = {"agent": agent, "releases": {v: merged[v] for v in sorted(merged, key=semver_key)}}
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
