"""The atlas (probes/sweep/atlas.py, atlas_fill.py; catalog/windows.py): windows read and refused,
coverage over a window from built record sets (our own records, no CLI), the --check command,
and the deterministic shards of (agent, recipe) pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.catalog import windows
from probes.catalog.recipes import load_all
from probes.errors import InputError
from probes.evidence.load import load
from probes.sweep import atlas
from probes.sweep.atlas_fill import sharded
from tests.helpers import probe_cmd
from tests.synthetic import write_points, write_published

RELEASES = [f"1.0.{i}" for i in range(10)]
RECIPE, CONTROL = "exit2-pretool", "exit2-pretool-control"


def window_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "windows.yaml"
    path.write_text(text)
    return path


def built(tmp_path: Path, points: dict[str, str], controls: list[str] | None = None) -> Path:
    """A results tree: the recipe on `points`, its control on `controls` (default: the same versions)."""
    results = tmp_path / "results"
    write_published(results, "copilot", [*RELEASES, "1.0.10-0"])
    write_points(results, "copilot", RECIPE, points, control=CONTROL)
    chosen = list(points) if controls is None else controls
    write_points(results, "copilot", CONTROL, {v: "allowed" for v in chosen})
    return results


def cover(results: Path, start: str = "1.0.0", pinned: list[str] | None = None) -> atlas.Coverage:
    win = windows.Window.model_validate({"from": start, "pinned": pinned or []})
    snap = [*RELEASES, "1.0.10-0"]
    return atlas.coverage(load(results, "copilot"), "copilot", RECIPE, CONTROL, windows.span("copilot", win, snap), snap)


def test_the_shipped_windows_are_valid_and_inside_their_snapshots():
    from probes.report.timeline import read_snapshot
    from tests.helpers import RESULTS

    wins = windows.load()
    assert set(wins) == {"copilot", "claude", "codex", "gemini", "qwen", "droid", "pi", "cline", "auggie", "kilo", "opencode"}
    for agent, w in wins.items():
        snap = read_snapshot(RESULTS, agent)
        assert snap is not None and w.start in snap, agent  # `from` is a release the registry served
        assert w.pinned == sorted(w.pinned, key=lambda v: tuple(map(int, v.split("."))))
    assert "1.0.60" in wins["copilot"].pinned and "2.1.199" in wins["claude"].pinned


@pytest.mark.parametrize(
    "text, said",
    [
        ("copilot: [", "not YAML"),
        ("- copilot", "expected AGENT"),
        ("cursor: {from: 1.0.0}", "unknown agent 'cursor'"),
        ("copilot: {from: latest}", "copilot.from"),
        ("copilot: {from: 1.0.80-0}", "not an exact release"),
        ("copilot: {from: 1.0.0, pinned: [1.0.1, 1.0.1]}", "twice"),
        ("copilot: {from: 1.0.0, until: 1.0.9}", "copilot.until"),
        ("copilot: {pinned: []}", "copilot.from"),
    ],
)
def test_a_bad_windows_file_is_one_line(tmp_path, text, said):
    with pytest.raises(InputError) as e:
        windows.load(window_file(tmp_path, text))
    assert said in str(e.value) and "\n" not in str(e.value)


def test_the_command_refuses_a_bad_windows_file_with_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_WINDOWS", str(window_file(tmp_path, "copilot: {from: x}")))
    got = probe_cmd("atlas", "--check", results=tmp_path)
    assert got.returncode == 2 and got.stderr.count("\n") == 1 and "invalid windows file" in got.stderr


def test_a_span_is_the_releases_from_its_start_narrowed_on_request():
    win = windows.Window.model_validate({"from": "1.0.3", "pinned": ["1.0.1", "1.0.5"]})
    s = windows.span("copilot", win, [*RELEASES, "1.0.10-0"])
    assert s.releases == RELEASES[3:] and s.pinned == ["1.0.1", "1.0.5"]  # no pre-release; pinned kept outside
    narrow = windows.span("copilot", win, RELEASES, "1.0.4", "1.0.6")
    assert narrow.releases == ["1.0.4", "1.0.5", "1.0.6"] and narrow.pinned == ["1.0.5"]
    with pytest.raises(InputError, match="holds no release"):
        windows.span("copilot", win, RELEASES, "1.0.20")


def test_a_complete_timeline_has_its_ends_probed_its_boundaries_exact_and_its_controls(tmp_path):
    c = cover(built(tmp_path, {"1.0.0": "allowed", "1.0.4": "allowed", "1.0.5": "denied", "1.0.9": "denied"}))
    assert c.complete and not c.opened and c.probes_needed == 0
    assert [(s.value, s.first, s.last) for s in c.segments] == [("allowed", "1.0.0", "1.0.4"), ("denied", "1.0.5", "1.0.9")]


def test_an_open_boundary_names_the_unprobed_releases_between_and_the_halvings_it_needs(tmp_path):
    c = cover(built(tmp_path, {"1.0.0": "allowed", "1.0.9": "denied"}))
    assert [(o.before, o.after, o.between) for o in c.opened] == [("1.0.0", "1.0.9", RELEASES[1:9])]
    assert not c.complete and c.probes_needed == 2 * 4  # ceil(log2(9)) halvings, each with its control


def test_unprobed_ends_missing_controls_and_pinned_versions(tmp_path):
    results = built(tmp_path, {"1.0.3": "denied", "1.0.5": "denied"}, controls=["1.0.3"])
    c = cover(results, pinned=["1.0.4", "1.0.5", "1.0.77"])
    assert c.head == ["1.0.0", "1.0.1", "1.0.2"] and c.tail == ["1.0.6", "1.0.7", "1.0.8", "1.0.9"]
    assert c.control_missing == ["1.0.5"] and c.pinned_unprobed == ["1.0.4"] and c.pinned_unserved == ["1.0.77"]
    assert c.probes_needed == 2 * (1 + 1) + 1  # the pinned 1.0.4 inside the window: its range answers it
    assert c.pinned_inside == ["1.0.4"] and c.pinned_outside == [] and c.pinned_probes == 2
    line = atlas.recipe_text(c)
    assert "unprobed start 1.0.0-1.0.2 (3)" in line and f"no control {CONTROL} on 1.0.5" in line
    nothing = cover(built(tmp_path / "empty", {"1.0.3": "denied"}), start="1.0.4")
    assert nothing.head == RELEASES[4:] and not nothing.segments  # a point outside the window does not count


def test_a_pinned_version_outside_the_window_keeps_it_incomplete_one_inside_does_not(tmp_path):
    """A pinned version inside the window is answered by the range that holds it (probed after
    every pair is complete); one before the window's start only a probe answers."""
    results = built(tmp_path, {"1.0.3": "denied", "1.0.9": "denied"}, controls=["1.0.3", "1.0.9"])
    inside = cover(results, start="1.0.3", pinned=["1.0.5"])
    assert inside.complete and inside.pinned_inside == ["1.0.5"] and inside.probes_needed == 0
    assert "1 pinned unprobed, answered by range" in atlas.recipe_text(inside)
    outside = cover(results, start="1.0.3", pinned=["1.0.1"])
    assert not outside.complete and outside.pinned_outside == ["1.0.1"] and outside.probes_needed == 2


