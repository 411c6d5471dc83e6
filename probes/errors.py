"""Every exit code, and the typed errors that carry them. cli.py alone maps errors to exit
codes and prints their one line."""

from enum import IntEnum


class Exit(IntEnum):
    """What `probe` exits with (README, Commands)."""

    OK = 0
    HARNESS = 1  # the harness itself could not finish (for matrix and bump: a cell could not run)
    INPUT = 2  # input that cannot run: one line on stderr, nothing written
    VERDICTS_CHANGED = 3  # probe bump: some recipe's label changed
    NOT_AS_EXPECTED = 4  # probe check --strict: a hook, or a command, not as expected
    INTERRUPTED = 130  # SIGINT or SIGTERM: nothing half-written


class ProbeError(Exception):
    """Base: a message a person can act on, printed as one line."""

    exit_code = Exit.HARNESS


class InputError(ProbeError):
    """Input that cannot be run: unknown agent or recipe, bad spec, unpublished version."""

    exit_code = Exit.INPUT


class UsageError(ProbeError):
    """A command line that does not parse: printed as one line, with a pointer to --help."""

    exit_code = Exit.INPUT


class HarnessError(ProbeError):
    """The harness itself could not finish (install failed, runner died, disk full)."""

    exit_code = Exit.HARNESS


class HostError(HarnessError):
    """The host failed, not the release (a full disk, an install npm left without its native
    binary): a search stops here rather than file the release as one that cannot run."""
