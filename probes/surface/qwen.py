"""Qwen Code's hook surface, from its esbuild bundle (node_modules/@qwen-code/qwen-code/: one
cli.js up to 0.2x, then cli.js and chunks/*.js; the first file, by name, that declares each).
Qwen Code is a fork of Gemini CLI with Claude Code's hook shape.

- events: the TypeScript enum `HookEventName` (esbuild's arrow form, or tsc's function form);
- handler types: the settings schema's `HOOK_DEFINITION_ITEMS` hooks.items `type.enum` (what a
  settings file may name), the enum `HookType` where it is kept (0.15), and the cases of
  `getHookKey` where esbuild inlined it (`case "function" /* Function */`: SDK-registered);
- handler fields: that schema's hooks.items properties, each under the type its description
  names (`Required for "http" type`), else `command`;
- decision fields: the fields of `DefaultHookOutput` (every hook output is read into it), and
  (heuristic) hookSpecificOutput.FIELD reads;
- env vars (heuristic): common.env_beside QWEN_PROJECT_DIR."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.surface import gemini
from probes.surface.common import env_beside, first_declaring, output_reads
from probes.surface.gemini import enum_items
from probes.surface.model import Item
from probes.surface.scan import Blob, object_keys

BUNDLE = "node_modules/@qwen-code/qwen-code"
MAX_CHUNKS = 400  # 0.24.4 ships ~60
SCHEMA_HEAD = b"var HOOK_DEFINITION_ITEMS = {"
SCHEMA_ANCHOR = "the settings schema HOOK_DEFINITION_ITEMS: hooks.items.properties"
TYPE_ANCHOR = "the settings schema HOOK_DEFINITION_ITEMS: hooks.items.properties.type.enum"
KEY_ANCHOR = "a case of getHookKey's switch on hook.type (the HookType enum, inlined)"
CLASS_RE = re.compile(rb"DefaultHookOutput = class \{")
FIELD_RE = re.compile(rb"\n\s{2,8}([A-Za-z_]\w{0,60});")
CASE_RE = re.compile(rb'case "([a-z_]{1,30})" /\* \w+ \*/:')
TYPE_IN_TEXT = re.compile(rb'"(command|http|prompt|function|agent)"')


def _sub(data: Blob, start: int, key: str, limit: int) -> int:
    """The `{` of `key: {` after `start`, or -1."""
    return data.data.find(key.encode() + b": {", start, start + limit)


def schema(blob: Blob) -> list[Item]:
    """HOOK_DEFINITION_ITEMS > hooks > items > properties: the types of its `type.enum`, and
    each property as TYPE.FIELD (the one type its description quotes, else command)."""
    head = blob.data.find(SCHEMA_HEAD)
    hooks = _sub(blob, head, "hooks", 4000) if head >= 0 else -1
    items_at = _sub(blob, hooks, "items", 1000) if hooks >= 0 else -1
    props = _sub(blob, items_at, "properties", 1000) if items_at >= 0 else -1
    if props < 0:
        return []
    brace = props + len(b"properties: ")
    keys, _ = object_keys(blob.data, brace)
    out: list[Item] = []
    for k, at in keys:
        value = blob.data.find(b"{", at, at + 200)
        _, end = object_keys(blob.data, value) if value >= 0 else ([], -1)
        body = bytes(blob.data[value:end]) if end > 0 else b""
        if k == "type":
            enum = body.find(b"enum: [")
            close = body.find(b"]", enum)
            if enum >= 0:
                out += [
                    Item(
                        kind="handler_type",
                        name=t.group(1).decode(),
                        file=blob.rel,
                        offset=value + enum + t.start(1),
                        anchor=TYPE_ANCHOR,
                    )
                    for t in re.finditer(rb'"([a-z_]{1,30})"', body[enum:close])
                ]
            continue
        desc = re.search(rb'description: ([\'"])(.{0,400}?)\1,?\n', body)
        named = {t.group(1) for t in TYPE_IN_TEXT.finditer(desc.group(2))} if desc else set()
        kind = named.pop().decode() if len(named) == 1 else "command"
        out.append(Item(kind="handler_field", name=f"{kind}.{k}", file=blob.rel, offset=at, anchor=SCHEMA_ANCHOR))
    return out


def key_cases(blob: Blob) -> list[Item]:
    start = blob.data.find(b"function getHookKey(")
    if start < 0:
        return []
    body = bytes(blob.data[start : start + 1500])
    return [
        Item(kind="handler_type", name=c.group(1).decode(), file=blob.rel, offset=start + c.start(1), anchor=KEY_ANCHOR)
        for c in CASE_RE.finditer(body)
    ]


def decisions(blob: Blob) -> list[Item]:
    return gemini.decisions(blob, CLASS_RE, FIELD_RE)


def read_blob(blob: Blob) -> list[Item]:
    """Everything one file declares (the unit tests give it fake bytes)."""
    return (
        enum_items(blob, "HookEventName", "event")
        + schema(blob)
        + enum_items(blob, "HookType", "handler_type")
        + key_cases(blob)
        + decisions(blob)
        + output_reads(blob)
        + env_beside(blob, "QWEN_PROJECT_DIR", ("QWEN", "GEMINI", "CLAUDE"))
    )


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    root = prefix / BUNDLE
    chunks = sorted(p.name for p in (root / "chunks").glob("*.js"))[:MAX_CHUNKS] if (root / "chunks").is_dir() else []
    rels = [f"{BUNDLE}/cli.js"] * (root / "cli.js").is_file() + [f"{BUNDLE}/chunks/{c}" for c in chunks]
    if not rels:
        return [], [f"no bundle found ({BUNDLE}/cli.js, chunks/*.js)"]
    return first_declaring(prefix, rels, read_blob)
