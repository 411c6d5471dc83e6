"""The search of `probe bisect` (probes/sweep/search.py) against recorded verdicts: a fake probe
over a dict stands for the CLIs (the search is our own logic; the real run is below, marked
`real`), and the command line's bad input."""

from __future__ import annotations

import errno
import math
from pathlib import Path

import pytest

from probes.cli import main
from probes.errors import HarnessError, HostError
from probes.sweep import bisect
from probes.sweep.search import Point, picks, search


def versions(n: int) -> list[str]:
    return [f"1.0.{i}" for i in range(n)]


class Recorded:
    """A probe that answers from recorded verdicts: a version missing from `verdicts` is
    skipped (it could not install), a tuple is a flaky version's runs."""

    def __init__(self, verdicts: dict[str, str | tuple[str, ...]]):
        self.verdicts = verdicts
        self.calls: list[list[str]] = []
        self.prefetched: list[str] = []

    def __call__(self, todo: list[str]) -> list[Point]:
        self.calls.append(list(todo))
        out = []
        for v in todo:
            got = self.verdicts.get(v)
            if got is None:
                out.append(Point(v, reason="npm install failed"))
            elif isinstance(got, tuple):
                out.append(Point(v, None, got[-1], values=got) if len(set(got)) > 1 else Point(v, got[0], got[0]))
            else:
                out.append(Point(v, got, got))
        return out

    def prefetch(self, todo: list[str]) -> None:
        self.prefetched += todo

    @property
    def probed(self) -> list[str]:
        return [v for call in self.calls for v in call]


def step(n: int, at: int) -> dict[str, str | tuple[str, ...]]:
    """n versions: `old` below index `at`, `new` from it."""
    return {v: "old" if i < at else "new" for i, v in enumerate(versions(n))}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 100, 111, 473])
def test_log2_bound_for_a_change_anywhere(n):
    """At most ceil(log2(n)) + 2 distinct versions, wherever the change lies."""
    for at in range(1, n):
        probe = Recorded(step(n, at))
        b = search(versions(n), probe.__call__)
        assert b.status == "boundary" and b.exact
        assert (b.before.version, b.after.version) == (f"1.0.{at - 1}", f"1.0.{at}")
        assert len(set(probe.probed)) == len(probe.probed) <= math.ceil(math.log2(n)) + 2, (n, at)


def test_change_at_either_end():
    first = search(versions(50), Recorded(step(50, 1)).__call__)
    last = search(versions(50), Recorded(step(50, 49)).__call__)
    assert (first.before.version, first.after.version) == ("1.0.0", "1.0.1")
    assert (last.before.version, last.after.version) == ("1.0.48", "1.0.49")


def test_ends_that_agree_say_so():
    probe = Recorded({v: "same" for v in versions(30)})
    b = search(versions(30), probe.__call__)
    assert b.status == "agree" and probe.probed == ["1.0.0", "1.0.29"]


def test_several_changes_give_one_true_boundary():
    verdicts = {v: ("a" if i < 10 else "b" if i < 20 else "a" if i < 25 else "c") for i, v in enumerate(versions(40))}
    b = search(versions(40), Recorded(verdicts).__call__)
    assert b.status == "boundary" and b.exact
    assert verdicts[b.before.version] != verdicts[b.after.version]
    assert versions(40).index(b.after.version) == versions(40).index(b.before.version) + 1


def test_flaky_version_stops_the_search_with_its_interval():
    verdicts = step(20, 14)
    verdicts["1.0.9"] = ("old", "new", "old")
    b = search(versions(20), Recorded(verdicts).__call__)
    assert b.status == "flaky" and b.flaky.version == "1.0.9" and b.flaky.values == ("old", "new", "old")
    assert b.interval == ("1.0.0", "1.0.19")


