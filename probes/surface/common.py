"""What the JavaScript readers share: the longest event array, handler schemas' keys, and
heuristics (loose matches, marked `heuristic` on their items)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from probes.limits import BadFile
from probes.surface.model import Item
from probes.surface.scan import Blob, enclosing_object, mapped, object_keys, string_arrays

ENV_NAME = re.compile(rb"[A-Z][A-Z0-9_]{2,60}")
ENV_ANCHOR = (
    "a key of an object literal that also sets {var} (the environment a hook is started with), or a property set on it just after"
)
ASSIGN_AFTER = 1500  # bytes after such an object where `x.NAME=` still counts as the same environment


def env_beside(blob: Blob, project_var: str, prefixes: tuple[str, ...], limit: int = 20) -> list[Item]:
    """The env vars set beside the agent's project-dir variable: the upper-case keys of each
    object literal that has `project_var` as a key, and `x.NAME=` just after it; only names
    starting with one of `prefixes`. Heuristic: the same literal may be an MCP server's env."""
    items: list[Item] = []
    anchor = ENV_ANCHOR.format(var=project_var)
    pattern = re.compile(rb"[{,\s]" + re.escape(project_var.encode()) + rb"\s*:")
    for n, m in enumerate(pattern.finditer(blob.data)):
        if n >= limit:
            break
        start = enclosing_object(blob.data, m.start() + 1)
        if start is None:
            continue
        keys, end = object_keys(blob.data, start)
        found = [(k, at) for k, at in keys if ENV_NAME.fullmatch(k.encode())]
        after = bytes(blob.data[end : end + ASSIGN_AFTER]) if end > 0 else b""
        found += [(a.group(1).decode(), end + a.start(1)) for a in re.finditer(rb"[\w$]\.([A-Z][A-Z0-9_]{2,60})=(?!=)", after)]
        items += [
            Item(kind="env", name=k, file=blob.rel, offset=at, anchor=anchor, heuristic=True)
            for k, at in found
            if k.startswith(prefixes)
        ]
    return items


OUTPUT_READ = re.compile(rb"hookSpecificOutput(?:\?)?(?:\.([A-Za-z_]\w{0,60})\b|\[\"([A-Za-z_]\w{0,60})\"\])")


def output_reads(blob: Blob, limit: int = 2000) -> list[Item]:
    """Fields the code reads off a hook's hookSpecificOutput (`hookSpecificOutput.X`,
    `hookSpecificOutput?.X`, `hookSpecificOutput["X"]`). Heuristic: a read, not a schema."""
    items = []
    for n, m in enumerate(OUTPUT_READ.finditer(blob.data)):
        if n >= limit:
            break
        name = (m.group(1) or m.group(2)).decode()
        at = m.start(1) if m.group(1) else m.start(2)
        anchor = "a read of hookSpecificOutput.FIELD in the code"
        items.append(
            Item(
                kind="decision_field", name=f"hookSpecificOutput.{name}", file=blob.rel, offset=at, anchor=anchor, heuristic=True
            )
        )
    return items


def longest_array(blob: Blob, first: str, item: str, anchor: str) -> list[Item]:
    """The events of the first of the longest string arrays starting with `first` (a bundle
    also holds shorter lists of the same names: a subset a feature reads)."""
    arrays = string_arrays(blob.data, first, item)
    if not arrays:
        return []
    _, names = max(arrays, key=lambda a: len(a[1]))
    return [Item(kind="event", name=n, file=blob.rel, offset=at + 1, anchor=anchor) for n, at in names]


def handler_schemas(blob: Blob, matches: Iterable[re.Match[bytes]], anchor: str) -> list[Item]:
    """Each match's group 1 is a handler type inside an object literal: the type, and the
    literal's other keys as its fields (`type.key`)."""
    items: list[Item] = []
    for m in matches:
        kind = m.group(1).decode()
        items.append(Item(kind="handler_type", name=kind, file=blob.rel, offset=m.start(1), anchor=anchor))
        keys, _ = object_keys(blob.data, m.start())
        items += [
            Item(kind="handler_field", name=f"{kind}.{k}", file=blob.rel, offset=at, anchor=anchor)
            for k, at in keys
            if k != "type"
        ]
    return items


def first_declaring(
    prefix: Path, rels: list[str], read_blob: Callable[[Blob], list[Item]], needle: bytes = b"Hook"
) -> tuple[list[Item], list[str]]:
    """Each anchor's items from the first of `rels` (an esbuild bundle's chunks, by name) that
    declares any: several chunks carry the same definitions. A file without `needle` is skipped."""
    got: dict[str, list[Item]] = {}
    notes: list[str] = []
    for rel in rels:
        try:
            with mapped(prefix, rel) as blob:
                if blob.data.find(needle) < 0:
                    continue
                for item in read_blob(blob):
                    key = f"{item.kind}:{item.anchor}"
                    if got.setdefault(key, [item])[0].file == item.file and item not in got[key]:
                        got[key].append(item)
        except BadFile as e:
            notes.append(str(e))
    return [i for items in got.values() for i in items], notes
