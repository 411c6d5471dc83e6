"""Bounded reading of an installed package's files, and the scanners the per-agent readers share.

A file is opened only inside the install (every component of its path checked: no symlink
followed, a regular file, at most MAX_FILE bytes) and mapped read-only, so a 400 MB native
binary costs address space, not memory. The scanners read JavaScript and JSON by hand, as far
as an anchor needs (an array literal of strings, an object literal's keys, a TypeScript enum, a
JSON value): never evaluated, each walk bounded in bytes."""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from probes.limits import BadFile

MAX_FILE = 1 << 30  # Claude Code's native binary is ~400 MB, Codex's ~315 MB
OBJECT_MAX = 256 * 1024  # an object literal walked for its keys (Claude's hook schema: ~10 KiB)
JSON_MAX = 4 << 20  # one JSON value decoded from a file (Copilot's api.schema.json: ~1.5 MB)
BACK_MAX = 4096  # how far back an enclosing `{` is looked for

Buffer = bytes | mmap.mmap


@dataclass(frozen=True)
class Blob:
    """A file's bytes and its path relative to the install (what items name)."""

    rel: str
    data: Buffer


def safe_path(prefix: Path, rel: str) -> Path:
    """`prefix/rel` when no component under the prefix is a symlink and it stays inside."""
    path = prefix
    for part in Path(rel).parts:
        if part in ("..", "/", ""):
            raise BadFile(f"{rel}: climbs out of the install")
        path = path / part
        if path.is_symlink():
            raise BadFile(f"{rel}: {part} is a symlink; links out of the install are not followed")
    return path


