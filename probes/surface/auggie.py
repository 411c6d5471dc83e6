"""Auggie's (Augment Code CLI) hook surface, from its one bundle
(`node_modules/@augmentcode/auggie/augment.mjs`, minified, zod). Claude Code's hook shape:

- events: the longest array literal of names starting with `"PreToolUse"`; and the
  Cursor-style names it maps onto its own (`beforeShellExecution` -> PreToolUse with a matcher):
  the longest array starting with `"beforeShellExecution"`;
- handler types and fields: each zod object `{type:X.literal("TYPE"),...}` shortly after the
  settings' event enum (`{errorMap:()=>({message:"Invalid event type"})}`), its keys as `TYPE.FIELD`;
- decision fields: the output schema `Y=X.object({continue:...})` that is extended with
  `hookSpecificOutput`: its keys, and each variant of that union
  (`{hookEventName:X.literal("EVENT"),...Z.shape}`, Z's keys) as `EVENT.FIELD`;
- env vars (heuristic): common.env_beside AUGMENT_PROJECT_DIR."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.limits import BadFile
from probes.surface.common import env_beside, handler_schemas, longest_array, output_reads
from probes.surface.model import Item
from probes.surface.scan import Blob, mapped, object_keys

BUNDLE = "node_modules/@augmentcode/auggie/augment.mjs"
EVENTS_ANCHOR = 'the longest array literal of PascalCase names starting with "PreToolUse"'
ALT_ANCHOR = 'the longest array literal of the Cursor-style names it maps to its own, starting with "beforeShellExecution"'
ENUM_END = b'{errorMap:()=>({message:"Invalid event type"})})'
HANDLER_RE = re.compile(rb'\{type:[\w$]{1,4}\.literal\("([a-z_]{1,30})"\)')
HANDLER_WITHIN = 600  # bytes after the event enum where its handler objects start
HANDLER_ANCHOR = "a hook handler's zod object {type:X.literal(TYPE),...} just after the settings' event enum"
BASE_RE = re.compile(rb"([\w$]{1,5})=[\w$]{1,4}\.object\((\{)continue:")
OUTPUT_ANCHOR = "a key of the hook output's zod object (the one extended with hookSpecificOutput)"
VARIANT_RE = re.compile(rb'\{hookEventName:[\w$]{1,4}\.literal\("([A-Za-z]{1,60})"\)(?:,\.\.\.([\w$]{1,5})\.shape)?\}')
VARIANT_ANCHOR = "a key of the hookSpecificOutput variant {hookEventName:X.literal(EVENT),...Z.shape} (Z's keys)"
MAX_MATCHES = 200


def handlers(blob: Blob) -> list[Item]:
    matches: list[re.Match[bytes]] = []
    at = blob.data.find(ENUM_END)
    while at >= 0 and len(matches) < MAX_MATCHES:
        matches += list(HANDLER_RE.finditer(blob.data, at, at + HANDLER_WITHIN))
        at = blob.data.find(ENUM_END, at + 1)
    return handler_schemas(blob, matches, HANDLER_ANCHOR)


def object_of(blob: Blob, name: bytes) -> int:
    """The `{` of `NAME=X.object({`, or -1."""
    m = re.compile(rb"[,;\s]" + re.escape(name) + rb"=[\w$]{1,4}\.object\(\{").search(blob.data)
    return -1 if m is None else m.end() - 1


def outputs(blob: Blob) -> list[Item]:
    items: list[Item] = []
    for n, m in enumerate(BASE_RE.finditer(blob.data)):
        if n >= MAX_MATCHES:
            break
        keys, end = object_keys(blob.data, m.start(2))
        if end < 0 or blob.data.find(m.group(1) + b".extend({hookSpecificOutput:", end, end + 3000) < 0:
            continue
        items += [Item(kind="decision_field", name=k, file=blob.rel, offset=at, anchor=OUTPUT_ANCHOR) for k, at in keys]
        union = blob.data.find(b"hookEventName", end, end + 3000)
        for v in VARIANT_RE.finditer(blob.data, max(union, 0), end + 3000):
            start = object_of(blob, v.group(2)) if v.group(2) else -1
            fields, _ = object_keys(blob.data, start) if start >= 0 else ([], -1)
            event = v.group(1).decode()
            items += [
                Item(kind="decision_field", name=f"{event}.{k}", file=blob.rel, offset=at, anchor=VARIANT_ANCHOR)
                for k, at in fields
            ]
        break
    return items


def read_blob(blob: Blob) -> list[Item]:
    """Everything the bundle declares (the unit tests give it fake bytes)."""
    return (
        longest_array(blob, "PreToolUse", r"[A-Z][A-Za-z]{1,40}", EVENTS_ANCHOR)
        + longest_array(blob, "beforeShellExecution", r"[a-z][A-Za-z]{1,40}", ALT_ANCHOR)
        + handlers(blob)
        + outputs(blob)
        + output_reads(blob)
        + env_beside(blob, "AUGMENT_PROJECT_DIR", ("AUGMENT", "CLAUDE"))
    )


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    try:
        with mapped(prefix, BUNDLE) as blob:
            return read_blob(blob), []
    except BadFile as e:
        return [], [str(e)]
