"""The hook surface of pi: it has no hook config, its extensions call `pi.on(EVENT, handler)` (the
probe's relay extension turns a recipe's command hooks into such handlers, docs/pi.md). What an
extension may subscribe to is declared by the types the package ships,
`dist/core/extensions/types.d.ts`:

- events: each overload `on(event: "EVENT", handler: ExtensionHandler<E, R>)` of the
  ExtensionAPI interface;
- decision fields: the fields of each such overload's result type R (`interface R {...}`), as
  `EVENT.FIELD` (`tool_call.block`);
- handler types and fields: none (a handler is a function an extension registers);
- env vars: not read (an extension runs in pi's process: nothing is started for it)."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.limits import BadFile
from probes.surface.model import Item
from probes.surface.scan import Blob, mapped

TYPES = "node_modules/@mariozechner/pi-coding-agent/dist/core/extensions/types.d.ts"
ON_RE = re.compile(rb'\n\s{2,8}on\(event: "([a-z_]{1,60})", handler: ExtensionHandler<\w+(?:, (\w+))?>\)')
EVENT_ANCHOR = 'an overload `on(event: "EVENT", handler: ...)` of the ExtensionAPI interface'
RESULT_ANCHOR = "a field of {result}, the result type of the event's handler"
FIELD_RE = re.compile(rb"\n    (?:readonly )?([A-Za-z_]\w{0,60})\??:")
MAX_ON = 200


def result_fields(blob: Blob, event: str, result: str) -> list[Item]:
    """The top-level fields of `interface RESULT {` (4-space indented, comments skipped)."""
    name = re.escape(result.encode())
    m = re.search(rb"(?m)^(?:export )?interface " + name + rb"\b[^{\n]{0,200}\{", blob.data)
    if not m:
        return []
    end = blob.data.find(b"\n}", m.end(), m.end() + 20000)
    body = bytes(blob.data[m.end() : end if end >= 0 else m.end()])
    anchor = RESULT_ANCHOR.format(result=result)
    return [
        Item(
            kind="decision_field",
            name=f"{event}.{f.group(1).decode()}",
            file=blob.rel,
            offset=m.end() + f.start(1),
            anchor=anchor,
        )
        for f in FIELD_RE.finditer(body)
    ]


def read_blob(blob: Blob) -> list[Item]:
    events: list[Item] = []
    decisions: list[Item] = []
    for n, m in enumerate(ON_RE.finditer(blob.data)):
        if n >= MAX_ON:
            break
        event = m.group(1).decode()
        events.append(Item(kind="event", name=event, file=blob.rel, offset=m.start(1), anchor=EVENT_ANCHOR))
        if m.group(2):
            decisions += result_fields(blob, event, m.group(2).decode())
    return events + decisions


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    notes = ["handler types and fields: none (an extension registers a function per event); env vars: not read"]
    try:
        with mapped(prefix, TYPES) as blob:
            return read_blob(blob), notes
    except BadFile as e:
        return [], [str(e), *notes]
