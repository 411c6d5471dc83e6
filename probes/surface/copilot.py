"""GitHub Copilot CLI's hook surface. The npm package is a launcher; at install the launcher
unpacks the CLI into the seed HOME (seed-home/.cache/copilot/pkg/PLATFORM/VERSION, see
agents/copilot.py), which is read here. Up to about 1.0.6x its code is a JS bundle (app.js);
later releases move it into a native module (prebuilds/PLATFORM/runtime.node), and ship JSON
Schemas of their API (schemas/api.schema.json).

- events: `definitions.HookType.enum` of schemas/api.schema.json when it has one; else the
  longest array literal of camelCase names starting with "sessionStart" in app.js; plus the
  settings-path table of runtime.node (`"path":"hooks.EVENT"`);
- handler types and fields: app.js's hook objects `{type:X.literal("T"), ...}` just before the
  hooks config schema (`.object({sessionStart:`); in runtime.node (heuristic) the type named in
  its config errors ("HTTP hook URL is required", "prompt hook prompt is required"), and a
  command hook's fields from "Specify either 'exec' (...) or 'bash'/'powershell'/'command'";
- decision fields (heuristic): hookSpecificOutput.FIELD reads in app.js;
- env vars (heuristic): common.env_beside COPILOT_PROJECT_DIR in app.js."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.limits import BadFile
from probes.surface.common import env_beside, handler_schemas, longest_array, output_reads
from probes.surface.model import Item
from probes.surface.scan import Blob, first_file, json_value, mapped, quoted_at

PKG = "seed-home/.cache/copilot/pkg/*/*"
SCHEMA = f"{PKG}/schemas/api.schema.json"
APP = [f"{PKG}/app.js", "node_modules/@github/copilot/app.js"]
NATIVE = f"{PKG}/prebuilds/*/runtime.node"
CAMEL = r"[a-z][A-Za-z]{1,60}"
SCHEMA_ANCHOR = "definitions.HookType.enum of the shipped API JSON Schema"
ARRAY_ANCHOR = 'the longest array literal of camelCase names starting with "sessionStart" (the hook event enum)'
PATH_RE = re.compile(rb'"path":"hooks\.([a-zA-Z]{1,60})"')
PATH_ANCHOR = 'the native settings-path table: {"path":"hooks.EVENT", ...}'
CONFIG_RE = re.compile(rb"\.object\(\{sessionStart:")
HANDLER_RE = re.compile(rb"\{type:[\w$]{1,20}\.literal\(\"([a-z_]{1,30})\"\)")
HANDLER_BACK = 4000  # the handler objects precede the hooks config schema (1.0.20: ~1 KiB)
HANDLER_ANCHOR = 'a hook object {type:X.literal("TYPE"), ...} just before the hooks config schema (.object({sessionStart:...)'
ERROR_RE = re.compile(rb"(HTTP|prompt|command|agent) hook (?:URL|prompt|command) (?:is required|must|cannot)")
ERROR_ANCHOR = "a config error naming the handler type (e.g. 'HTTP hook URL is required')"
SHELL_RE = re.compile(rb"Specify either '(\w{1,30})' \([^)]{0,60}\) or '(\w{1,30})'/'(\w{1,30})'/'(\w{1,30})' \(shell\)")
SHELL_ANCHOR = "the command hook's config error \"Specify either 'exec' (...) or 'bash'/'powershell'/'command' (shell)\""


def schema_events(blob: Blob) -> list[Item]:
    start = blob.data.find(b'"HookType": {')
    got = json_value(blob.data, start + len(b'"HookType": ')) if start >= 0 else None
    if not got or not isinstance(got[0], dict) or not isinstance(got[0].get("enum"), list):
        return []
    end = got[1]
    return [
        Item(kind="event", name=n, file=blob.rel, offset=quoted_at(blob.data, n, start, end), anchor=SCHEMA_ANCHOR)
        for n in got[0]["enum"]
        if isinstance(n, str)
    ]


def app_events(blob: Blob) -> list[Item]:
    return longest_array(blob, "sessionStart", CAMEL, ARRAY_ANCHOR)


def app_handlers(blob: Blob) -> list[Item]:
    config = CONFIG_RE.search(blob.data)
    if not config:
        return []
    start = max(0, config.start() - HANDLER_BACK)
    return handler_schemas(blob, HANDLER_RE.finditer(blob.data, start, config.start()), HANDLER_ANCHOR)


def native_items(blob: Blob) -> list[Item]:
    items = [
        Item(kind="event", name=m.group(1).decode(), file=blob.rel, offset=m.start(1), anchor=PATH_ANCHOR)
        for m in PATH_RE.finditer(blob.data)
    ]
    items += [
        Item(
            kind="handler_type",
            name=m.group(1).decode().lower(),
            file=blob.rel,
            offset=m.start(1),
            anchor=ERROR_ANCHOR,
            heuristic=True,
        )
        for m in ERROR_RE.finditer(blob.data)
    ]
    if shell := SHELL_RE.search(blob.data):
        items.append(
            Item(kind="handler_type", name="command", file=blob.rel, offset=shell.start(), anchor=SHELL_ANCHOR, heuristic=True)
        )
        for n in range(1, 5):
            name = f"command.{shell.group(n).decode()}"
            items.append(
                Item(kind="handler_field", name=name, file=blob.rel, offset=shell.start(n), anchor=SHELL_ANCHOR, heuristic=True)
            )
    return items


def read_app(blob: Blob) -> list[Item]:
    """Everything app.js declares (the unit tests give it fake bytes)."""
    env = env_beside(blob, "COPILOT_PROJECT_DIR", ("COPILOT", "CLAUDE", "GITHUB_COPILOT"))
    return app_events(blob) + app_handlers(blob) + output_reads(blob) + env


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    items: list[Item] = []
    notes: list[str] = []
    for what, rel, reader in (
        ("API schema", first_file(prefix, [SCHEMA]), schema_events),
        ("app.js", first_file(prefix, APP), read_app),
        ("runtime.node", first_file(prefix, [NATIVE]), native_items),
    ):
        if rel is None:
            notes.append(f"no {what} in this release")
            continue
        try:
            with mapped(prefix, rel) as blob:
                items += reader(blob)
        except BadFile as e:
            notes.append(str(e))
    if not any(i.kind in ("decision_field", "env") for i in items):  # 0 is "not read", not "none declared"
        notes.append("decision fields and env vars: read from app.js only (none there); runtime.node has no anchor for them")
    return items, notes
