"""`probe nightly`'s own logic without a CLI: the plan's groups, setups, shards and pending
cells, a shard's delivery, the merge of artifacts (a refused or missing one reported, the
rest landed) and the report. The whole night, as the workflow runs it: tests/real/test_nightly.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.catalog.recipes import load_all
from probes.errors import InputError
from probes.evidence import findings
from probes.sweep import nightly
from probes.sweep.night_merge import land
from probes.sweep.night_report import report
from probes.sweep.night_shard import MANIFEST, CellDone, ShardReport, deliver, fingerprint
from probes.versions.spec import Published
from tests.helpers import RESULTS, copy_record, shard_tree

OLD, NEW = "2.1.331", "2.1.332"
RECIPES = ["exit2-pretool", "ask-pretool"]


def night_tree(tmp_path: Path, name: str = "results") -> Path:
    """Claude's records of two recipes and their controls on 2.1.331, and a held setup of
    ask-pretool on 2.1.231; 2.1.332 missing (the new release)."""
    cells = [f"claude/{OLD}/{r}" for r in ("exit2-pretool", "exit2-pretool-control", "ask-pretool", "deny-json-pretool-control")]
    cells += ["claude/2.1.231/ask-pretool@permissions=bypassPermissions"]
    return shard_tree(tmp_path, name, *cells)


def a_plan(results: Path, shards: int = 2) -> nightly.NightPlan:
    pub = Published([OLD, NEW], NEW)
    a = nightly.plan_agent("claude", results, RECIPES, shards, published=pub, atlas=False)
    return nightly.NightPlan(
        recipes=RECIPES,
        agents=[a],
        matrix=[nightly.Job(agent="claude", shard=s.shard, name=f"shard-claude-{s.shard[0]}") for s in a.shards],
    )


def test_a_recipe_and_every_recipe_sharing_its_control_are_one_group():
    groups = nightly.groups_of(load_all(), "claude", ["ask-pretool", "deny-json-pretool", "exit2-pretool"])
    assert groups["ask-pretool"] == ["ask-pretool", "deny-json-pretool", "deny-json-pretool-control"]
    assert groups["exit2-pretool"] == ["exit2-pretool", "exit2-pretool-control"]


def test_a_group_runs_in_its_declared_setups_and_those_held_on_any_release():
    recipes = load_all()
    keys = nightly.group_setups(recipes, "claude", ["ask-pretool", "deny-json-pretool-control"], {})
    assert keys[0] == "" and "permissions=bypassPermissions" in keys and "rules=deny-bash" in keys
    held = nightly.group_setups(recipes, "claude", ["exit2-pretool", "exit2-pretool-control"], {"exit2-pretool": {"sh=bash"}})
    assert held == ["", "sh=bash"]


def test_the_plan_has_every_cell_of_the_new_release_with_controls_and_setups(tmp_path):
    results = night_tree(tmp_path)
    night = a_plan(results)
    (a,) = night.agents
    assert a.start == OLD and a.baseline == OLD and a.versions == [NEW]
    stems = {c.stem for c in a.cells}
    assert {"exit2-pretool", "exit2-pretool-control", "ask-pretool", "deny-json-pretool-control"} <= stems
    assert {"ask-pretool@permissions=bypassPermissions", "deny-json-pretool-control@permissions=bypassPermissions"} <= stems
    assert all(c.version == NEW and c.cost_s > 0 for c in a.cells)
    # the shards partition the groups: every cell in exactly one, a recipe with its control
    owned = [c.stem for s in a.shards for c in a.cells_of(s.shard)]
    assert sorted(owned) == sorted(c.stem for c in a.cells)
    for s in a.shards:
        mine = {c.recipe for c in a.cells_of(s.shard)}
        assert ("exit2-pretool" in mine) == ("exit2-pretool-control" in mine)
    assert nightly.read(write(tmp_path / "plan.json", night.model_dump_json())) == night


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_a_release_recorded_unrunnable_is_not_planned(tmp_path):
    results = night_tree(tmp_path)
    (results / "claude" / "unrunnable.json").write_text(json.dumps({"agent": "claude", "releases": {NEW: "npm E404"}}))
    (a,) = a_plan(results).agents
    assert a.skipped == {NEW: "npm E404"} and not a.cells and not a.shards


def test_shards_are_balanced_and_deterministic():
    costs = {"a": 660.0, "b": 5.0, "c": 5.0, "d": 300.0, "e": 290.0}
    assert nightly.balance(costs, 2) == [["a"], ["b", "c", "d", "e"]]
    assert nightly.balance(costs, 2) == nightly.balance(dict(reversed(costs.items())), 2)


@pytest.mark.parametrize(
    "text", ["[]", "{", '{"cells": [{"version": 1}]}', '{"cells": [{"version": "1", "recipe": "x", "evil": 1}]}']
)
def test_a_bad_pending_file_is_warned_about_and_ignored(tmp_path, capsys, text):
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / nightly.PENDING).write_text(text)
    assert nightly.read_pending(tmp_path, "claude") == []
    assert "pending" in capsys.readouterr().err


def test_pending_cells_round_trip_and_the_file_goes_when_none_is_left(tmp_path):
    cells = [nightly.PlannedCell(version=NEW, recipe="ask-pretool", setup="rules=deny-bash")]
    nightly.write_pending(tmp_path, "claude", cells)
    assert nightly.read_pending(tmp_path, "claude") == cells
    nightly.write_pending(tmp_path, "claude", [])
    assert not (tmp_path / "claude" / nightly.PENDING).exists()


@pytest.mark.parametrize("text", ["{", "[]", '{"recipes": [], "agents": [], "matrix": [], "x": 1}'])
def test_a_bad_plan_is_one_line(tmp_path, text):
    with pytest.raises(InputError, match="--plan"):
        nightly.read(write(tmp_path / "plan.json", text))


def artifact(tmp_path: Path, name: str, shard: str, cells: list[str], results: Path) -> Path:
    """A shard's artifact as `probe nightly shard` delivers it: new records (copied from the
    committed 2.1.332) with every blob they refer to, and shard.json."""
    runner = tmp_path / f"runner-{name}"
    runner.mkdir()
    before = fingerprint(results, "claude")
    import shutil

    shutil.copytree(results, runner / "results")
    for cell in cells:
        copy_record(RESULTS / "claude" / NEW / f"{cell}.json", runner / "results" / "claude" / NEW / f"{cell}.json")
    out = tmp_path / "upload" / name
    out.mkdir(parents=True)
    assert deliver(runner / "results", "claude", before, out) >= len(cells)
    done = [CellDone(version=NEW, recipe=c.split("@")[0], setup=c.partition("@")[2], status="done") for c in cells]
    (out / MANIFEST).write_text(ShardReport(agent="claude", shard=shard, cells=done).model_dump_json())
    return out


def test_a_night_lands_what_was_delivered_and_keeps_the_rest_pending(tmp_path):
    results = night_tree(tmp_path)
    night = a_plan(results)
    (a,) = night.agents
    first = a.shards[0].shard
    mine = [c.stem for c in a.cells_of(first)]
    good = artifact(tmp_path, "good", first, mine, results)
    bad = tmp_path / "upload" / "bad"
    bad.mkdir()
    (bad / MANIFEST).write_text("{not json")
    landed = land(night, [good, bad], results, compact=False)
    assert set(landed.shards) == {("claude", first)}
    assert landed.refused and "not a shard report" in landed.refused[0][1]
    assert [j.shard for j in landed.missing_jobs] == [s.shard for s in a.shards[1:]]
    for stem in mine:  # landed with its blobs: read back whole
        assert (results / "claude" / NEW / f"{stem}.json").is_file()
    left = {c.stem for c in nightly.read_pending(results, "claude")}
    assert left == {c.stem for c in a.cells} - set(mine) and left
    text, changed = report(landed, results)
    assert changed == 0 and "## Not delivered" in text and "pending.json" in text
    assert f"Every record of claude {NEW}" in text and "sha256" in text


def test_a_findings_check_that_stops_holding_is_a_change():
    was = [findings.Truth("t", "claude@1 x; outcome == a", True), findings.Truth("t", "claude@2 x; outcome == a", True)]
    now = [findings.Truth("t", "claude@1 x; outcome == a", True), findings.Truth("t", "claude@2 x; outcome == a", False, "why")]
    assert findings.changed(was, now) == [(was[1], now[1])]
    assert findings.changed(was, was) == []


def test_a_change_is_against_the_record_before_the_night_at_the_boundary_a_bisection_found(tmp_path):
    """Claude Code's ask-pretool: allowed on 2.1.84, denied from 2.1.85 (FINDINGS). With 2.1.87
    new and 2.1.85 probed by the night's bisection, the change is said against 2.1.84, at 2.1.85."""
    from probes.evidence.load import load
    from probes.sweep.night_report import changes_of

    tree = shard_tree(tmp_path, "r", *[f"claude/{v}/ask-pretool" for v in ("2.1.84", "2.1.85", "2.1.87")])
    a = nightly.AgentPlan(
        agent="claude",
        start="2.1.84",
        baseline="2.1.84",
        snapshot=["2.1.84", "2.1.85", "2.1.86", "2.1.87"],
        versions=["2.1.87"],
        cells=[],
        groups={"ask-pretool": ["ask-pretool"]},
        shards=[],
    )
    night = {("claude", v, "ask-pretool") for v in ("2.1.85", "2.1.87")}
    (change,) = changes_of(a, load(tree, "claude"), night)
    assert (change.before.version, change.before.label, change.after.label) == ("2.1.84", "allowed", "denied")
    assert change.boundary == "2.1.85 (exact: the release after 2.1.84)"
    assert changes_of(a, load(tree, "claude")) == []  # against 2.1.85 nothing changed
