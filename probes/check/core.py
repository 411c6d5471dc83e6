"""Temporary: cli.py's old import path, until probes/commands/check.py takes the command."""

from probes.check.command import cmd_check

__all__ = ["cmd_check"]