def test_non_control_recipes_and_the_core_ones():
    recipes = load_all()
    names = atlas.non_control(recipes, "copilot")
    assert RECIPE in names and CONTROL not in names
    core = atlas.non_control(recipes, "copilot", core=True)
    assert RECIPE in core and set(core) < set(names) and len(core) == 12  # hang, crash, exit 1/2/127, ... stop loop


def test_atlas_check_command_exit_status_and_json(tmp_path, monkeypatch):
    results = built(tmp_path, {"1.0.0": "allowed", "1.0.9": "denied"})
    monkeypatch.setenv("PROBE_WINDOWS", str(window_file(tmp_path, "copilot: {from: 1.0.0, pinned: [1.0.9]}")))
    got = probe_cmd("atlas", "--check", "--agent", "copilot", "--recipe", RECIPE, results=results)
    assert got.returncode == 1, got.stderr
    assert "open 1.0.0..1.0.9 (8 between)" in got.stdout
    assert "copilot: window 1.0.0-1.0.9 (10 releases, 1 pinned): 0/1 recipes complete, 1 open boundaries" in got.stdout
    doc = json.loads(probe_cmd("atlas", "--check", "--agent", "copilot", "--recipe", RECIPE, "--json", results=results).stdout)
    one = doc["agents"][0]
    assert doc["complete"] is False and one["summary"] == {
        "recipes": 1,
        "complete": 0,
        "open_boundaries": 1,
        "probes_needed": 8,
        "pinned_probes": 0,
    }
    assert one["recipes"][0]["open_boundaries"][0]["between"] == RELEASES[1:9]
    write_points(results, "copilot", RECIPE, {"1.0.4": "allowed", "1.0.5": "denied"}, control=CONTROL)
    write_points(results, "copilot", CONTROL, {"1.0.4": "allowed", "1.0.5": "allowed"})
    narrowed = probe_cmd("atlas", "--check", "--agent", "copilot", "--recipe", RECIPE, "--to", "1.0.4", results=results)
    assert narrowed.returncode == 0 and "window 1.0.0-1.0.4 (5 releases, 0 pinned): 1/1 recipes complete" in narrowed.stdout
    done = probe_cmd("atlas", "--check", "--agent", "copilot", "--recipe", RECIPE, results=results)
    assert done.returncode == 0 and "1/1 recipes complete, 0 open boundaries, about 0 probes needed" in done.stdout


