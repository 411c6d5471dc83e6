"""report/width.py: the terminal's width, or no limit for a pipe."""

from __future__ import annotations

import pytest

from probes.report.width import NARROWEST, columns, wrap


def test_columns_reads_columns_env_and_wide_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert columns() == 100
    assert columns(wide=True) is None
    monkeypatch.setenv("COLUMNS", "10")
    assert columns() == NARROWEST


def test_columns_is_no_limit_for_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert columns() is None  # pytest captures stdout: not a terminal


def test_wrap_fits_and_keeps_short_lines() -> None:
    text = "hang-pretool  A pre-tool hook hangs past its timeout; does the tool run, when, and is it killed?"
    out = wrap(text, 40, indent="    ")
    assert all(len(line) <= 40 for line in out.splitlines())
    assert out.splitlines()[1].startswith("    ")
    assert wrap("  a  b\nc", 40) == "  a  b\nc"
    assert wrap(text, None) == text
    assert max(map(len, wrap("x" * 100, 40).splitlines())) == 40
