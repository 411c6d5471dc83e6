"""How wide the output may be: the terminal's width when a person reads it, no limit when a
pipe, a file or a committed results/*.md does (so those keep their bytes)."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap

NARROWEST = 40  # below this nothing lays out; a smaller COLUMNS is taken as this


def columns(wide: bool = False) -> int | None:
    """The width to fit: None (no limit) with --wide; COLUMNS when set; the terminal's when
    stdout is one; otherwise None, so a pipe or a file gets the full output byte for byte."""
    if wide:
        return None
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return max(NARROWEST, int(env))
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stdout
        tty = False
    if tty:
        return max(NARROWEST, shutil.get_terminal_size((100, 24)).columns)
    return None


def wrap(text: str, width: int | None, indent: str = "") -> str:
    """Each line of `text` filled to `width` (continuations start with `indent`); unchanged
    when `width` is None. Words longer than a line are cut, so no line is ever wider."""
    if width is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        out.extend(
            textwrap.wrap(
                line,
                width=width,
                subsequent_indent=indent if len(indent) < width else "",
                break_on_hyphens=False,
                break_long_words=True,
                replace_whitespace=False,
                expand_tabs=False,
            )
            or [""]
        )
    return "\n".join(out)