@pytest.mark.parametrize(
    "args, said",
    [
        (["--agent", "vscode"], "vscode has no window"),
        (["--recipe", CONTROL], "is a control"),
        (["--recipe", "exit2-pretol"], "exit2-pretool"),
        (["--from", "latest"], "--from"),
        (["--shard", "1/2"], "--shard slices the filling"),
    ],
)
def test_atlas_refuses_bad_input_in_one_line(tmp_path, args, said):
    got = probe_cmd("atlas", "--check", *args, results=tmp_path)
    assert got.returncode == 2 and said in got.stderr and got.stderr.count("\n") == 1


def test_shards_of_pairs_are_disjoint_deterministic_and_cover_every_pair(tmp_path):
    results = built(tmp_path, {"1.0.0": "allowed"})
    win = windows.Window.model_validate({"from": "1.0.0"})
    found = atlas.check(results, {"copilot": win}, load_all(), ["copilot"])
    pairs = {(c.agent, c.recipe) for a in found for c in a.recipes}
    slices = [[(c.agent, c.recipe) for c in sharded(found, (i, 3))] for i in (1, 2, 3)]
    assert sum(map(len, slices)) == len(pairs) and set().union(*map(set, slices)) == pairs
    assert slices[1] == [(c.agent, c.recipe) for c in sharded(found, (2, 3))]
    assert len(sharded(found, None)) == len(pairs)


def test_releases_that_cannot_run_are_kept_with_their_reason_and_close_what_they_hold_open(tmp_path, capsys):
    from probes.evidence import unrunnable
    from probes.sweep.atlas_fill import remember, runnable_ends
    from probes.sweep.search import Point

    results = built(tmp_path, {"1.0.2": "allowed", "1.0.5": "denied", "1.0.9": "denied"})
    remember(results, "copilot", RECIPE, [Point("1.0.3", reason="npm error notarget"), Point("1.0.4", "allowed")])
    path = unrunnable.path_of(results, "copilot")
    assert json.loads(path.read_text()) == {"agent": "copilot", "releases": {"1.0.3": "npm error notarget"}}
    before = path.stat().st_mtime_ns
    assert unrunnable.record(results, "copilot", {"1.0.3": "npm error notarget"}) is None and path.stat().st_mtime_ns == before
    unrunnable.record(results, "copilot", {"1.0.0": "needs Node.js 24", "1.0.1": "x" * 400, "1.0.4": "no platform package"})
    lost = unrunnable.read(results, "copilot")
    assert list(lost) == ["1.0.0", "1.0.1", "1.0.3", "1.0.4"] and len(lost["1.0.1"]) == unrunnable.REASON_MAX
    assert load(results)  # the evidence globs never take it for a record
    win = windows.span("copilot", windows.Window.model_validate({"from": "1.0.0"}), RELEASES)
    c = atlas.coverage(load(results, "copilot"), "copilot", RECIPE, CONTROL, win, RELEASES, lost)
    assert c.complete and not c.head and [(o.before, o.after) for o in c.closed] == [("1.0.2", "1.0.5")]
    assert c.cannot_run == {v: lost[v] for v in ("1.0.0", "1.0.1", "1.0.3", "1.0.4")}
    assert runnable_ends(c, lost) == ("1.0.2", "1.0.9")
    without = atlas.coverage(load(results, "copilot"), "copilot", RECIPE, CONTROL, win, RELEASES)
    assert without.head == ["1.0.0", "1.0.1"] and [o.between for o in without.opened] == [["1.0.3", "1.0.4"]]
    path.write_text("[1]")
    assert unrunnable.read(results, "copilot") == {} and "every release counts as runnable" in capsys.readouterr().err


