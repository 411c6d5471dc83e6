"""The hook surface of opencode: plugin hooks (docs/opencode.md), read from its Bun-compiled binary
(`node_modules/opencode-linux-x64/bin/opencode`, the JS inside; the install has no
@opencode-ai/plugin types). Kilo Code's CLI is a fork and is read the same way (kilo.py).

- events: the name of each `.trigger("NAME", input, output)` call (a plugin hook the CLI runs,
  `tool.execute.before`); each plugin hook called on every plugin in a loop
  (`for(let p of P)p.event?.(...)`: `event`, `config`); and each bus event defined
  (`define({type:"session.idle",...schema:` or `.define("session.idle",`), which the `event` hook
  receives (the harness's stop is `session.idle`): heuristic, a bus event may not reach plugins;
- decision fields: the keys of each trigger's output object literal, as `NAME.KEY`
  (`tool.execute.before.args`: what a plugin may change; a shorthand key `{ parts }` is not read);
- handler types and fields: none (a plugin is a module of functions); env vars: not read."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.limits import BadFile
from probes.surface.model import Item
from probes.surface.scan import Blob, first_file, mapped, object_keys

BINARIES = ["node_modules/opencode-linux-x64/bin/opencode", "node_modules/opencode-linux-*/bin/opencode"]
HOOK_NAME = rb"[a-z]+(?:\.[a-z][a-z-]*)+"
TRIGGER_RE = re.compile(rb'\.trigger\("(' + HOOK_NAME + rb')",\s{0,4}')
LOOP_RE = re.compile(
    rb"for ?\((?:let|const) ([\w$]+) of [\w$.]+\) ?\{?\s{0,40}(?:await |yield\*[\w$.]+\(\{try:\(\)=>Promise\.resolve\()?"
    rb'\1(?:\.([a-z]\w{1,40})|\["([a-z]\w{1,40})"\])\?\.\('
)
# `define({type:"session.created",version:1,aggregate:"sessionID",schema:` (or `...X,schema:`)
BUS_RE = re.compile(
    rb'\(\{type:"('
    + HOOK_NAME
    + rb')",(?:\.\.\.[\w$]+,|\w+:[^,{}():]{1,40},){0,4}schema:|\.define\("('
    + HOOK_NAME
    + rb')",\s?[\w$]'
)
TRIGGER_ANCHOR = 'a call .trigger("NAME", input, output): a plugin hook the CLI runs'
LOOP_ANCHOR = "a plugin hook called on each plugin in a loop (`for(let p of P)p.NAME?.(`)"
BUS_ANCHOR = "a bus event's definition (the plugin hook `event` receives each)"
OUTPUT_ANCHOR = "a key of the output object a .trigger call passes its plugins"
MAX_MATCHES = 2000


def triggers(blob: Blob) -> list[Item]:
    items: list[Item] = []
    for n, m in enumerate(TRIGGER_RE.finditer(blob.data)):
        if n >= MAX_MATCHES:
            break
        name = m.group(1).decode()
        items.append(Item(kind="event", name=name, file=blob.rel, offset=m.start(1), anchor=TRIGGER_ANCHOR))
        if blob.data[m.end() : m.end() + 1] != b"{":
            continue
        _, end = object_keys(blob.data, m.end(), 4096)  # the input
        out = re.compile(rb",\s{0,4}\{").match(blob.data, end) if end > 0 else None
        if out:
            keys, _ = object_keys(blob.data, out.end() - 1, 4096)
            items += [
                Item(kind="decision_field", name=f"{name}.{k}", file=blob.rel, offset=at, anchor=OUTPUT_ANCHOR) for k, at in keys
            ]
    return items


def read_blob(blob: Blob) -> list[Item]:
    """Everything one binary (or bundle) declares (the unit tests give it fake bytes)."""
    items = triggers(blob)
    for m in LOOP_RE.finditer(blob.data):
        g = 2 if m.group(2) else 3
        items.append(Item(kind="event", name=m.group(g).decode(), file=blob.rel, offset=m.start(g), anchor=LOOP_ANCHOR))
    for n, m in enumerate(BUS_RE.finditer(blob.data)):
        if n >= MAX_MATCHES:
            break
        g = 1 if m.group(1) else 2
        items.append(
            Item(kind="event", name=m.group(g).decode(), file=blob.rel, offset=m.start(g), anchor=BUS_ANCHOR, heuristic=True)
        )
    return sorted(items, key=lambda i: ("event" != i.kind, i.anchor != TRIGGER_ANCHOR, i.anchor != LOOP_ANCHOR))


def read_binary(prefix: Path, candidates: list[str]) -> tuple[list[Item], list[str]]:
    notes = ["handler types and fields: none (a plugin is a module of functions); env vars: not read"]
    rel = first_file(prefix, candidates)
    if rel is None:
        return [], [f"no binary found ({', '.join(candidates)})", *notes]
    try:
        with mapped(prefix, rel) as blob:
            return read_blob(blob), notes
    except BadFile as e:
        return [], [str(e), *notes]


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    return read_binary(prefix, BINARIES)
