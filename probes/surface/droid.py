"""Factory Droid's hook surface, from its native (Bun-compiled) binary in the platform package
(`node_modules/@factory/cli-linux-x64/bin/droid`, the minified JS inside). Its hooks take Claude
Code's shape, in zod:

- events: the longest array literal of names starting with `"PreToolUse"` (the hook event list);
- handler types and fields: each zod object `{type:X("TYPE"),...}` named in a matcher's
  `hooks:ARRAY(NAME)` just after it (`We=n({type:f("command"),command:H(),...}),Ye=n({matcher:
  ...,hooks:c(We)})`), and its keys as `TYPE.FIELD`;
- decision fields: the output schema's keys (the zod object `{continue:...,hookSpecificOutput:..}`),
  its hookSpecificOutput's (the object starting `{hookEventName:`, one for every event:
  `hookSpecificOutput.FIELD`), and (heuristic) reads of hookSpecificOutput.FIELD;
- env vars (heuristic): common.env_beside FACTORY_PROJECT_DIR."""

from __future__ import annotations

import re
from pathlib import Path

from probes.agents import Agent
from probes.limits import BadFile
from probes.surface.common import env_beside, handler_schemas, longest_array, output_reads
from probes.surface.model import Item
from probes.surface.scan import Blob, first_file, mapped, object_keys

BINARIES = ["node_modules/@factory/cli-linux-x64/bin/droid", "node_modules/@factory/cli-linux-*/bin/droid"]
EVENTS_ANCHOR = 'the longest array literal of PascalCase names starting with "PreToolUse"'
HANDLER_RE = re.compile(rb'([\w$]{1,4})=[\w$]{1,4}\((\{)type:[\w$]{1,4}\("([a-z_]{1,30})"\)')
SCHEMA_RE = re.compile(rb'\{type:[\w$]{1,4}\("([a-z_]{1,30})"\)')
HANDLER_ANCHOR = "a hook handler's zod object {type:X(TYPE),...}, named in a matcher's hooks:ARRAY(NAME) just after it"
NAMED_WITHIN = 400  # bytes after a handler object where the matcher schema names it
OUTPUT_RE = re.compile(rb"\(\{continue:[\w$]{1,4}\(\)")
OUTPUT_ANCHOR = "a key of the hook output's zod object {continue:...,hookSpecificOutput:...}"
SPECIFIC_RE = re.compile(rb"\(\{hookEventName:[\w$]{1,4}[.(]")
SPECIFIC_ANCHOR = "a key of hookSpecificOutput's zod object {hookEventName:...} (one for every event)"
MAX_MATCHES = 5000
# 0.99.0 has no output schema: it copies each field off the parsed output by hand
COPY_RE = re.compile(rb"\(([\w$]{1,3})\.continue=([\w$]{1,3})\.continue(?:,\1\.\w{1,60}=\2\.\w{1,60}){0,20}")
COPY_FIELD_RE = re.compile(rb"[(,][\w$]{1,3}\.(\w{1,60})=[\w$]{1,3}\.(\w{1,60})")
COPY_ANCHOR = "a field copied off the parsed hook output (`z.continue=y.continue,...`, `z.hookSpecificOutput={...}`)"


def handlers(blob: Blob) -> list[Item]:
    matches = []
    for n, m in enumerate(HANDLER_RE.finditer(blob.data)):
        if n >= MAX_MATCHES:
            break
        _, end = object_keys(blob.data, m.start(2))
        named = re.compile(rb"hooks:[\w$]{1,4}\(" + re.escape(m.group(1)) + rb"\)")
        if end > 0 and named.search(blob.data, end, end + NAMED_WITHIN):
            found = SCHEMA_RE.match(blob.data, m.start(2))
            if found:
                matches.append(found)
    return handler_schemas(blob, matches, HANDLER_ANCHOR)


def outputs(blob: Blob) -> list[Item]:
    items: list[Item] = []
    for n, m in enumerate(OUTPUT_RE.finditer(blob.data)):
        if n >= MAX_MATCHES:
            break
        keys, _ = object_keys(blob.data, m.start() + 1)
        if any(k == "hookSpecificOutput" for k, _ in keys):
            items += [Item(kind="decision_field", name=k, file=blob.rel, offset=at, anchor=OUTPUT_ANCHOR) for k, at in keys]
            break
    if not items:
        items = copied(blob)
    specific = SPECIFIC_RE.search(blob.data)
    if specific:
        keys, _ = object_keys(blob.data, specific.start() + 1)
        items += [
            Item(kind="decision_field", name=f"hookSpecificOutput.{k}", file=blob.rel, offset=at, anchor=SPECIFIC_ANCHOR)
            for k, at in keys
            if k != "hookEventName"
        ]
    return items


def copied(blob: Blob) -> list[Item]:
    """Heuristic, where no output schema is found: `(z.continue=y.continue,z.X=y.X,...` and the
    keys of `z.hookSpecificOutput={...}` just after it."""
    m = COPY_RE.search(blob.data)
    if not m:
        return []
    items = [
        Item(
            kind="decision_field",
            name=f.group(1).decode(),
            file=blob.rel,
            offset=m.start() + f.start(1),
            anchor=COPY_ANCHOR,
            heuristic=True,
        )
        for f in COPY_FIELD_RE.finditer(m.group(0))
        if f.group(1) == f.group(2)
    ]
    specific = blob.data.find(m.group(1) + b".hookSpecificOutput={", m.end(), m.end() + 200)
    if specific >= 0:
        keys, _ = object_keys(blob.data, blob.data.find(b"{", specific))
        items += [
            Item(
                kind="decision_field",
                name=f"hookSpecificOutput.{k}",
                file=blob.rel,
                offset=at,
                anchor=COPY_ANCHOR,
                heuristic=True,
            )
            for k, at in keys
        ]
    return items


def read_blob(blob: Blob) -> list[Item]:
    """Everything the binary declares (the unit tests give it fake bytes)."""
    return (
        longest_array(blob, "PreToolUse", r"[A-Z][A-Za-z]{1,40}", EVENTS_ANCHOR)
        + handlers(blob)
        + outputs(blob)
        + output_reads(blob)
        + env_beside(blob, "FACTORY_PROJECT_DIR", ("FACTORY", "DROID", "CLAUDE"))
    )


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    rel = first_file(prefix, BINARIES)
    if rel is None:
        return [], [f"no binary found ({', '.join(BINARIES)})"]
    try:
        with mapped(prefix, rel) as blob:
            return read_blob(blob), []
    except BadFile as e:
        return [], [str(e)]