def test_a_run_that_never_said_its_version_speaks_for_its_recipe_alone(tmp_path):
    """A session that ended before it said what ran (a hook cancelling --worktree, a dialog)
    is kept for its recipe, not the release: other recipes still probe that release."""
    from probes.evidence import unrunnable
    from probes.sweep.atlas_fill import remember
    from probes.sweep.search import Point

    results = built(tmp_path, {"1.0.2": "allowed", "1.0.5": "denied"})
    said = "ran None (version_mismatch); it said: Enter to confirm"
    remember(results, "copilot", RECIPE, [Point("1.0.3", reason=said, scope="recipe"), Point("1.0.4", reason="npm error E404")])
    doc = json.loads(unrunnable.path_of(results, "copilot").read_text())
    assert doc == {"agent": "copilot", "releases": {"1.0.4": "npm error E404"}, "recipes": {RECIPE: {"1.0.3": said}}}
    assert unrunnable.read(results, "copilot") == {"1.0.4": "npm error E404"}
    assert unrunnable.read(results, "copilot", "another-recipe") == {"1.0.4": "npm error E404"}
    assert unrunnable.read(results, "copilot", RECIPE) == {"1.0.3": said, "1.0.4": "npm error E404"}
    win = windows.span("copilot", windows.Window.model_validate({"from": "1.0.0"}), RELEASES)
    c = atlas.coverage(
        load(results, "copilot"), "copilot", RECIPE, CONTROL, win, RELEASES, unrunnable.read(results, "copilot", RECIPE)
    )
    assert {"1.0.3", "1.0.4"} <= set(c.cannot_run)


def test_an_end_stretch_between_two_releases_that_cannot_run_is_taken_not_to_run(tmp_path):
    """Gemini's window opens with some 40 releases that cannot run here: an end stretch whose
    first and last releases could not run is closed, the releases inside listed like them."""
    results = built(tmp_path, {"1.0.5": "denied", "1.0.9": "denied"})
    win = windows.span("copilot", windows.Window.model_validate({"from": "1.0.0"}), RELEASES)
    lost = {"1.0.0": "ran None (version_mismatch)", "1.0.4": "ran None (version_mismatch)"}
    c = atlas.coverage(load(results, "copilot"), "copilot", RECIPE, CONTROL, win, RELEASES, lost)
    assert c.complete and not c.head
    assert c.cannot_run["1.0.2"] == "like 1.0.0 and 1.0.4, which could not run" and c.cannot_run["1.0.4"] == lost["1.0.4"]
    open_end = atlas.coverage(load(results, "copilot"), "copilot", RECIPE, CONTROL, win, RELEASES, {"1.0.0": "x"})
    assert open_end.head == ["1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4"] and "1.0.2" not in open_end.cannot_run


class HalvingRunner:
    """Stands in for bisect.Runner in a test of the halving alone: releases before `first`
    cannot run; each probe is counted."""

    def __init__(self, first: str):
        self.first, self.asked = first, []

    def probe(self, versions):
        from probes.sweep.search import Point

        self.asked += versions
        v = versions[0]
        ran = int(v.split(".")[-1]) >= int(self.first.split(".")[-1])
        return [Point(v, "denied") if ran else Point(v, reason="ran None (version_mismatch)")]


@pytest.mark.parametrize("first", ["1.0.1", "1.0.3", "1.0.6", "1.0.7"])
def test_an_end_that_cannot_run_is_halved_to_the_first_release_that_runs(tmp_path, first):
    from probes.sweep.atlas_fill import halve_ends

    results = built(tmp_path, {"1.0.7": "denied", "1.0.9": "denied"})
    win = windows.span("copilot", windows.Window.model_validate({"from": "1.0.0"}), RELEASES)
    c = atlas.coverage(load(results, "copilot"), "copilot", RECIPE, CONTROL, win, RELEASES, {"1.0.0": "x"})
    runner = HalvingRunner(first)
    probed = halve_ends(c, runner, {"1.0.0": "x"})  # type: ignore[arg-type]
    assert len(runner.asked) <= 3  # log2 of the 7 releases between 1.0.0 and 1.0.7
    ran = sorted((p.version for p in probed if not p.skipped), key=lambda v: int(v.split(".")[-1]))
    could_not = sorted((p.version for p in probed if p.skipped), key=lambda v: int(v.split(".")[-1]))
    if first != "1.0.7":
        assert ran[0] == first  # the first release that runs was found and probed
    prev = f"1.0.{int(first.split('.')[-1]) - 1}"
    assert prev == "1.0.0" or prev in could_not  # and the one before it could not run


