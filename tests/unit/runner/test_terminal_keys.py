"""The keys the terminal driver presses in a dialog (probes/runner/terminal.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pyte
import pytest
from pydantic import ValidationError

from probes.catalog.parts import Action
from probes.pipeline.plan import TTY_KEYS
from probes.runner.terminal import Terminal


def pressed(mode_on: bool, key: str) -> str:
    screen = pyte.Screen(20, 5)
    if mode_on:
        pyte.Stream(screen).feed("\x1b[?1h")  # DECCKM: application cursor keys
    sent: list[str] = []
    Terminal.press(SimpleNamespace(screen=screen, send=sent.append), key)  # type: ignore[arg-type]
    return sent[0]


def test_an_arrow_is_sent_as_the_terminal_mode_spells_it():
    assert pressed(False, "\x1b[B") == "\x1b[B"
    assert pressed(True, "\x1b[B") == "\x1bOB"  # Claude Code's folder-trust dialog: ESC O B
    assert pressed(True, "\r") == "\r" and pressed(True, "\x1b") == "\x1b"


def test_keys_go_with_a_command_and_are_planned_as_the_terminal_sends_them():
    action = Action.model_validate({"command": "/add-dir ../tmp", "keys": ["down", "enter"]})
    assert [TTY_KEYS[k] for k in action.keys or []] == ["\x1b[B", "\r"]
    with pytest.raises(ValidationError, match="`keys` goes with a `command`"):
        Action.model_validate({"prompt": "hi", "keys": ["enter"]})
