"""A stored record's text: JSON with sorted keys, small and diffable (docs/evidence.md)."""

from __future__ import annotations

import json
from typing import Any

WIDTH = 160  # a value whose JSON fits on one line this wide is written on one line
ONE_LINE = 1 << 30  # a width every record fits in


def dumps(value: Any, width: int = WIDTH) -> str:
    """JSON with sorted keys, indented two spaces, where every object or list whose compact
    form fits in `width` columns stays on one line: diffs stay line by line, records small."""
    out: list[str] = []

    def enc(v: Any, depth: int, used: int) -> None:
        flat = json.dumps(v, sort_keys=True, ensure_ascii=False)
        if not isinstance(v, (dict, list)) or not v or depth * 2 + used + len(flat) <= width:
            out.append(flat)
            return
        pad = "  " * (depth + 1)
        if isinstance(v, dict):
            items = sorted(v.items())
            out.append("{\n")
            for i, (k, x) in enumerate(items):
                key = json.dumps(k, ensure_ascii=False) + ": "
                out.append(pad + key)
                enc(x, depth + 1, len(key) + 1)
                out.append(",\n" if i < len(items) - 1 else "\n")
            out.append("  " * depth + "}")
        else:
            out.append("[\n")
            for i, x in enumerate(v):
                out.append(pad)
                enc(x, depth + 1, 1)
                out.append(",\n" if i < len(v) - 1 else "\n")
            out.append("  " * depth + "]")

    enc(value, 0, 0)
    return "".join(out) + "\n"


def layout(record: dict[str, Any]) -> str:
    """A stored record's text: a compact one (compaction.py) on one line, where most of its
    bytes would be indentation; a whole one as `dumps` lays it out, diffs line by line."""
    return dumps(record, width=ONE_LINE if record.get("compacted") is not None else WIDTH)