def test_where_another_recipe_changes_is_probed_too(tmp_path):
    """Codex 0.129.0-0.140.0 ran no hook at all, between two probes of hang-pretool that both
    failed open: both sides of another recipe's exact boundary are asked of this one, and a
    recipe that has not probed them is not complete."""
    results = built(tmp_path, {"1.0.0": "denied", "1.0.9": "denied"})
    write_points(results, "copilot", "payload-pretool", {"1.0.2": "recorded", "1.0.3": "not-recorded", "1.0.9": "recorded"})
    c = cover(results)
    assert c.complete and c.hints == []
    other = atlas.coverage(load(results, "copilot"), "copilot", "payload-pretool", None, c.window, RELEASES)
    wanted = atlas.hinted(atlas.changed_at([c, other]), {RECIPE: "pre_tool", "payload-pretool": "pre_tool"})
    hinted = atlas.with_hints(c, wanted[RECIPE], {})
    assert hinted.hints == ["1.0.2", "1.0.3"] and not hinted.complete  # 1.0.3|1.0.9 is not exact: no hint
    assert atlas.with_hints(c, wanted[RECIPE], {"1.0.2": "x"}).hints == ["1.0.3"]


def test_a_change_of_another_subject_is_asked_only_when_several_subjects_see_it():
    """A recipe probes where recipes of its own subject change; a change of another event's
    recipes is asked of it only when recipes of WIDE subjects change at that version: the CLI
    changed there (Codex 0.129.0-0.140.0: no hook ran, every subject changed), not one event."""
    subjects = {"a": "pre_tool", "b": "pre_tool", "c": "stop", "d": "session_end", "e": "prompt_submit"}
    changes = {"a": set(), "b": {"1.0.2", "1.0.3"}, "c": {"1.0.5", "1.0.6"}, "d": {"1.0.6"}, "e": {"1.0.6", "1.0.7"}}
    wanted = atlas.hinted(changes, subjects)
    assert atlas.WIDE == 3
    assert wanted["a"] == {"1.0.2", "1.0.3", "1.0.6"}  # its subject's change, and 1.0.6 where three subjects change
    assert wanted["b"] == {"1.0.6"}  # not its own
    assert wanted["c"] == {"1.0.6"}  # 1.0.5 and 1.0.7: one subject each; pre_tool's 1.0.2 asks nothing of stop


def test_a_change_the_harness_could_not_decide_hints_no_other_recipe(tmp_path):
    """A boundary beside `could-not-drive` (the harness could not drive the terminal) or beside
    a cell whose repeats disagree is no change of the CLI: on a loaded machine Copilot's
    interactive sessions flipped so between adjacent releases, and each flip would have asked
    two more probes of every other recipe."""
    results = built(tmp_path, {"1.0.0": "denied", "1.0.9": "denied"})
    points = {"1.0.1": "prompted-ran", "1.0.2": "could-not-drive", "1.0.3": "prompted-ran", "1.0.9": "prompted-ran"}
    write_points(results, "copilot", "ask-pretool-interactive", points)
    c = cover(results)
    other = atlas.coverage(load(results, "copilot"), "copilot", "ask-pretool-interactive", None, c.window, RELEASES)
    assert [b.exact for b in other.boundaries] == [True, True]  # it has two exact boundaries
    assert atlas.changed_at([c, other])["ask-pretool-interactive"] == set()  # and asks nothing of others
    assert atlas.decided("held") and not atlas.decided("no-server") and not atlas.decided("held×2 / fail-open×1")


def test_one_recipe_asked_for_keeps_the_hints_of_every_other(tmp_path):
    """`--recipe R` (or `--core`) narrows what is reported and filled, not what R must probe:
    where another recipe of the agent changes, R is asked to probe there all the same."""
    from tests.synthetic import write_points

    results = built(tmp_path, {"1.0.0": "allowed", "1.0.9": "allowed"})
    write_points(  # a recipe of RECIPE's subject (pre_tool)
        results, "copilot", "deny-json-pretool", {"1.0.0": "allowed", "1.0.4": "allowed", "1.0.5": "denied", "1.0.9": "denied"}
    )
    win = windows.Window.model_validate({"from": "1.0.0"})
    whole = {c.recipe: c for a in atlas.check(results, {"copilot": win}, load_all(), ["copilot"]) for c in a.recipes}
    one = atlas.check(results, {"copilot": win}, load_all(), ["copilot"], recipe=RECIPE)[0].recipes
    assert [c.recipe for c in one] == [RECIPE] and one[0].hints == whole[RECIPE].hints == ["1.0.4", "1.0.5"]
