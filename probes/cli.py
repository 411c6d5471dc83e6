"""The command line: a lazy table of commands, and the one error boundary. Each command is a
module under probes/commands/ (its arguments and its handler), imported only when it is the
command named, so `probe --help` and `probe run` load no other command's code. Errors become
one line and an exit code here alone (errors.Exit)."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, cast

from probes import __version__
from probes.errors import Exit, ProbeError, UsageError
from probes.stopping import STOPPING, Interrupted, on_stop_signals

# name -> its module, imported only when it is the command named; in --help's order
COMMANDS: dict[str, str] = {
    "run": "probes.commands.run",
    "check": "probes.commands.check",
    "list": "probes.commands.list_",
    "matrix": "probes.commands.matrix",
    "bump": "probes.commands.bump",
    "nightly": "probes.commands.nightly",
    "merge": "probes.commands.merge",
    "table": "probes.commands.table",
    "diff": "probes.commands.diff",
    "surface": "probes.commands.surface",
    "bisect": "probes.commands.bisect",
    "timeline": "probes.commands.timeline",
    "atlas": "probes.commands.atlas",
    "cite": "probes.commands.cite",
    "reclassify": "probes.commands.reclassify",
    "compact": "probes.commands.compact",
    "schema": "probes.commands.schema",
    "versions": "probes.commands.versions",
    "cache": "probes.commands.cache",
    "recorder": "probes.commands.recorder",
    "import": "probes.commands.import_",
}

# the line `probe --help` shows for each, so that --help imports no command's module
SUMMARIES: dict[str, str] = {
    "run": "run one recipe against one CLI version",
    "check": "run a repository's own hooks through the real CLI (docs/check.md)",
    "list": "recipes, with the agents each applies to",
    "matrix": "run recipes across versions of an agent, in parallel",
    "bump": "probe the releases newer than the newest probed one; report what changed",
    "nightly": "the nightly: plan, shard, merge (and `local`: a whole night here); docs/nightly.md",
    "merge": "combine evidence trees (e.g. shards) into one results tree",
    "table": "committed evidence: each recipe's verdicts as version ranges per agent",
    "diff": "what changed between two versions of an agent",
    "surface": "the hook surface a CLI version declares (events, handler types, fields, flags); --diff, --coverage",
    "bisect": "find the release where a recipe's verdict changed, in about log2(n) probes",
    "timeline": "a recipe's verdict as ranges of versions, boundaries exact or open",
    "atlas": "every recipe's timeline over each agent's window: --check reports gaps, else fill them",
    "cite": "a Markdown block an ADR can paste",
    "reclassify": "label committed evidence again with the current classifiers",
    "compact": "store records that only repeat their neighbours compact (docs/evidence.md)",
    "schema": "the JSON Schema of the evidence record (docs/evidence.schema.json)",
    "versions": "versions of an agent: latest, probed, cached, pre-release, unserved",
    "cache": "installed CLI versions: size, install time, last use; prune them",
    "recorder": "a hook config and a stdlib script logging every hook event on a person's own machine",
    "import": "a recorder's log as evidence (provenance recorded-by-person), apart from driven runs",
}


class Command(Protocol):
    """What a module under probes/commands/ provides."""

    def add_arguments(self, p: argparse.ArgumentParser) -> None: ...

    def handle(self, args: argparse.Namespace) -> int: ...


def load(name: str) -> Command:
    return cast(Command, importlib.import_module(COMMANDS[name]))


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and exit 2, from main(), not argparse's usage block
        raise UsageError(message)


if TYPE_CHECKING:
    SubParsers = argparse._SubParsersAction[Parser]
else:  # generic only to the type checker
    SubParsers = argparse._SubParsersAction


class Commands(SubParsers):
    """The subcommands' action: the named command's parser gets its arguments from its module
    only now, when it parses."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = str(values[0]) if isinstance(values, list) and values else ""
        sub = self._name_parser_map.get(name)
        if sub is not None and sub.get_default("handle") is None:  # not filled yet
            command = load(name)
            command.add_arguments(sub)
            sub.set_defaults(handle=command.handle)
        super().__call__(parser, namespace, values, option_string)


EXAMPLES = """examples:
  look it up (offline, from the committed evidence):
    probe table --recipe hang-pretool
    probe timeline copilot hang-pretool
    probe cite copilot@latest hang-pretool
  probe it (installs the exact CLI version from npm):
    probe run copilot@1.0.92 hang-pretool
  check your own hooks through the real CLI:
    probe check claude@latest --hooks examples/hooks --scenario shell-destructive
  find a recipe:
    probe list --agent claude --event stop

`probe COMMAND --help` for a command's options; every option: docs/commands.md"""


def parser() -> argparse.ArgumentParser:
    """Every command with its one line; a command's own arguments come with its module."""
    p = Parser(
        prog="probe",
        description="Empirical probes of AI coding-agent CLI hook systems.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"probe {__version__}")
    sub = p.add_subparsers(dest="command", required=True, action=Commands)
    for name in COMMANDS:
        sub.add_parser(name, help=SUMMARIES[name])
    return p


def main(argv: list[str] | None = None) -> int:
    # SIGINT and SIGTERM (Ctrl-C, `timeout`, a cancelled CI job) raise Interrupted once, in
    # this process only; every command unwinds from it within a bound (stopping.py)
    stopper = on_stop_signals()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `probe cite ... | head`: end quietly, as other tools do
    try:
        try:
            args = parser().parse_args(argv)
            handle: Callable[[argparse.Namespace], int] = args.handle
            status = handle(args)
            held = stopper.settle()
            if held:  # taken during a run directory's removal, and the command ended meanwhile
                raise Interrupted(held)
            return status
        except UsageError as e:
            print(f"probe: {e} (see probe --help)", file=sys.stderr)
            return e.exit_code
        except ProbeError as e:
            print(f"probe: {e}", file=sys.stderr)
            return e.exit_code
        except Exception as e:  # a bug: still one line (PROBE_DEBUG=1 shows the traceback)
            if os.environ.get("PROBE_DEBUG"):
                raise
            what = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            print(f"probe: internal error ({what}); PROBE_DEBUG=1 shows where", file=sys.stderr)
            return Exit.HARNESS
    except KeyboardInterrupt as e:  # also one that came while an error above was being said
        name = e.name if isinstance(e, Interrupted) else "SIGINT"
        print(f"probe: interrupted ({name}); no evidence written for the unfinished probe", file=sys.stderr, flush=True)
        return Exit.INTERRUPTED
    finally:
        if argv is None:  # the command line's own process: the interpreter's exit resets handlers to
            for s in STOPPING:  # the default (a signal now would end it as killed), but not SIG_IGN
                signal.signal(s, signal.SIG_IGN)


if TYPE_CHECKING:  # mypy checks that every command's module has the Command shape
    from probes.commands import (
        atlas,
        bisect,
        bump,
        cache,
        check,
        cite,
        diff,
        import_,
        list_,
        matrix,
        merge,
        nightly,
        reclassify,
        recorder,
        run,
        schema,
        surface,
        table,
        timeline,
        versions,
    )

    _SHAPED: list[Command] = [
        run,
        check,
        list_,
        matrix,
        bump,
        nightly,
        merge,
        table,
        diff,
        surface,
        bisect,
        timeline,
        atlas,
        cite,
        reclassify,
        schema,
        versions,
        cache,
        recorder,
        import_,
    ]


if __name__ == "__main__":
    sys.exit(main())
