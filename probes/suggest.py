""" "Perhaps you meant ...": the nearest known names to a mistyped one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def perhaps(word: str, known: Iterable[str]) -> str:
    """`. Perhaps you meant X?` (or `X or Y?`, at most three, nearest first) to append to an
    error about an unknown `word`; empty when no known name is close."""
    close = difflib.get_close_matches(word[:100], sorted(known), n=3, cutoff=0.6)
    if not close:
        return ""
    return f". Perhaps you meant {' or '.join(close) if len(close) < 3 else f'{close[0]}, {close[1]} or {close[2]}'}?"
