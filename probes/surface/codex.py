"""Codex CLI's hook surface, from its native (Rust) binary: it embeds the JSON Schema of each
hook's input and output, pretty-printed, titled `EVENT.TYPE.input` / `EVENT.TYPE.output`
(`pre-tool-use.command.input`).

- events: `properties.hook_event_name.const` of each input schema;
- handler types: the TYPE part of the schemas' titles;
- decision fields: each output schema's properties (`FIELD`), and its hookSpecificOutput's
  (`EVENT.FIELD`, through one `$ref`);
- handler fields (heuristic): serde writes a struct's field names into the binary as one run
  of bytes without separators, so they cannot be split; names known to some agent's hook
  config are looked for in the run before `internally tagged enum ConfiguredHookHandler`;
- env vars: not read (no anchor found that lists what a hook is started with)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from probes.agents import AGENTS, Agent
from probes.surface.model import Item
from probes.surface.scan import Blob, json_value, mapped, quoted_at

SCHEMA_RE = re.compile(rb'\{\n  "\$schema"')
MAX_SCHEMAS = 200
TITLE_RE = re.compile(r"([a-z-]{1,60})\.([a-z_]{1,30})\.(input|output)")
EVENT_ANCHOR = "an embedded hook input JSON Schema ({title}): hook_event_name.const"
TYPE_ANCHOR = "an embedded hook JSON Schema's title ({title}): EVENT.TYPE.input"
OUTPUT_ANCHOR = "an embedded hook output JSON Schema ({title}): its properties"
HANDLER_RUN = b"internally tagged enum ConfiguredHookHandler"
RUN_BACK = 400
FIELDS_ANCHOR = "a known handler field name in the serde name run before `internally tagged enum ConfiguredHookHandler`"
KNOWN_FIELDS = (
    "command",
    "commandWindows",
    "timeout",
    "timeoutSec",
    "statusMessage",
    "async",
    "matcher",
    "prompt",
    "url",
    "model",
)


def schemas(blob: Blob) -> list[tuple[int, int, dict[str, Any]]]:
    """(start, end, schema) of each embedded JSON Schema with a hook title."""
    found = []
    for n, m in enumerate(SCHEMA_RE.finditer(blob.data)):
        if n >= MAX_SCHEMAS:
            break
        got = json_value(blob.data, m.start(), 256 * 1024)
        if got and isinstance(got[0], dict) and TITLE_RE.fullmatch(str(got[0].get("title", ""))):
            found.append((m.start(), got[1], got[0]))
    return found


def _props(schema: dict[str, Any], node: Any) -> dict[str, Any]:
    """A node's properties, through one local $ref (or an allOf of one)."""
    if isinstance(node, dict) and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
        node = node["allOf"][0]
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        name = node["$ref"].rsplit("/", 1)[-1]
        node = (schema.get("definitions") or schema.get("$defs") or {}).get(name, {})
    props = node.get("properties") if isinstance(node, dict) else None
    return props if isinstance(props, dict) else {}


def from_schemas(blob: Blob) -> list[Item]:
    items: list[Item] = []
    for start, end, schema in schemas(blob):
        title = schema["title"]
        t = TITLE_RE.fullmatch(title)
        assert t is not None
        at = quoted_at(blob.data, title, start, end)
        type_at = None if at is None else at + t.start(2)  # the TYPE inside the title
        items.append(
            Item(kind="handler_type", name=t.group(2), file=blob.rel, offset=type_at, anchor=TYPE_ANCHOR.format(title=title))
        )
        props = _props(schema, schema)
        if t.group(3) == "input":
            const = props.get("hook_event_name", {}).get("const") if isinstance(props.get("hook_event_name"), dict) else None
            if isinstance(const, str):
                near = blob.data.find(b'"hook_event_name"', start, end)
                items.append(
                    Item(
                        kind="event",
                        name=const,
                        file=blob.rel,
                        offset=quoted_at(blob.data, const, max(near, start), end),
                        anchor=EVENT_ANCHOR.format(title=title),
                    )
                )
            continue
        anchor = OUTPUT_ANCHOR.format(title=title)
        event = "".join(w.capitalize() for w in t.group(1).split("-"))
        for key in props:
            items.append(
                Item(kind="decision_field", name=key, file=blob.rel, offset=quoted_at(blob.data, key, start, end), anchor=anchor)
            )
        for key in _props(schema, props.get("hookSpecificOutput")):
            if key != "hookEventName":
                at = quoted_at(blob.data, key, start, end)
                items.append(Item(kind="decision_field", name=f"{event}.{key}", file=blob.rel, offset=at, anchor=anchor))
    return items


def handler_fields(blob: Blob, types: list[str]) -> list[Item]:
    end = blob.data.find(HANDLER_RUN)
    if end < 0:
        return []
    run = bytes(blob.data[max(0, end - RUN_BACK) : end])
    known = set(KNOWN_FIELDS) | {f for a in AGENTS.values() for f in a.handler_fields}
    items = []
    for name in sorted(known):
        at = run.rfind(name.encode())
        if at >= 0:
            for t in types or ["command"]:
                offset = end - len(run) + at
                items.append(
                    Item(
                        kind="handler_field",
                        name=f"{t}.{name}",
                        file=blob.rel,
                        offset=offset,
                        anchor=FIELDS_ANCHOR,
                        heuristic=True,
                    )
                )
    return items


def read_blob(blob: Blob) -> list[Item]:
    items = from_schemas(blob)
    types = sorted({i.name for i in items if i.kind == "handler_type"})
    return items + handler_fields(blob, types)


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    binary = agent.binary_path(prefix)
    if not binary.is_file():
        return [], [f"no native binary at {binary}"]
    with mapped(prefix, str(binary.relative_to(prefix))) as blob:
        return read_blob(blob), ["env vars: not read for Codex (no anchor lists a hook's environment)"]
