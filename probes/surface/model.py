"""One declared item of a hook surface, and a version's whole surface. Each item says where it
was found, so a reader can check it: a file relative to the install and the byte offset of the
name in it, or the `--help` command and the line that shows it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Kind = Literal["event", "handler_type", "handler_field", "decision_field", "env", "flag"]
KINDS: tuple[Kind, ...] = ("event", "handler_type", "handler_field", "decision_field", "env", "flag")
# How each kind is named in text: "12 events", "5 handler types".
PLURAL: dict[str, str] = {
    "event": "events",
    "handler_type": "handler types",
    "handler_field": "handler fields",
    "decision_field": "decision fields",
    "env": "env vars",
    "flag": "flags",
}


class Item(BaseModel):
    """A name the installed package declares. Names are as the CLI spells them; a handler
    field is `TYPE.FIELD` (`command.async`), a decision field `FIELD` or `EVENT.FIELD` (inside
    that event's hookSpecificOutput), a flag `--name` or `SUBCOMMAND --name`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind
    name: str
    file: str | None = None  # relative to the install prefix
    offset: int | None = None  # byte offset of the name (or its anchor) in `file`
    help: str | None = None  # the command whose --help showed it, e.g. "claude mcp --help"
    line: str | None = None  # that --help line, stripped
    anchor: str  # what was matched, in words: "the longest array literal of PascalCase names starting with PreToolUse"
    heuristic: bool = False  # True: a loose match that may include names that are not hook surface

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)

    def where(self) -> str:
        if self.file is not None:
            return f"{self.file}@{self.offset}"
        return f"`{self.help}`: {self.line}"


class Surface(BaseModel):
    """Everything read from one installed version."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    version: str
    items: list[Item]
    notes: list[str] = []  # what could not be read, and why (no such file, a --help that failed)

    def of(self, kind: str) -> list[Item]:
        return [i for i in self.items if i.kind == kind]

    def counts(self) -> dict[str, int]:
        return {k: len(self.of(k)) for k in KINDS}


def dedupe(items: list[Item]) -> list[Item]:
    """The first item of each (kind, name), in order: a name declared twice is one item, at its
    first (most precise: readers list precise anchors first) place."""
    seen: set[tuple[str, str]] = set()
    out = []
    for i in items:
        if i.key not in seen:
            seen.add(i.key)
            out.append(i)
    return out