@contextlib.contextmanager
def mapped(prefix: Path, rel: str) -> Iterator[Blob]:
    """The file `rel` of the install, mapped read-only; BadFile says why not."""
    path = safe_path(prefix, rel)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise BadFile(f"{rel}: cannot read: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadFile(f"{rel}: not a regular file")
        if st.st_size > MAX_FILE:
            raise BadFile(f"{rel}: {st.st_size} bytes, over the limit of {MAX_FILE}")
        if st.st_size == 0:
            yield Blob(rel, b"")
            return
        m = mmap.mmap(fd, st.st_size, prot=mmap.PROT_READ)
        try:
            yield Blob(rel, m)
        finally:
            m.close()
    finally:
        os.close(fd)


def first_file(prefix: Path, candidates: list[str]) -> str | None:
    """The first of `candidates` (relative, globs allowed) that names a regular file inside."""
    for pattern in candidates:
        for path in sorted(prefix.glob(pattern)):
            rel = str(path.relative_to(prefix))
            with contextlib.suppress(BadFile, OSError):
                safe_path(prefix, rel)
                if path.is_file():
                    return rel
    return None


# ---------------------------------------------------------------- JavaScript, by hand

STRING_ITEM = rb'"([^"\\\n]{1,200})"'


def string_arrays(data: Buffer, first: str, item: str = r"[A-Za-z][A-Za-z0-9_]*") -> list[tuple[int, list[tuple[str, int]]]]:
    """Every array literal of string literals whose first element is `first` and each element
    matches `item`: (offset of `[`, [(name, offset of its opening quote)])."""
    one = rb'"' + item.encode() + rb'"'
    pattern = rb"\[\s*\"" + re.escape(first.encode()) + rb"\"(?:\s*,\s*" + one + rb"){0,400}\s*\]"
    found = []
    for m in re.finditer(pattern, data):
        names = [(s.group(1).decode(), m.start() + s.start()) for s in re.finditer(STRING_ITEM, m.group(0))]
        found.append((m.start(), names))
    return found


IDENT = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
QUOTES = b"\"'`"
OPEN, CLOSE = b"([{", b")]}"


def _skip_string(data: Buffer, i: int, end: int) -> int:
    """The index after the string literal opening at `i` (escapes honoured)."""
    q = data[i]
    i += 1
    while i < end:
        c = data[i]
        if c == 92:  # backslash
            i += 2
            continue
        if c == q:
            return i + 1
        i += 1
    return end


def _skip_space(data: Buffer, i: int, end: int) -> int:
    while i < end:
        c = data[i : i + 2]
        if c[:1].isspace():
            i += 1
        elif c == b"/*":
            close = data.find(b"*/", i + 2, end)
            i = end if close < 0 else close + 2
        elif c == b"//":
            close = data.find(b"\n", i + 2, end)
            i = end if close < 0 else close + 1
        else:
            break
    return i


def object_keys(data: Buffer, start: int, limit: int = OBJECT_MAX) -> tuple[list[tuple[str, int]], int]:
    """The keys of the object literal whose `{` is at `start` ((key, offset) at its own
    level, identifiers and quoted keys followed by `:`), and the index after its `}` (-1 when
    it does not close within `limit` bytes)."""
    end = min(len(data), start + limit)
    keys: list[tuple[str, int]] = []
    depth, i, expect_key = 0, start, False
    while i < end:
        c = data[i]
        if depth == 1 and expect_key:
            i = _skip_space(data, i, end)
            if i >= end:
                break
            c = data[i]
            expect_key = False
            if c in QUOTES[:2]:
                close = _skip_string(data, i, end)
                after = _skip_space(data, close, end)
                if data[after : after + 1] == b":":
                    keys.append((bytes(data[i + 1 : close - 1]).decode("utf-8", "replace"), i + 1))
                i = close
                continue
            m = IDENT.match(data, i, end)
            if m:
                name = m.group(0).decode()
                j = i + len(name)
                after = _skip_space(data, j, end)
                if data[after : after + 1] == b":":
                    keys.append((name, i))
                i = j
                continue
        if c in QUOTES:
            i = _skip_string(data, i, end)
            continue
        if c in OPEN:
            depth += 1
            if depth == 1:
                expect_key = True
        elif c in CLOSE:
            depth -= 1
            if depth == 0:
                return keys, i + 1
        elif c == 44 and depth == 1:  # a comma: the next key
            expect_key = True
        i += 1
    return keys, -1


def enclosing_object(data: Buffer, pos: int, back: int = BACK_MAX) -> int | None:
    """The `{` of the innermost object literal around `pos` (braces counted backwards, strings
    not: a guess, checked by walking forward from it past `pos`)."""
    depth = 0
    for i in range(pos - 1, max(-1, pos - back - 1), -1):
        c = data[i]
        if c == 125:  # }
            depth += 1
        elif c == 123:  # {
            if depth == 0:
                _, end = object_keys(data, i)
                return i if end > pos else None
            depth -= 1
    return None


def ts_enum(data: Buffer, name: str) -> list[tuple[int, list[tuple[str, str, int]]]]:
    """A TypeScript enum as esbuild emits it, `var NAME = ((NAME2) => { NAME2["K"] = "v"; ...`,
    or as tsc does, `(function(NAME2) { NAME2["K"] = "v"; ... })(NAME || (NAME = {}))` (Qwen Code
    0.15): per definition (offset, [(member, value, offset of the value's quote)])."""
    n = re.escape(name.encode())
    head = rb"var " + n + rb" = /\* @__PURE__ \*/ \(\((\w+)\) => \{|\(function\s?\((" + n + rb"\d*)\)\s?\{"
    found = []
    for m in re.finditer(head, data):
        arrow = m.group(1) is not None
        end = data.find(b"return" if arrow else b"})(" + name.encode(), m.end(), m.end() + 20000)
        if end < 0:
            continue
        body = bytes(data[m.end() : end])
        members = [
            (e.group(1).decode(), e.group(2).decode(), m.end() + e.start(2) - 1)
            for e in re.finditer(re.escape(m.group(1) or m.group(2)) + rb'\["(\w+)"\] = "([^"\\]{1,200})"', body)
        ]
        found.append((m.start(), members))
    return found


def json_value(data: Buffer, start: int, limit: int = JSON_MAX) -> tuple[object, int] | None:
    """The JSON value starting at `start` and the byte index after it, or None."""
    raw = bytes(data[start : start + limit])
    text = raw.decode("utf-8", "replace")
    try:
        value, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    return value, start + len(text[:end].encode("utf-8", "replace"))


def quoted_at(data: Buffer, name: str, start: int, end: int) -> int | None:
    """The offset of `"name"` between start and end (the name, past its quote)."""
    at = data.find(b'"' + name.encode() + b'"', start, end)
    return None if at < 0 else at + 1
