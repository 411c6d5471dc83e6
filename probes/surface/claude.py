"""Claude Code's hook surface, from its bundle: the native (bun-compiled) binary of the platform
package (2.1.x: node_modules/@anthropic-ai/claude-code-linux-x64/claude, the JS source inside)
or, in older releases, the package's cli.js.

- events: the array literal of PascalCase names starting with "PreToolUse" with the most
  elements (the hook event list the settings schema's record keys and the payloads use;
  shorter lists that start the same are subsets: events that can block, say);
- handler types and fields: each settings-schema object `{type:X("T").describe("... hook
  type")...}` (zod, minified), its type and its own keys;
- decision fields: the hook output schema, the object that starts `{continue:...describe(
  "Whether Claude should continue after hook`: its keys, and each hookSpecificOutput variant
  `{hookEventName:X("E"),...}`'s keys as `E.key`;
- env vars (heuristic): common.env_beside CLAUDE_PROJECT_DIR."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.surface.common import env_beside, handler_schemas, longest_array
from probes.surface.model import Item
from probes.surface.scan import Blob, first_file, mapped, object_keys

FILES = [
    "node_modules/@anthropic-ai/claude-code-linux-*/claude",
    "node_modules/@anthropic-ai/claude-code/cli.js",
]
PASCAL = r"[A-Z][A-Za-z]{1,60}"
EVENTS_ANCHOR = 'the longest array literal of PascalCase names starting with "PreToolUse" (the hook event list)'
HANDLER_RE = re.compile(rb"\{type:[\w$.]{1,40}\(\"([a-z_]{1,30})\"\)\.describe\((?:\"[^\"]{0,120}|'[^']{0,120})[Hh]ook type")
HANDLER_ANCHOR = 'the settings schema\'s handler object {type:X("TYPE").describe("... hook type"), ...}'
OUTPUT_RE = re.compile(rb"\{continue:[\w$.]{1,40}\(\)\.describe\(\"Whether Claude should continue after hook")
OUTPUT_ANCHOR = 'the hook output schema {continue:...describe("Whether Claude should continue after hook ...")}'
SPECIFIC_RE = re.compile(rb"\{hookEventName:[\w$.]{1,40}\(\"([A-Za-z]{1,60})\"\)")
SPECIFIC_ANCHOR = 'a hookSpecificOutput variant {hookEventName:X("EVENT"), ...} of the hook output schema'


def events(blob: Blob) -> list[Item]:
    return longest_array(blob, "PreToolUse", PASCAL, EVENTS_ANCHOR)


def handlers(blob: Blob) -> list[Item]:
    return handler_schemas(blob, HANDLER_RE.finditer(blob.data), HANDLER_ANCHOR)


def decisions(blob: Blob) -> list[Item]:
    m = OUTPUT_RE.search(blob.data)
    if not m:
        return []
    keys, end = object_keys(blob.data, m.start())
    items = [Item(kind="decision_field", name=k, file=blob.rel, offset=at, anchor=OUTPUT_ANCHOR) for k, at in keys]
    specific = next((at for k, at in keys if k == "hookSpecificOutput"), None)
    if specific is None or end < 0:
        return items
    for s in SPECIFIC_RE.finditer(blob.data, specific, end):
        event = s.group(1).decode()
        inner, _ = object_keys(blob.data, s.start())
        items += [
            Item(kind="decision_field", name=f"{event}.{k}", file=blob.rel, offset=at, anchor=SPECIFIC_ANCHOR)
            for k, at in inner
            if k != "hookEventName"
        ]
    return items


def read_blob(blob: Blob) -> list[Item]:
    """Everything in one bundle (the unit tests give it fake bytes)."""
    env = env_beside(blob, "CLAUDE_PROJECT_DIR", ("CLAUDE", "CCR_"))
    return events(blob) + handlers(blob) + decisions(blob) + env


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    rel = first_file(prefix, FILES)
    if rel is None:
        return [], [f"no bundle found ({', '.join(FILES)})"]
    with mapped(prefix, rel) as blob:
        return read_blob(blob), []