def test_skipped_versions_are_searched_around():
    verdicts = step(20, 7)
    for v in ("1.0.9", "1.0.5", "1.0.6"):
        del verdicts[v]
    b = search(versions(20), Recorded(verdicts).__call__)
    assert b.status == "boundary" and not b.exact  # 1.0.5 and 1.0.6 lie between and could not run
    assert (b.before.version, b.after.version) == ("1.0.4", "1.0.7")
    assert {p.version for p in b.skipped} == {"1.0.9", "1.0.5", "1.0.6"} and all(p.reason for p in b.skipped)


def test_an_end_that_cannot_run_fails():
    verdicts = step(10, 5)
    del verdicts["1.0.9"]
    b = search(versions(10), Recorded(verdicts).__call__)
    assert b.status == "failed" and "1.0.9 could not run: npm install failed" in b.reason


def test_unpublished_gaps_are_not_candidates():
    """Only the candidates given are probed: unpublished numbers between them never are."""
    published = ["1.0.40", "1.0.52", "1.0.55", "1.0.60", "1.0.71", "1.0.102"]
    probe = Recorded({v: "closed" if v in ("1.0.40", "1.0.52") else "open" for v in published})
    b = search(published, probe.__call__)
    assert set(probe.probed) <= set(published) and b.exact
    assert (b.before.version, b.after.version) == ("1.0.52", "1.0.55")


@pytest.mark.parametrize("jobs", [2, 3, 4])
def test_jobs_probe_several_points_a_round(jobs):
    n = 100
    for at in (1, 37, 64, 99):
        probe = Recorded(step(n, at))
        b = search(versions(n), probe.__call__, jobs=jobs, prefetch=probe.prefetch)
        assert b.exact and b.after.version == f"1.0.{at}"
        assert all(len(call) <= max(jobs, 2) for call in probe.calls)
        assert len(probe.calls) <= math.ceil(math.log(n, jobs + 1)) + 2  # rounds shrink (k+1)-fold
        assert len(set(probe.probed)) == len(probe.probed)


def test_prefetch_names_both_halves_next_round():
    probe = Recorded(step(17, 3))
    search(versions(17), probe.__call__, prefetch=probe.prefetch)
    assert probe.prefetched[:2] == ["1.0.4", "1.0.12"]  # the middles of (0, 8) and (8, 16)
    assert set(probe.probed) - {"1.0.0", "1.0.16", "1.0.8"} <= set(probe.prefetched)


def test_known_points_are_not_probed_again():
    probe = Recorded(step(10, 4))
    known = {"1.0.0": Point("1.0.0", "old", "old"), "1.0.9": Point("1.0.9", "new", "new")}
    b = search(versions(10), probe.__call__, known=known)
    assert b.exact and "1.0.0" not in probe.probed and "1.0.9" not in probe.probed


