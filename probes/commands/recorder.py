"""`probe recorder AGENT DIR`: a hook config and a stdlib script logging every hook event on a
person's own machine (the work: probes/recorder.py; docs/recorder.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from probes.errors import Exit
from probes.recorder import write_recorder
from probes.versions.named import agent_named


def add_arguments(rec: argparse.ArgumentParser) -> None:
    rec.description = (
        "Write into DIR (new or empty) the agent's hook config registering a recorder script for "
        "every event, the script, and README.txt: copy them into a workspace, use the agent, bring the log back "
        "to `probe import` (docs/recorder.md)."
    )
    rec.add_argument("agent")
    rec.add_argument("dir", metavar="DIR")
    rec.add_argument("--python", default="python3", help="the interpreter's command in the hooks (default: python3; Windows: py)")


def handle(args: argparse.Namespace) -> int:
    agent = agent_named(args.agent)
    target = Path(args.dir)
    files = write_recorder(agent, target, args.python)
    for f in files:
        print(f)
    print(f"copy {target}'s contents into a workspace root; see {target / 'README.txt'}")
    return Exit.OK
