"""A stored record's text: JSON with sorted keys, small and diffable (docs/evidence.md)."""

from __future__ import annotations

import json
from typing import Any

WIDTH = 160  # a value whose JSON fits on one line this wide is written on one line
ONE_LINE = 1 << 30  # a width every record fits in
# A value on one line is written without a space after its commas and colons (from
# 2026-12-06): 3.6 MB of results/'s 66.7, read as easily; a key on a line of its own keeps ": ".
TIGHT = (",", ":")


def flat(value: Any) -> str:
    """`value` as JSON on one line: sorted keys, UTF-8, no spaces."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=TIGHT)


def dumps(value: Any, width: int = WIDTH) -> str:
    """JSON with sorted keys, indented two spaces, where every object or list whose compact
    form fits in `width` columns stays on one line: diffs stay line by line, records small."""
    out: list[str] = []
    encode(value, 0, 0, width, out)
    return "".join(out) + "\n"


def encode(v: Any, depth: int, used: int, width: int, out: list[str]) -> None:
    """`v` appended to `out` as `dumps` lays it out at `depth`, `used` columns taken."""

    def enc(v: Any, depth: int, used: int) -> None:
        line = flat(v)
        if not isinstance(v, (dict, list)) or not v or depth * 2 + used + len(line) <= width:
            out.append(line)
            return
        pad = "  " * (depth + 1)
        if isinstance(v, dict):
            pairs = sorted(v.items())
            out.append("{\n")
            for i, (k, x) in enumerate(pairs):
                key = json.dumps(k, ensure_ascii=False) + ": "
                out.append(pad + key)
                enc(x, depth + 1, len(key) + 1)
                out.append(",\n" if i < len(pairs) - 1 else "\n")
            out.append("  " * depth + "}")
        else:
            out.append("[\n")
            for i, x in enumerate(v):
                out.append(pad)
                enc(x, depth + 1, 1)
                out.append(",\n" if i < len(v) - 1 else "\n")
            out.append("  " * depth + "]")

    enc(v, depth, used)


def items(record: dict[str, Any]) -> str:
    """A whole record's text: one top-level key a line, each item of a top-level list on one
    line of its own (an invocation, a model request), every other value as `dumps` lays it out.
    A diff stays line by line per item; the indentation of an item's every key (about a tenth
    of a whole record's bytes) is gone."""
    out = ["{\n"]
    keys = sorted(record)
    for i, key in enumerate(keys):
        value = record[key]
        name = json.dumps(key, ensure_ascii=False) + ": "
        out.append("  " + name)
        if isinstance(value, list) and value:
            lines = ("    " + flat(x) for x in value)
            out.append("[\n" + ",\n".join(lines) + "\n  ]")
        else:
            encode(value, 1, len(name) + 1, WIDTH, out)
        out.append(",\n" if i < len(keys) - 1 else "\n")
    out.append("}\n")
    return "".join(out)


def layout(record: dict[str, Any]) -> str:
    """A stored record's text: a compact one (compaction.py) on one line, where most of its
    bytes would be indentation; a whole one as `items` lays it out, diffs line by line."""
    return dumps(record, width=ONE_LINE) if record.get("compacted") is not None else items(record)
