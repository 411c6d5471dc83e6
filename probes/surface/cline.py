"""Cline CLI's hook surface (docs/cline.md). A hook is an executable file named by its event, so
there are no handler types or fields; two generations are read:

- 3.x, the Bun-compiled binary `node_modules/@cline/cli-linux-x64/bin/cline` (the SDK's JS
  inside): events, the TypeScript enum whose first member is TaskStart as Bun minifies it
  (`((G)=>{G.TaskStart="TaskStart";...})(uE||={})`: the hook file names it knows); decision
  fields, the keys its hook output parser accepts (`("cancel"in $)||("review"in $)||...`);
- 2.x, `node_modules/cline/dist/cli.mjs` (the VS Code extension's core): events, the longest
  array literal starting with `"TaskStart"`; decision fields, the keys of the hook output
  message's default (protobuf: `return{contextModification:"",cancel:!1,errorMessage:""}`);
- env vars: not read (no anchor found)."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.limits import BadFile
from probes.surface.common import longest_array
from probes.surface.model import Item
from probes.surface.scan import Blob, first_file, mapped, object_keys

FILES = [
    "node_modules/@cline/cli-linux-x64/bin/cline",
    "node_modules/@cline/cli-linux-*/bin/cline",
    "node_modules/cline/dist/cli.mjs",
]
ENUM_RE = re.compile(rb'\(\(([\w$]{1,4})\)=>\{\1\.TaskStart="TaskStart";')
MEMBER_RE = re.compile(rb'([\w$]{1,4})\.([A-Za-z]{1,60})="([A-Za-z]{1,60})"[;}]')
ENUM_ANCHOR = "the TypeScript enum whose first member is TaskStart, as Bun minifies it (the hook file names)"
ARRAY_ANCHOR = 'the longest array literal of hook names starting with "TaskStart"'
ACCEPTS_RE = re.compile(rb'\(\("cancel"in ([\w$]{1,4})\)(?:\|\|\("\w{1,60}"in \1\)){1,20}')
ACCEPTS_ANCHOR = 'a key the hook output parser accepts (`("cancel"in $)||("review"in $)||...`)'
DEFAULT_RE = re.compile(rb"return(\{)contextModification:")
DEFAULT_ANCHOR = 'a key of the hook output message\'s default (`return{contextModification:"",cancel:!1,...}`)'
ENUM_MAX = 2000  # bytes of one enum's body


def enum_events(blob: Blob) -> list[Item]:
    m = ENUM_RE.search(blob.data)
    if not m:
        return []
    var = m.group(1)
    end = blob.data.find(b"})", m.end(), m.end() + ENUM_MAX)
    body = bytes(blob.data[m.start() : end + 1 if end >= 0 else m.start()])
    return [
        Item(kind="event", name=e.group(3).decode(), file=blob.rel, offset=m.start() + e.start(3), anchor=ENUM_ANCHOR)
        for e in MEMBER_RE.finditer(body)
        if e.group(1) == var
    ]


def decisions(blob: Blob) -> list[Item]:
    m = ACCEPTS_RE.search(blob.data)
    if m:
        return [
            Item(
                kind="decision_field",
                name=k.group(1).decode(),
                file=blob.rel,
                offset=m.start() + k.start(1),
                anchor=ACCEPTS_ANCHOR,
            )
            for k in re.finditer(rb'"(\w{1,60})"in ', m.group(0))
        ]
    d = DEFAULT_RE.search(blob.data)
    if not d:
        return []
    keys, _ = object_keys(blob.data, d.start(1), 2000)
    return [Item(kind="decision_field", name=k, file=blob.rel, offset=at, anchor=DEFAULT_ANCHOR) for k, at in keys]


def read_blob(blob: Blob) -> list[Item]:
    """Everything one file declares (the unit tests give it fake bytes)."""
    events = enum_events(blob) or longest_array(blob, "TaskStart", r"[A-Z][A-Za-z]{1,40}", ARRAY_ANCHOR)
    return events + decisions(blob)


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    notes = ["handler types and fields: none (a hook is an executable file named by its event); env vars: not read"]
    rel = first_file(prefix, FILES)
    if rel is None:
        return [], [f"no binary or bundle found ({', '.join(FILES)})", *notes]
    try:
        with mapped(prefix, rel) as blob:
            return read_blob(blob), notes
    except BadFile as e:
        return [], [str(e), *notes]