def test_picks_split_evenly():
    assert picks(versions(7), 1) == ["1.0.3"]
    assert picks(versions(8), 3) == ["1.0.1", "1.0.3", "1.0.5"]
    assert picks(versions(2), 5) == ["1.0.0", "1.0.1"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["bisect", "cursor", "hang-pretool", "--from", "1.0.1", "--to", "1.0.2"], "unknown agent 'cursor'"),
        (["bisect", "copilt", "hang-pretool", "--from", "1.0.1", "--to", "1.0.2"], "Perhaps you meant copilot?"),
        (["bisect", "copilot", "hang-pretol", "--from", "1.0.1", "--to", "1.0.2"], "Perhaps you meant hang-pretool"),
        (["bisect", "copilot", "hang-pretool", "--from", "1.0", "--to", "1.0.2"], "--from '1.0': expected an exact version"),
        (["bisect", "copilot", "hang-pretool", "--from", "1.0.1"], "the following arguments are required: --to"),
        (["bisect", "copilot", "hang-pretool", "--from", "1.0.1", "--to", "1.0.2", "--jobs", "0"], "--jobs must be"),
        (
            ["bisect", "copilot", "payload-pretool", "--from", "1.0.1", "--to", "1.0.2", "--observation", "tool_arg_type"],
            "Perhaps you meant tool_args_type",
        ),
        (["bisect", "copilot", "allow-overrides-ask-pretool", "--from", "1.0.1", "--to", "1.0.2"], "does not apply to copilot"),
        (["timeline", "copilot", "hang-pretool", "--every", "3"], "--every K samples a range"),
        (["timeline", "copilot", "hang-pretool", "--every", "0", "--versions", "1.0.1..1.0.2"], "--every must be"),
        (["timeline", "claude", "hang-pretool", "--observation", "nope"], "reports no such observation"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("probe: ") and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_bump_report_names_the_release_that_changed():
    from probes.sweep import bump
    from probes.sweep.narrow import Narrowed

    p = bump.Plan("copilot", "1.0.57", "1.0.57", ["1.0.92"], "cwd-subdir", [])
    change = {"recipe": "cwd-subdir", "what": "outcome", "from": "project-root", "to": "session-cwd"}
    step = bump.Step("1.0.57", "1.0.92", 1, [change])
    step.narrowed = {"cwd-subdir": Narrowed("cwd-subdir", ("1.0.57", "1.0.92"), "boundary", "1.0.71", "1.0.73", True, ["1.0.71"])}
    text = bump.report(p, [step], [], Path("results"))
    assert "| changed in |" in text and "| 1.0.73 (exact, bisected in 1 probe(s)) |" in text
    doc = bump.as_json(p, [step], [])
    assert doc["steps"][0]["bisected"][0]["after"] == "1.0.73"
    step.narrowed = {}
    assert "| **session-cwd** | - |" in bump.report(p, [step], [], Path("results"))


def test_a_search_leaves_no_unknown_version_folder(tmp_path):
    """A release that ran without saying its version: the search's record of it is removed with
    its folder (the reason goes to unrunnable.json); a folder holding another record stays."""
    from probes.evidence.unrunnable import discard_unknown

    lone = tmp_path / "copilot" / "unknown-0.0.400"
    (lone / "_blobs").mkdir(parents=True)
    (lone / "_blobs" / "a.txt").write_text("x")
    (lone / "ask-pretool.json").write_text("{}")
    discard_unknown(lone / "ask-pretool.json")
    assert not lone.exists()
    shared = tmp_path / "copilot" / "unknown-0.0.401"
    shared.mkdir()
    (shared / "a.json").write_text("{}")
    (shared / "b.json").write_text("{}")
    discard_unknown(shared / "a.json")
    assert sorted(p.name for p in shared.iterdir()) == ["b.json"]
    kept = tmp_path / "copilot" / "1.0.7" / "ask-pretool.json"
    kept.parent.mkdir()
    kept.write_text("{}")
    discard_unknown(kept)  # a version's own record is never the search's to remove
    assert kept.exists()


@pytest.mark.parametrize(
    "failure",
    [HostError("npm install left out its binary"), OSError(errno.ENOSPC, "No space left on device")],
    ids=["install", "disk-full"],
)
def test_a_host_fault_stops_the_search_instead_of_filing_the_release(monkeypatch, failure):
    """A full disk or a half install says nothing of the release: never a Point to remember
    as one that cannot run (unrunnable.json), the search stops with it."""

    def fails(*args, **kwargs):
        raise failure

    monkeypatch.setattr(bisect, "probe_repeated", fails)
    with pytest.raises(HostError):
        bisect._probe("claude", "2.1.200", "hang-pretool", "results", 1, None)


def test_a_release_that_cannot_install_is_a_point_with_its_reason(monkeypatch):
    def fails(*args, **kwargs):
        raise HarnessError("npm install @anthropic-ai/claude-code@2.1.200 failed (ETARGET)")

    monkeypatch.setattr(bisect, "probe_repeated", fails)
    point = bisect._probe("claude", "2.1.200", "hang-pretool", "results", 1, None)
    assert point.skipped and "ETARGET" in (point.reason or "") and point.scope == "release"
