"""results/FINDINGS.md: every finding carries machine-readable checks against the evidence,
and every figure, `code` span and "quoted" text in its prose appears in those checks.

A finding is a `### ` section. Its checks are HTML comments:

    <!-- check: copilot@1.0.71 stop-block-loop; observations.stop_invocations == 126; outcome == unbounded -->

Each assertion is `PATH == VALUE`, `PATH in [LOW, HIGH]` (a number within bounds; a figure
in the prose may be any number within such bounds) or `PATH contains "TEXT"` (a list holding
TEXT, or TEXT anywhere in the value's JSON). PATH is dotted through the resolved record
(`claims.0.verdict`); `*` is the whole record.

A check may name a range of the atlas instead of one record (docs/findings.md):

    <!-- check: copilot@1.0.0..1.0.7 *; invocation_count == 0 -->

every record of the agent from the first version to the last (both included, semver order)
whose recipe matches the globs (`*`, `ask-*`, `*-pretool,!ext-*`: one of them and no `!` one) in
the setup the check names (`*@config=user`;
none: the default), at least one; each must hold every assertion. It names each of them for
the unearned-verdict test; `probe compact` keeps none of them whole, so it asserts only what a
compact record keeps (label, observations, counts).
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest

from probes.agents import AGENTS
from probes.catalog.recipes import Recipe, load_all
from probes.catalog.setup import default
from probes.evidence import findings
from probes.evidence.load import load
from probes.evidence.model import Evidence, load_evidence
from probes.evidence.reclassify import with_setup
from tests.helpers import ROOT

RESULTS = ROOT / "results"
FINDINGS = RESULTS / "FINDINGS.md"

NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*")
CHECK = findings.CHECK


def sections() -> list[tuple[str, str, list[str]]]:
    return findings.sections(RESULTS)


def named(target: str, recipe: str) -> list[tuple[str, str, str]]:
    return findings.named(RESULTS, target, recipe)


assertions, holds, lookup = findings.assertions, findings.holds, findings.lookup


def figure(text: str) -> str:
    """A number as a value (15 and 15.0 are one figure); a version (1.0.71) as written."""
    return text if text.count(".") > 1 else repr(float(text))


ALL = [(title, body) for title, _, checks in sections() for body in checks]


def test_findings_exist_and_each_has_checks():
    found = sections()
    assert len(found) >= 10
    for title, _, checks in found:
        assert checks, f"finding {title!r} has no check"


@pytest.mark.parametrize(("title", "body"), ALL, ids=[f"{t[:30]}:{b[:50]}" for t, b in ALL])
def test_check_holds_against_the_evidence(title, body):
    target, recipe, parsed = assertions(body)
    records = named(target, recipe)
    assert records, f"{title}: {target} {recipe} names no record"
    for agent, version, stem in records:
        record = load_evidence(RESULTS / agent / version / f"{stem}.json")
        for path, op, raw in parsed:
            is_ = lookup(record, path)
            assert holds(record, path, op, raw), f"{title}: {agent}@{version} {stem} {path} {op} {raw} (is {is_!r})"


@pytest.mark.parametrize("section", sections(), ids=lambda s: s[0][:40] if isinstance(s, tuple) else "")
def test_prose_figures_and_quotes_come_from_checks(section):
    title, prose, checks = section
    checked = " ".join(checks)
    numbers = {figure(n) for n in NUMBER.findall(checked.replace("-", " ").replace("..", " "))}  # a range's ends
    ranges = [json.loads(r) for r in re.findall(r" in (\[[^]]*\])", checked)]
    for n in NUMBER.findall(prose):
        within = n.count(".") < 2 and any(low <= float(n) <= high for low, high in ranges)
        assert figure(n) in numbers or within, f"{title}: figure {n} is in no check"
    for code in re.findall(r"`([^`]+)`", prose):
        assert code in checked, f"{title}: `{code}` is in no check"
    for quote in re.findall(r'"([^"]+)"', prose):
        quote = " ".join(quote.split())  # a quotation may wrap across lines
        assert f'"{quote}"' in checked, f'{title}: "{quote}" is quoted in no check'


def test_checker_catches_a_wrong_figure():
    record = load_evidence(RESULTS / "copilot" / "1.0.71" / "stop-block-loop.json")
    assert holds(record, "observations.stop_invocations", "==", "126")
    assert not holds(record, "observations.stop_invocations", "==", "180")
    assert not holds(record, "*", "contains", '"no record holds this line"')


def test_table_leaves_findings_alone(tmp_path):
    dst = tmp_path / "results"
    shutil.copytree(RESULTS, dst, ignore=shutil.ignore_patterns("*.html"))
    before = (dst / "FINDINGS.md").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "probes.cli", "table", "--results", str(dst)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (dst / "FINDINGS.md").read_bytes() == before
    assert "FINDINGS" not in proc.stderr  # not warned about as a stray record
    assert load(dst, strict=True)  # the */*/*.json globs never see a top-level .md


def test_every_unearned_verdict_is_a_finding():
    """A committed verdict its control shares (the tables' `=ctl`) measures nothing: each one
    must be explained by a finding whose checks name that record."""
    checked = {(f"{a}@{v}", stem) for _, body in ALL for a, v, stem in named(*body.split(";")[0].split())}
    unexplained = [
        f"{c.agent}@{c.version} {c.recipe}"
        for c in load(RESULTS)
        if c.same_as_control and (f"{c.agent}@{c.version}", c.recipe) not in checked
    ]
    assert not unexplained, f"verdicts equal to their control's, in no finding: {unexplained}"


# The words a finding names a setup value by (docs/evidence.md, setup). The file's opening
# paragraph states the default setup; a finding that cites a record of another, or records of
# two values of one dimension, names each value it cites.
SETUP_WORDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("config", "project"): ("repository", "project", "workspace"),
    ("config", "user"): ("user-level",),
    ("config", "project-local"): ("settings.local.json",),
    ("config", "plugin"): ("plugin",),
    ("config", "claude-settings"): ("Claude's settings", ".claude/settings.json", "Claude Code's hook config"),
    ("config", "timeout-sec"): ("timeoutSec", "spelling"),
    ("session", "print"): ("-p", "exec", "prompt mode"),
    ("session", "interactive"): ("interactive",),
    ("permissions", "preapproved"): ("pre-approved", "pre-approval"),
    ("permissions", "none"): ("without pre-approval", "not pre-approved", "no pre-approval", "unreviewed", "untrusted"),
    ("rules", "none"): ("no permission rule", "no rule", "without a rule"),
    ("rules", "allow-bash"): ("allow rule", "permissions.allow"),
    ("rules", "ask-bash"): ("ask rule", "permissions.ask"),
    ("rules", "deny-bash"): ("deny rule", "permissions.deny"),
    ("rules", "ask-bash-echo"): ("Bash(echo:*)",),
    ("rules", "deny-bash-echo"): ("Bash(echo:*)",),
    ("sh", "dash"): ("dash",),
    ("sh", "bash"): ("bash",),
    ("sh", "busybox"): ("busybox",),
}


@functools.cache
def catalog() -> dict[str, Recipe]:
    return load_all()


def setup_of(record: dict[str, Any]) -> dict[str, str]:
    """The record's setup (records made before setups: the one probe reclassify fills in)."""
    if record.get("setup"):
        return dict(record["setup"])
    ev = with_setup(Evidence.model_validate(record), catalog().get(record["recipe"]), RESULTS / f"{record['recipe']}.json")
    return dict(ev.setup or {})


def test_the_default_setup_is_stated_once_at_the_top():
    head = FINDINGS.read_text(encoding="utf-8").split("### ")[0]
    for words in ("repository", "-p", "pre-approved", "dash"):
        assert words in head, f"the opening paragraph must state the default setup ({words!r})"


@pytest.mark.parametrize("section", sections(), ids=lambda s: s[0][:40] if isinstance(s, tuple) else "")
def test_a_finding_names_every_setup_it_speaks_beyond_the_default(section):
    title, prose, checks = section
    text = f"{title} {prose}"
    cited: dict[str, set[str]] = {}
    defaults: dict[str, set[str]] = {}
    for body in checks:
        for agent, version, stem in named(*assertions(body)[:2]):
            for k, v in setup_of(load_evidence(RESULTS / agent / version / f"{stem}.json")).items():
                cited.setdefault(k, set()).add(v)
                defaults.setdefault(k, set()).add(default(AGENTS[agent])[k])
    for k, values in cited.items():
        spoken = values if len(values) > 1 else values - defaults[k]
        for v in sorted(spoken):
            words = SETUP_WORDS.get((k, v), (v,))
            assert any(w in text for w in words), f"{title}: cites {k}={v} but never says so (one of {words})"


def test_a_range_check_names_each_record_of_its_range_and_setup():
    got = named("gemini@0.22.4..0.25.0", "*-pretool")
    assert ("gemini", "0.24.5", "hang-pretool") in got and ("gemini", "0.25.0", "crash-pretool") in got
    assert all(v in ("0.22.4", "0.24.5", "0.25.0") and "@" not in stem for _, v, stem in got)
    assert named("gemini@0.61.0", "hang-pretool") == [("gemini", "0.61.0", "hang-pretool")]
    assert not named("gemini@0.26.0..0.27.4", "*@config=nowhere")  # names nothing: its check fails
    assert named("gemini@0.22.4..0.25.0", "hang-*,crash-*,!crash-*") == named("gemini@0.22.4..0.25.0", "hang-*")
