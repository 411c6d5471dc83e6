"""Whether every reader would read a record about to be written: checked before a record
is written (probe check's, a recorder's import), so none is written that the tables,
reclassify and merge then refuse. The limits are limits.py's; the reading is model.py's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from probes.errors import InputError
from probes.evidence.model import parse_evidence
from probes.evidence.store import Blobs
from probes.limits import BLOB_MAX_BYTES, EVIDENCE_MAX_BYTES


def evidence_problem(path: Path, text: str, blobs: Mapping[str, bytes] | None = None) -> str | None:
    """Why a reader (model.load_evidence) would refuse `text`, a record about to be written
    at `path` with `blobs` (sha256 hex -> bytes, store.compact) beside it; None when it would
    read it. Checked before a record is written, so none is written that every reader refuses."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"not UTF-8: a lone surrogate at character {e.start}"
    size = len(data)
    if size > EVIDENCE_MAX_BYTES:
        return f"{size} bytes, over the limit of {EVIDENCE_MAX_BYTES} that readers accept"
    big = max((len(b) for b in (blobs or {}).values()), default=0)
    if big > BLOB_MAX_BYTES:
        return f"a value of {big} bytes, over the limit of {BLOB_MAX_BYTES} that readers accept"
    try:
        parse_evidence(path, data, Blobs(dict(blobs or {})))
    except InputError as e:
        why = str(e).removeprefix(f"{path}: ")
        return why.removeprefix("not an evidence record (").removesuffix(")") if why.startswith("not an evidence") else why
    return None
