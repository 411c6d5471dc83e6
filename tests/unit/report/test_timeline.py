"""Timelines (probes/report/timeline.py): segments and boundaries from points, the registry snapshot,
and from committed evidence, offline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from probes.report import timeline
from probes.report.timeline import Boundary, Segment, build
from probes.versions.spec import Published
from tests.helpers import ROOT, probe_cmd

RESULTS = ROOT / "results"
RELEASES = ["1.0.40", "1.0.52", "1.0.55", "1.0.60", "1.0.71", "1.0.102"]


def test_segments_in_semver_order_and_boundaries_exact_or_open():
    points = {
        "1.0.102": "fail-open",
        "1.0.40": "fail-closed",
        "1.0.52": "fail-closed",
        "1.0.55": "fail-open",
        "1.0.71": "fail-open",
    }
    segments, boundaries = build(points, RELEASES)
    assert segments == [
        Segment("fail-closed", "1.0.40", "1.0.52", ["1.0.40", "1.0.52"]),
        Segment("fail-open", "1.0.55", "1.0.102", ["1.0.55", "1.0.71", "1.0.102"]),
    ]
    assert boundaries == [Boundary("1.0.52", "1.0.55", True)]
    _, open_ = build({"1.0.40": "a", "1.0.60": "b"}, RELEASES)
    assert open_ == [Boundary("1.0.40", "1.0.60", False)]  # 1.0.52 and 1.0.55 unprobed between


def test_a_change_that_comes_back_is_three_segments():
    segments, boundaries = build({"1.0.40": "a", "1.0.52": "b", "1.0.55": "a"}, RELEASES)
    assert [s.value for s in segments] == ["a", "b", "a"] and all(b.exact for b in boundaries)


def test_nothing_is_exact_without_candidates_or_beyond_them():
    assert build({"1.0.40": "a", "1.0.52": "b"}, None)[1] == [Boundary("1.0.40", "1.0.52", False)]
    assert build({"1.0.102": "a", "1.0.103": "b"}, RELEASES)[1] == [Boundary("1.0.102", "1.0.103", False)]
    assert build({}, RELEASES) == ([], [])
    assert build({"1.0.40": "a"}, RELEASES) == ([Segment("a", "1.0.40", "1.0.40", ["1.0.40"])], [])


def test_prereleases_are_not_candidates_unless_asked():
    published = ["1.0.80", "1.0.81-0", "1.0.81"]
    points = {"1.0.80": "string", "1.0.81": "object"}
    assert build(points, timeline.candidates_of(published))[1][0].exact
    assert not build(points, timeline.candidates_of(published, prereleases=True))[1][0].exact


def test_snapshot_round_trip_and_a_broken_one_knows_nothing(tmp_path, capsys):
    pub = Published(["1.0.2", "1.0.10", "1.0.3-0"], "1.0.10")
    path = timeline.write_snapshot(tmp_path, "copilot", pub)
    first = path.read_bytes()
    timeline.write_snapshot(tmp_path, "copilot", pub)
    assert path.read_bytes() == first  # the same list writes the same bytes
    assert timeline.read_snapshot(tmp_path, "copilot") == ["1.0.2", "1.0.3-0", "1.0.10"]
    path.write_text('{"versions": [1, 2]}')
    assert timeline.read_snapshot(tmp_path, "copilot") is None
    assert "not a versions snapshot" in capsys.readouterr().err
    assert timeline.read_snapshot(tmp_path, "claude") is None


def copy(tmp_path: Path) -> Path:
    dst = tmp_path / "results"
    shutil.copytree(RESULTS, dst, ignore=shutil.ignore_patterns("*.md", "*.html"))
    return dst


def test_of_results_reads_the_evidence_offline(tmp_path):
    results = copy(tmp_path)
    (results / "copilot" / timeline.SNAPSHOT).unlink(missing_ok=True)
    t = timeline.of_results(results, "copilot", "payload-pretool", "tool_args_type")
    values = [s.value for s in t.segments]
    assert values[-2:] == ['"string"', '"object"'] and len(t.boundaries) == len(values) - 1  # 1.0.80 -> 1.0.81
    assert not any(b.exact for b in t.boundaries)  # no snapshot: nothing known to be exact
    last = t.boundaries[-1]
    exact = timeline.of_results(results, "copilot", "payload-pretool", "tool_args_type", [last.before, last.after])
    assert exact.boundaries[0].exact
    doc = timeline.as_json(exact)
    assert doc["segments"][-1]["value"] == "object" and set(doc["segments"][-1]) == {"value", "from", "to", "probed"}
    assert set(timeline.as_json(timeline.of_results(results, "copilot", "hang-pretool"))["segments"][0]) == {
        "outcome",
        "from",
        "to",
        "probed",
    }


def test_a_version_mismatch_does_not_count_for_the_version_asked(tmp_path):
    results = copy(tmp_path)
    src = results / "copilot" / "1.0.92"
    dst = results / "copilot" / "1.0.90"
    dst.mkdir()
    shutil.copy(src / "hang-pretool.json", dst / "hang-pretool.json")  # a record of 1.0.92 filed under 1.0.90
    assert "1.0.90" not in timeline.points_of(results, "copilot", "hang-pretool")


def test_timeline_command_text_and_json(tmp_path):
    results = copy(tmp_path)
    timeline.write_snapshot(results, "copilot", Published(["1.0.71", "1.0.80", "1.0.81", "1.0.92", "1.0.102"], "1.0.102"))
    text = probe_cmd("timeline", "copilot", "payload-pretool", "--observation", "tool_args_type", results=results)
    assert text.returncode == 0, text.stderr
    assert '-1.0.80 | "object" 1.0.81' in text.stdout and "1.0.80 -> 1.0.81: exact" in text.stdout
    doc = json.loads(probe_cmd("timeline", "copilot", "payload-pretool", "--json", results=results).stdout)
    assert doc["segments"][-1]["outcome"] == "recorded" and all(b["exact"] for b in doc["boundaries"])
    none = probe_cmd("timeline", "copilot", "payload-pretool", results=tmp_path / "empty")
    assert none.returncode == 2 and none.stderr.count("\n") == 1


def test_every_kth_sample_keeps_both_ends_and_a_lost_end_fails():
    from probes.sweep.fill import Filled, sample
    from probes.sweep.search import Point

    versions = [f"1.0.{i}" for i in range(10)]
    assert sample(versions, 4) == ["1.0.0", "1.0.4", "1.0.8", "1.0.9"]
    assert sample(versions, 3) == ["1.0.0", "1.0.3", "1.0.6", "1.0.9"]
    assert sample(versions, 100) == ["1.0.0", "1.0.9"]
    inner = Filled([Point("1.0.4", reason="npm install failed")], ends=("1.0.0", "1.0.9"))
    assert inner.exit_status == 0 and inner.probes == 1
    assert Filled([Point("1.0.9", reason="npm install failed")], ends=("1.0.0", "1.0.9")).exit_status == 1
