"""Gemini CLI's hook surface, from its esbuild bundle (node_modules/@google/gemini-cli/bundle/,
unminified chunks; several chunks carry the same definitions: the first, by name, is read).

- events: the TypeScript enum `HookEventName` (`var HookEventName = ((HookEventName2) => {...`);
- handler types: the enum `HookType` (command, runtime: runtime hooks are registered by code,
  not in settings);
- handler fields: the settings schema's `HookDefinitionArray` definition, its `hooks` items'
  `properties` (one schema for every type: named `command.FIELD`);
- decision fields: the fields of `class DefaultHookOutput` (what every hook's output is read
  into), and (heuristic) hookSpecificOutput.FIELD reads in the code;
- env vars (heuristic): common.env_beside GEMINI_PROJECT_DIR."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.surface.common import env_beside, first_declaring, output_reads
from probes.surface.model import Item
from probes.surface.scan import Blob, object_keys, ts_enum

BUNDLE = "node_modules/@google/gemini-cli/bundle"
MAX_CHUNKS = 400  # 0.61.0 ships 84 files
ENUM_ANCHOR = "the TypeScript enum {name} as the bundle defines it"
FIELDS_ANCHOR = "the settings schema's HookDefinitionArray: hooks.items.properties"
OUTPUT_ANCHOR = "a field of class DefaultHookOutput (every hook output is read into it)"
CLASS_RE = re.compile(rb"var DefaultHookOutput = class \{")
FIELD_RE = re.compile(rb"\n\s{2,4}([A-Za-z_]\w{0,60});")


def enum_items(blob: Blob, name: str, kind: str) -> list[Item]:
    found = ts_enum(blob.data, name)
    if not found:
        return []
    _, members = found[0]
    anchor = ENUM_ANCHOR.format(name=name)
    return [Item(kind=kind, name=value, file=blob.rel, offset=at + 1, anchor=anchor) for _, value, at in members]  # type: ignore[arg-type]


def handler_fields(blob: Blob) -> list[Item]:
    """`HookDefinitionArray: {` ... `hooks: {` ... `properties: {`: that object's keys."""
    start = blob.data.find(b"HookDefinitionArray: {")
    if start < 0:
        return []
    hooks = blob.data.find(b"hooks: {", start, start + 4000)
    props = blob.data.find(b"properties: {", hooks, hooks + 2000) if hooks >= 0 else -1
    if props < 0:
        return []
    keys, _ = object_keys(blob.data, props + len(b"properties: "))
    return [
        Item(kind="handler_field", name=f"command.{k}", file=blob.rel, offset=at, anchor=FIELDS_ANCHOR)
        for k, at in keys
        if k != "type"
    ]


def decisions(blob: Blob, class_re: re.Pattern[bytes] = CLASS_RE, field_re: re.Pattern[bytes] = FIELD_RE) -> list[Item]:
    """The fields of the class every hook output is read into (Qwen Code, a fork, spells it
    alike: its reader passes its own patterns)."""
    m = class_re.search(blob.data)
    if not m:
        return []
    end = blob.data.find(b"constructor(", m.end(), m.end() + 4000)
    body = bytes(blob.data[m.end() : end if end >= 0 else m.end()])
    return [
        Item(kind="decision_field", name=f.group(1).decode(), file=blob.rel, offset=m.end() + f.start(1), anchor=OUTPUT_ANCHOR)
        for f in field_re.finditer(body)
    ]


def read_blob(blob: Blob) -> list[Item]:
    """Everything one chunk declares (the unit tests give it fake bytes)."""
    return (
        enum_items(blob, "HookEventName", "event")
        + enum_items(blob, "HookType", "handler_type")
        + handler_fields(blob)
        + decisions(blob)
        + output_reads(blob)
        + env_beside(blob, "GEMINI_PROJECT_DIR", ("GEMINI", "CLAUDE"))
    )


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    """Each kind from the first chunk (by name) that declares any of it."""
    root = prefix / BUNDLE
    chunks = sorted(p.name for p in root.glob("*.js"))[:MAX_CHUNKS] if root.is_dir() else []
    if not chunks:
        return [], [f"no bundle found ({BUNDLE}/*.js)"]
    return first_declaring(prefix, [f"{BUNDLE}/{name}" for name in chunks], read_blob)
