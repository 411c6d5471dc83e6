"""`probe --help` shows what to type; the README's sample summary is the summary's rows."""

from __future__ import annotations

import re

from probes.cli import COMMANDS, EXAMPLES, parser
from tests.helpers import ROOT


def test_help_ends_with_examples_of_real_commands():
    text = parser().format_help()
    assert "examples:" in text and "probe run copilot@1.0.92 hang-pretool" in text
    commands = [ln.split()[1] for ln in EXAMPLES.splitlines() if ln.startswith("    probe ")]
    assert len(commands) >= 6 and set(commands) <= set(COMMANDS)


def test_run_help_explains_the_backend():
    from probes.commands import run

    p = parser()
    sub = p._subparsers._group_actions[0]  # type: ignore[union-attr]
    run_parser = sub.choices["run"]
    run.add_arguments(run_parser)
    assert "namespaces on this host" in " ".join(run_parser.format_help().split())


def test_readme_sample_summary_has_the_summary_rows():
    from tests.unit.report.test_answer import ROWS

    readme = (ROOT / "README.md").read_text()
    sample = readme[readme.index("It prints") :].split("\n\n")[1]
    names = [m.group(1) for m in re.finditer(r"^    (\w[\w ]*?)  +\S", sample, re.M)]
    assert names[: len(ROWS)] == ROWS and names[-2:] == ["observations", "evidence"]
