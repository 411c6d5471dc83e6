"""`probe check AGENT@VERSION --hooks DIR`: a repository's own hooks through the real CLI
(docs/check.md). The work is probes/check/."""

from __future__ import annotations

import argparse

from probes.agents import AGENTS
from probes.check.command import cmd_check
from probes.commands.options import add_json, add_results
from probes.versions.spec import bare_versions


def add_arguments(c: argparse.ArgumentParser) -> None:
    agents = " or ".join(AGENTS)
    c.description = (
        "Copy DIR (the agent's hook config and its scripts) into a fresh workspace, watch each "
        "configured command run (the config as written), play a scenario (or your --command lines) with and "
        "without the hooks, and give each hook a verdict. Exit 4 with --strict when a hook is not as its "
        "scenario expects, or a command not as --expect says."
    )
    c.add_argument("spec", metavar="AGENT@VERSION", help=f"AGENT is {agents}; VERSION an exact published version or latest")
    c.add_argument("--hooks", required=True, metavar="DIR", help="a folder laid out like the repository (.github/hooks, .claude)")
    c.add_argument(
        "--versions",
        type=bare_versions,
        help="instead of the spec's version: LIST (1.0.80,1.0.81), RANGE (1.0.80..1.0.92) or latest:N",
    )
    c.add_argument("--scenario", help="a built-in scenario (docs/check.md) or a YAML file (default: shell)")
    c.add_argument(
        "--command",
        action="append",
        metavar="CMD",
        help="a shell command the model runs (repeatable, in order): a scenario of your own commands",
    )
    c.add_argument(
        "--expect",
        action="append",
        choices=["blocked", "allowed"],
        help="one per --command, in order: what --strict requires of it (its command did not run, or ran)",
    )
    c.add_argument(
        "--strict",
        action="store_true",
        help="exit 4 when a hook is broken, ignored, or not fired where expected, or a command not as --expect says",
    )
    c.add_argument("--progress", action="store_true", help="say each long step on stderr even when it is not a terminal")
    add_results(c, "evidence directory (default: ./probe-check)")
    c.set_defaults(results="probe-check")
    add_json(c, "print the verdicts as JSON (a list with --versions)")


def handle(args: argparse.Namespace) -> int:
    return cmd_check(args)
