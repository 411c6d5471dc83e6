"""The nightly version bump: shards, merge, bump reports, `probe versions` marks, and the
GitHub workflow (linted with actionlint, its commands run end to end on a small plan)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.catalog.recipes import load_all
from probes.cli import parser
from probes.errors import InputError
from probes.evidence import merge
from probes.sweep import matrix
from probes.versions.spec import Published, marked
from tests.helpers import WORKFLOW, probe_cmd, shard_tree, workflow_probe_commands


def catalog(versions=("1.0.71", "1.0.80", "1.0.92")) -> list[matrix.Cell]:
    return matrix.cells("copilot", list(versions), "all") + matrix.cells("claude", ["2.1.328"], "all")


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


def test_versions_marks_probed_prerelease_and_unserved():
    pub = Published(["1.0.1", "1.0.2-0", "1.0.2"], "1.0.2", ["1.0.0", "1.0.1", "1.0.2-0", "1.0.2"])
    rows = {r["version"]: r for r in marked(pub, probed=["1.0.1", "0.9.0"], cached=["1.0.2"])}
    assert list(rows) == ["0.9.0", "1.0.0", "1.0.1", "1.0.2-0", "1.0.2"]
    assert [v for v, r in rows.items() if r["unserved"]] == ["0.9.0", "1.0.0"]
    assert [v for v, r in rows.items() if r["probed"]] == ["0.9.0", "1.0.1"]
    assert [v for v, r in rows.items() if r["prerelease"]] == ["1.0.2-0"]
    assert [v for v, r in rows.items() if r["latest"]] == [v for v, r in rows.items() if r["cached"]] == ["1.0.2"]


def test_bump_without_evidence_or_from_is_one_line(tmp_path):
    proc = probe_cmd("bump", "--agent", "copilot", "--dry-run", results=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--from" in proc.stderr


def test_workflow_uses_only_probe_commands_that_exist():
    commands = workflow_probe_commands()
    assert {c[1] for c in commands} == {"nightly"}
    assert {c[2] for c in commands} == {"plan", "shard", "merge"}
    for argv in commands:
        parser().parse_args(argv[1:])  # an unknown command or flag raises


def test_the_workflow_plans_every_agent_by_default():
    """The scheduled night names all 12 agents; `all` from a person plans every agent too."""
    import yaml

    from probes.agents import AGENTS
    from probes.commands.nightly import agents_of

    doc = yaml.safe_load(WORKFLOW.read_text())
    default = doc["env"]["AGENTS"].removeprefix("${{ inputs.agents || '").removesuffix("' }}")
    assert default.split() == sorted(AGENTS) and len(AGENTS) == 12
    (plan,) = [c for c in workflow_probe_commands() if c[2] == "plan"]
    assert "--agent" not in plan  # the step adds one per name
    assert agents_of(parser().parse_args(plan[1:])) == sorted(AGENTS)


def test_the_workflow_uploads_the_shard_directory_and_merges_what_it_downloads():
    import yaml

    jobs = yaml.safe_load(WORKFLOW.read_text())["jobs"]
    (shard,) = [c for c in workflow_probe_commands() if c[2] == "shard"]
    out = shard[shard.index("--out") + 1]
    (upload,) = [s for s in jobs["probe"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["with"] == {"name": "${{ matrix.name }}", "path": out}  # the whole directory, every blob in it
    (down,) = [s for s in jobs["merge"]["steps"] if s.get("with", {}).get("pattern")]
    assert down["with"]["pattern"] == "shard-*" and down["with"]["path"] == "shards"
    (report,) = [s for s in jobs["merge"]["steps"] if s.get("id") == "report"]
    assert "shards/*" in report["run"] and "shopt -s nullglob" in report["run"]
