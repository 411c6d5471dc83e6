"""Kilo Code CLI's hook surface: a fork of opencode with its plugin hooks, read as opencode's
(opencode.py) from its Bun-compiled binary `node_modules/@kilocode/cli-linux-x64/bin/kilo`."""

from __future__ import annotations

from pathlib import Path

from probes.agents import Agent
from probes.surface.model import Item
from probes.surface.opencode import read_binary

BINARIES = ["node_modules/@kilocode/cli-linux-x64/bin/kilo", "node_modules/@kilocode/cli-linux-*/bin/kilo"]


def read(agent: Agent, prefix: Path) -> tuple[list[Item], list[str]]:
    return read_binary(prefix, BINARIES)
