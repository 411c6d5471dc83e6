"""Typed errors. cli.py alone maps them to exit codes and prints their one line."""


class ProbeError(Exception):
    """Base: a message a person can act on, printed as one line."""

    exit_code = 1


class InputError(ProbeError):
    """Input that cannot be run: unknown agent or recipe, bad spec, unpublished version."""

    exit_code = 2


class HarnessError(ProbeError):
    """The harness itself could not finish (install failed, runner died, disk full)."""

    exit_code = 1
