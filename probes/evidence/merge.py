"""Merge evidence trees (the results of matrix shards) into one results/ tree. Everything is
checked before anything is written: two different records for one cell stop the merge. The
blobs a record refers to (store.py) travel with it, each checked against its name."""

from __future__ import annotations

from pathlib import Path

from probes.errors import InputError
from probes.evidence.model import Evidence, check_writable, evidence_path, parse_evidence, write_atomic
from probes.evidence.store import Blobs, put_blob
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, listed, read_bounded


def records(tree: Path, blobs: dict[str, bytes] | None = None, known: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """`agent/version/recipe.json` -> its bytes, for every evidence record in `tree`. Only
    regular files, read once and bounded; a symlink (file or directory) could lead out of the
    tree, or to /dev/zero, and a FIFO could block the read: both are refused, by name. Each
    record's blobs are read and checked with it (a missing or corrupt one refuses the record),
    and put in `blobs` as `agent/_blobs/<hex>.txt` (or where an older harness left one,
    `agent/version/_blobs/<hex>.txt`) -> bytes; `known` blobs (hex -> bytes, checked) stand
    in for ones missing or spoiled in `tree`."""
    if not tree.is_dir():
        raise InputError(f"no results directory {tree}" + (": it is a file" if tree.exists() else ""))
    found = {}
    read = Blobs(known)
    for path in listed(tree):
        rel = path.relative_to(tree).as_posix()
        for d in (path.parent.parent, path.parent):
            if d.is_symlink():
                raise InputError(f"{d}: a symlink, not a directory of the tree; merge reads only what is inside it")
        try:  # read once: the bytes checked are the bytes copied
            data = read_bounded(path, EVIDENCE_MAX_BYTES, follow=False)
        except BadFile as e:
            raise InputError(f"{path}: not an evidence record ({e})") from None
        ev = Evidence.model_validate(parse_evidence(path, data, read))
        if rel != evidence_path(Path(), ev).as_posix():
            raise InputError(f"{path}: holds {ev.agent}@{ev.executed_version} {ev.recipe}, not what its path says")
        found[rel] = data
    if blobs is not None:
        blobs.update({p.relative_to(tree).as_posix(): b for p, b in read.read.items()})
    return found


def surfaces(tree: Path) -> dict[str, bytes]:
    """`agent/surface-VERSION.json` -> its bytes, for each saved surface in `tree` (probe bump
    saves them beside the evidence): regular files only, checked as surfaces of what their
    names say; one that is not is refused, by name."""
    from probes.surface.model import Surface  # only here: merge reads surfaces, nothing else does

    found = {}
    for path in sorted(tree.glob("*/surface-*.json")):
        try:
            data = read_bounded(path, EVIDENCE_MAX_BYTES, follow=False)
            s = Surface.model_validate_json(data)
        except (BadFile, ValueError) as e:
            raise InputError(f"{path}: not a saved surface ({str(e).splitlines()[0][:200]})") from None
        if path.parent.is_symlink() or path.name != f"surface-{s.version}.json" or path.parent.name != s.agent:
            raise InputError(f"{path}: holds the surface of {s.agent}@{s.version}, not what its path says")
        found[path.relative_to(tree).as_posix()] = data
    return found


def describe(path: Path, data: bytes) -> str:
    record = parse_evidence(path, data)
    return f"{path} (run {record['run_id'][:8]}, outcome {record['outcome']})"


def merge(sources: list[Path], dest: Path, replace: bool = False) -> tuple[int, int]:
    """Copy every record of `sources` into `dest`. Returns (written, already identical)."""
    if dest.exists() and not dest.is_dir():
        raise InputError(f"--results {dest} is not a directory")
    chosen: dict[str, tuple[Path, bytes]] = {}
    blobs: dict[str, bytes] = {}  # content-addressed: the same name holds the same bytes in every tree
    for tree in sources:
        for rel, data in records(tree, blobs).items():
            if rel in chosen and chosen[rel][1] != data:
                raise InputError(
                    f"conflicting records for {_cell(rel)}: {describe(*chosen[rel])} and "
                    f"{describe(tree / rel, data)}; drop one of them and merge again"
                )
            chosen[rel] = (tree / rel, data)
    incoming = {rel.rsplit("/", 1)[-1].removesuffix(".txt"): b for rel, b in blobs.items()}
    existing = records(dest, known=incoming) if dest.is_dir() else {}
    same = {rel for rel, (_, data) in chosen.items() if existing.get(rel) == data}
    clash = sorted(rel for rel in chosen if rel in existing and rel not in same)
    if clash and not replace:
        raise InputError(
            f"{dest} already holds a different record for {_cell(clash[0])}"
            f"{f' and {len(clash) - 1} more cell(s)' if len(clash) > 1 else ''}: "
            f"{describe(dest / clash[0], existing[clash[0]])}; pass --replace to let the merged records win"
        )
    # saved surfaces are derived (a read of an install), not records: the last tree's wins, uncounted
    saved = {k: v for tree in sources for k, v in surfaces(tree).items()}
    dest.mkdir(parents=True, exist_ok=True)
    check_writable(dest)
    for rel, blob in sorted(blobs.items()):  # blobs first: a record is never there without them
        agent, name = rel.split("/")[0], rel.rsplit("/", 1)[-1]  # agent/_blobs/<hex>.txt, or agent/version/_blobs/...
        put_blob(dest / agent, name.removesuffix(".txt"), blob, write_atomic)  # into its agent's store
    for rel, (_, data) in chosen.items():
        if rel not in same:
            write_atomic(dest / rel, data.decode("utf-8"))
    for rel, data in saved.items():
        write_atomic(dest / rel, data.decode("utf-8"))
    return len(chosen) - len(same), len(same)


def _cell(rel: str) -> str:
    agent, version, name = rel.split("/")
    return f"{agent}@{version} {name.removesuffix('.json')}"
