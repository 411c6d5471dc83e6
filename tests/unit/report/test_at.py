"""`probe table --recipe R --at AGENT@V` (probes/report/at.py): a release's answer from the range
that holds it, an open boundary or outside what was probed said as such, on built record sets."""

from __future__ import annotations

import json
from pathlib import Path

from probes.evidence.load import load
from probes.report.at import answers, run_line
from tests.helpers import probe_cmd
from tests.synthetic import write_points, write_published

RELEASES = [f"1.0.{i}" for i in range(12)]
RECIPE = "exit2-pretool"


def built(tmp_path: Path) -> Path:
    """allowed 1.0.2-1.0.5 | (open) | denied 1.0.8-1.0.9, and one other setup's row."""
    results = tmp_path / "results"
    write_published(results, "copilot", RELEASES)
    write_points(results, "copilot", RECIPE, {"1.0.2": "allowed", "1.0.5": "allowed", "1.0.8": "denied", "1.0.9": "denied"})
    write_points(results, "copilot", f"{RECIPE}@config=user", {"1.0.1": "denied", "1.0.9": "denied"})
    return results


def kinds(results: Path, version: str) -> list[tuple[str, str]]:
    cells = load(results, "copilot", RECIPE, setups=True)
    return [(a.recipe, a.kind) for a in answers(cells, "copilot", version, {}, RELEASES)]


def test_each_release_gets_its_range_or_says_why_not(tmp_path):
    results = built(tmp_path)
    assert kinds(results, "1.0.3") == [(RECIPE, "range"), (f"{RECIPE}@config=user", "range")]
    assert kinds(results, "1.0.5")[0] == (RECIPE, "probed")
    assert kinds(results, "1.0.6")[0] == (RECIPE, "open")
    assert kinds(results, "1.0.1")[0] == (RECIPE, "before")
    assert kinds(results, "1.0.11") == [(RECIPE, "after"), (f"{RECIPE}@config=user", "after")]


def test_the_answer_names_the_range_and_the_probed_versions_it_rests_on(tmp_path):
    cells = load(built(tmp_path), "copilot", RECIPE)
    a = answers(cells, "copilot", "1.0.3", {}, RELEASES)[0]
    assert a.answered and (a.first, a.last, a.probed_at, a.verdict) == ("1.0.2", "1.0.5", ["1.0.2", "1.0.5"], "allowed")
    assert a.text.startswith("copilot 1.0.3 lies in 1.0.2–1.0.5 where exit2-pretool was 'allowed'; probed at 1.0.2 and 1.0.5")
    gap = answers(cells, "copilot", "1.0.7", {}, RELEASES)[0]
    assert (
        not gap.answered
        and "open boundary" in gap.text
        and "probe bisect copilot exit2-pretool --from 1.0.5 --to 1.0.8" in gap.text
    )


def test_run_line_spells_a_setup_as_setup_options():
    assert run_line("claude", "2.1.50", "ask-pretool@permissions=none,rules=ask-bash") == (
        "probe run claude@2.1.50 ask-pretool --setup permissions=none --setup rules=ask-bash"
    )


def test_table_at_command_exit_status_json_and_bad_input(tmp_path):
    results = built(tmp_path)
    got = probe_cmd("table", "--recipe", RECIPE, "--at", "copilot@1.0.4", results=results)
    assert got.returncode == 0, got.stderr
    assert got.stdout.splitlines()[0].startswith("copilot 1.0.4 lies in 1.0.2–1.0.5")
    doc = json.loads(probe_cmd("table", "--recipe", RECIPE, "--at", "copilot@1.0.6", "--format", "json", results=results).stdout)
    assert doc[0]["kind"] == "open" and doc[0]["answered"] is False and doc[0]["verdict"] is None
    gap = probe_cmd("table", "--recipe", RECIPE, "--at", "copilot@1.0.6", results=results)
    assert gap.returncode == 1 and "no answer" in gap.stdout
    for args, said in (
        (["--at", "copilot@1.0.4"], "give --recipe"),
        (["--recipe", RECIPE, "--at", "copilot@1.0.99"], "not a version the registry served"),
        (["--recipe", RECIPE, "--at", "copilot@1.0.4", "--agent", "claude"], "name one agent"),
        (["--recipe", "hang-pretool", "--at", "copilot@1.0.4"], "no evidence"),
    ):
        bad = probe_cmd("table", *args, results=results)
        assert bad.returncode == 2 and said in bad.stderr and bad.stderr.count("\n") == 1, (args, bad.stderr)


def test_a_release_kept_as_unrunnable_says_so(tmp_path):
    from probes.evidence import unrunnable
    from probes.report.at import at_release

    results = built(tmp_path)
    unrunnable.record(results, "copilot", {"1.0.6": "needs Node.js 24"})
    got = at_release(results, RECIPE, "copilot@1.0.6")[0]
    assert got.kind == "open" and got.text.endswith("; 1.0.6 could not run: needs Node.js 24")
