"""Compact records (evidence/compaction.py, `probe compact`): a record that repeats both its
neighbours' label and observations is stored without its session, citable by the full
record's digest; ends, boundaries, pinned and cited records stay whole; every reader reads
them as before. A committed record copied to several versions (our own evidence, no CLI)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from probes.catalog import windows
from probes.catalog.recipes import load_all
from probes.errors import InputError
from probes.evidence import compaction, keep, lean, store
from probes.evidence.layout import dumps, layout
from probes.evidence.load import load
from probes.evidence.merge import merge
from probes.evidence.model import Evidence, load_evidence
from probes.evidence.reclassify import reclassify
from probes.report.cite import cite, evidence_digest
from tests import helpers
from tests.helpers import RESULTS, probe_cmd
from tests.synthetic import write_published

TEMPLATE = RESULTS / "copilot" / "1.0.92" / "hang-pretool.json"  # fail-open, one invocation, two requests
RELEASES = [f"1.0.{i}" for i in range(8)]
OLD = 1_000_000_000  # an mtime long past: no probe is about to refer to these blobs


def put(root: Path, version: str, recipe: str = "hang-pretool", **edits: object) -> Path:
    """The template as `version`'s record of `recipe` (stored form, refs and their blobs)."""
    stored = json.loads(TEMPLATE.read_text())
    stored.update(requested_version=version, executed_version=version, recipe=recipe, **edits)
    path = root / "copilot" / version / f"{recipe}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    for name in helpers.copy_blobs(TEMPLATE, root / "copilot"):  # its refs' and its recipe's part (lean.shares)
        os.utime(root / "copilot" / store.BLOBS / f"{name}.txt", (OLD, OLD))
    path.write_text(layout(stored))
    return path


def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outcomes: dict[str, str], pinned: str = "[]", whole: str = "") -> Path:
    results = tmp_path / "results"
    for version, outcome in outcomes.items():
        put(results, version, outcome=outcome)
    write_published(results, "copilot", RELEASES)
    kept = f", whole: {whole}" if whole else ""
    (tmp_path / "windows.yaml").write_text(f"copilot: {{from: 1.0.0, pinned: {pinned}{kept}}}\n")
    monkeypatch.setenv("PROBE_WINDOWS", str(tmp_path / "windows.yaml"))
    return results


def test_a_pinned_version_outside_the_whole_list_is_compacted_like_any_other(tmp_path, monkeypatch):
    """`whole` names the versions kept whole (those the tests read); a pinned version not in it
    that repeats both neighbours is stored compact, and one in it stays whole."""
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:7], "fail-open"), "[1.0.2, 1.0.4]", "[1.0.4]")
    compaction.apply(compaction.plan(results))
    assert compacted(results) == ["1.0.1", "1.0.2", "1.0.3", "1.0.5"]


def compacted(results: Path) -> list[str]:
    return sorted(p.parent.name for p in results.glob("*/*/*.json") if "compacted" in json.loads(p.read_text()))


def test_a_record_repeating_both_neighbours_is_stored_compact_and_citable_by_its_full_digest(tmp_path, monkeypatch):
    # 1.0.2 and 1.0.3 are a boundary's sides, 1.0.0 and 1.0.6 the ends, 1.0.4 pinned
    results = tree(
        tmp_path, monkeypatch, dict.fromkeys(RELEASES[:3], "fail-open") | dict.fromkeys(RELEASES[3:7], "held"), "[1.0.4]"
    )
    one = results / "copilot" / "1.0.1" / "hang-pretool.json"
    record = json.loads(one.read_text())
    record["observations"]["tool_delay_s"] = 9.9  # a timing: it moves on every run, and is kept
    one.write_text(dumps(record))
    digest, size = evidence_digest(one), len(one.read_bytes())
    before = {p: p.read_bytes() for p in results.glob("*/*/*.json")}
    found = compaction.plan(results)
    assert [(p.path.parent.name, p.neighbours) for p in found.plans] == [
        ("1.0.1", ("1.0.0", "1.0.2")),
        ("1.0.5", ("1.0.4", "1.0.6")),
    ]
    assert before == {p: p.read_bytes() for p in results.glob("*/*/*.json")}  # a plan writes nothing
    compaction.apply(found)
    assert compacted(results) == ["1.0.1", "1.0.5"]
    assert all(before[p] == p.read_bytes() for p in before if p.parent.name not in ("1.0.1", "1.0.5"))
    kept = load_evidence(one)
    assert kept["invocations"] == [] and kept["model_requests"] == [] and kept["invocation_count"] == 1
    assert kept["hooks"] == [] and kept["cli"]["argv"] == [] and kept["cli"]["exit_code"] == 0
    assert kept["outcome"] == "fail-open" and kept["observations"]["tool_delay_s"] == 9.9
    full = kept["compacted"]
    gone = full["dropped"]
    assert gone[:2] == ["invocations", "model_requests"] and {"hooks", "cli.argv", "cli.stderr_tail"} <= set(gone)
    # every key but those dropped reads as it was, a key of `cli` too
    whole = load_evidence(TEMPLATE) | {"requested_version": "1.0.1", "executed_version": "1.0.1"}
    whole["observations"] = record["observations"]
    assert {k: v for k, v in kept.items() if k not in (*gone, "cli", "compacted")} == {
        k: v for k, v in whole.items() if k not in (*gone, "cli")
    }
    assert {k: v for k, v in kept["cli"].items() if f"cli.{k}" not in gone} == {
        k: v for k, v in whole["cli"].items() if f"cli.{k}" not in gone
    }
    assert full["neighbours"] == ["1.0.0", "1.0.2"] and one.read_text().count("\n") == 1  # one line
    assert full["full_sha256"] == digest and full["full_bytes"] > size and len(one.read_bytes()) < size / 2
    assert store.unreferenced(one.parent) == []  # its blobs went with its session
    cited = cite(load(results, "copilot", "hang-pretool", "1.0.1")[0], results)
    assert f"the full record as it was: sha256 `{digest}`" in cited
    assert "stored without its invocations, model requests, " in cited


def test_a_compact_record_keeps_its_own_run_and_shares_the_rest_once_per_agent(tmp_path, monkeypatch):
    """A compact record's file holds what its run alone has (lean.OWN, its timings); what it
    repeats is one blob in its agent's _blobs, named by its "shared" ref, written once for all
    the records that repeat it. Readers join it back; `probe cite` hashes it too; it goes
    when no record names it, and `probe merge` carries it."""
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:5], "fail-open"))
    compaction.apply(compaction.plan(results))
    paths = [results / "copilot" / v / "hang-pretool.json" for v in ("1.0.1", "1.0.2", "1.0.3")]
    stored = [json.loads(p.read_text()) for p in paths]
    assert len({s["shared"]["ref"] for s in stored}) == 1  # three records, one shared blob
    own = {"cli": {"budget_s", "first_model_request_s", "wall_s"}, "compacted": {"full_bytes", "full_sha256", "neighbours"}}
    assert {k: set(v) if k in own else v for k, v in stored[0].items() if k in (*own, "outcome", "question")} == own
    assert set(stored[0]) - {"cli", "compacted", "shared", "observations"} <= lean.OWN
    shared = results / "copilot" / store.BLOBS / f"{stored[0]['shared']['ref'].removeprefix('sha256:')}.txt"
    assert json.loads(shared.read_text())["outcome"] == "fail-open"
    whole = load_evidence(results / "copilot" / "1.0.0" / "hang-pretool.json")
    kept = load_evidence(paths[1])
    assert kept["question"] == whole["question"] and kept["cli"]["exit_code"] == whole["cli"]["exit_code"]
    assert kept["compacted"]["neighbours"] == ["1.0.1", "1.0.3"] and "shared" not in kept
    h = hashlib.sha256(paths[1].read_bytes())
    h.update(shared.read_bytes())  # after the blobs beside it (it has none left)
    assert evidence_digest(paths[1]) == h.hexdigest()
    merged = tmp_path / "merged"
    assert merge([results], merged)[0] == 5 and (merged / shared.relative_to(results)).read_bytes() == shared.read_bytes()
    assert load_evidence(merged / paths[1].relative_to(results))["outcome"] == "fail-open"
    shared.write_text("{}")  # spoiled: the records naming it do not read
    with pytest.raises(InputError, match="does not hash to its name"):
        load_evidence(paths[1])
    for p, outcome in zip(paths, ("held", "fail-open", "held"), strict=True):
        put(results, p.parent.name, outcome=outcome)  # whole again, and each differs: nothing names the blob
    assert store.unshared(results / "copilot") == [shared]
    compaction.apply(compaction.plan(results), grace_s=0)
    assert not shared.exists() and compacted(results) == []


def test_a_record_compacted_before_dropped_grew_is_stored_smaller_keeping_its_full_digest(tmp_path, monkeypatch):
    """A compact record of an earlier `probe compact` (its session dropped only, indented) is
    stored again, smaller, on one line: its digest and neighbours are still the full record's."""
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:3], "fail-open"))
    one = results / "copilot" / "1.0.1" / "hang-pretool.json"
    old = json.loads(one.read_text()) | {"invocations": [], "model_requests": []}
    full = {"dropped": ["invocations", "model_requests"], "full_bytes": 9, "full_sha256": "a" * 64, "neighbours": ["0.9", "1.1"]}
    one.write_text(dumps(old | {"compacted": full}))
    found = compaction.plan(results)
    assert [(p.path, p.again, p.neighbours) for p in found.plans] == [(one, True, ("0.9", "1.1"))]
    compaction.apply(found)
    kept = load_evidence(one)["compacted"]
    assert kept["full_sha256"] == "a" * 64 and kept["full_bytes"] == 9 and kept["neighbours"] == ["0.9", "1.1"]
    assert kept["dropped"][:2] == ["invocations", "model_requests"] and "hooks" in kept["dropped"]
    assert compaction.plan(results).plans == []  # and that is what compacting again keeps


def test_compacting_again_changes_nothing_and_a_young_blob_stays(tmp_path, monkeypatch):
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:4], "fail-open"))
    young = results / "copilot" / store.BLOBS / f"{'0' * 64}.txt"
    young.write_text("being written by a probe")
    compaction.apply(compaction.plan(results))
    after = {p: p.read_bytes() for p in results.rglob("*") if p.is_file()}
    assert compacted(results) == ["1.0.1", "1.0.2"] and young.exists()
    again = compaction.plan(results)
    assert again.plans == [] and again.before["copilot"].compact == 2
    compaction.apply(again, grace_s=0)
    assert not young.exists() and {p: p.read_bytes() for p in results.rglob("*") if p.is_file()} == {
        p: b for p, b in after.items() if p != young
    }


def test_what_differs_or_cannot_be_compared_stays_whole(tmp_path, monkeypatch):
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES, "fail-open"))
    put(results, "1.0.3", observations={**load_evidence(TEMPLATE)["observations"], "hook_exit": "SIGKILL"})
    put(results, "1.0.4", repeats={"runs": 2, "outcomes": {"fail-open": 1, "held": 1}})  # flaky
    (results / "copilot" / "1.0.6" / "hang-pretool.json").write_text("{not json")  # unreadable
    (results / "FINDINGS.md").write_text("<!-- check: copilot@1.0.1 hang-pretool; outcome == fail-open -->\n")
    # 1.0.1 cited, 1.0.2 beside 1.0.3's other observation, 1.0.5 beside the flaky 1.0.4 and the unreadable 1.0.6
    assert compaction.plan(results).plans == []
    (results / "FINDINGS.md").unlink()
    assert [p.path.parent.name for p in compaction.plan(results).plans] == ["1.0.1"]


def test_an_agent_without_a_window_or_a_snapshot_stays_whole(tmp_path, monkeypatch):
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:4], "fail-open"))
    (results / "copilot" / "versions.json").unlink()
    assert compaction.plan(results).plans == []
    proc = probe_cmd("compact", "--agent", "vscode", results=results)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "has no window" in proc.stderr
    proc = probe_cmd("compact", "--agent", "copilt", results=results)
    assert proc.returncode == 2 and "copilot" in proc.stderr and proc.stderr.count("\n") == 1


def test_readers_keep_a_compact_record_s_label_and_a_rerun_keeps_it_compact(tmp_path, monkeypatch):
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:3], "fail-open"))
    dry = probe_cmd("compact", "--dry-run", results=results)
    assert dry.returncode == 0 and "1 record(s) would be compacted" in dry.stdout and compacted(results) == []
    proc = probe_cmd("compact", "--json", results=results)
    assert proc.returncode == 0 and [c["neighbours"] for c in json.loads(proc.stdout)["compacted"]] == [["1.0.0", "1.0.2"]]
    path = results / "copilot" / "1.0.1" / "hang-pretool.json"
    stored = path.read_bytes()
    done = list(reclassify(results, load_all()))
    assert [(r.path, r.compact, r.relabelled, r.migrated) for r in done] == [(path, True, False, False)]
    assert path.read_bytes() == stored  # not labelled again from the session it no longer has
    said = probe_cmd("reclassify", results=results).stdout
    assert (
        said
        == "0 record(s) changed; 1 compact record(s) kept their labels (their sessions are not stored: not classified again)\n"
    )
    whole = load_evidence(TEMPLATE) | {"requested_version": "1.0.1", "executed_version": "1.0.1"}
    assert keep.measured_only(load_evidence(path), whole)  # a re-run differing in timings only: kept compact
    assert not keep.measured_only(load_evidence(path), whole | {"outcome": "held"})


def test_the_schema_takes_a_compact_record_and_the_versions_the_tests_pin_stay_whole():
    assert "compacted" in Evidence.model_json_schema()["properties"]
    wins = windows.load()
    for spec in (helpers.COPILOT, helpers.COPILOT_OLD, helpers.COPILOT_OLDER, helpers.CLAUDE, helpers.CODEX):
        agent, version = spec.split("@")
        assert agent not in wins or version in wins[agent].kept_whole, spec
    for path in RESULTS.glob("*/*/*.json"):
        if "compacted" in json.loads(path.read_bytes()):
            assert path.parts[-3] in wins and path.parts[-2] not in wins[path.parts[-3]].kept_whole, path


def test_blobs_an_older_harness_kept_beside_the_records_read_and_move_to_the_agent_s_store(tmp_path, monkeypatch):
    """Before 2026-12-06 a record's blobs were stored beside it, once per version: they still
    read, and compacting moves them to the agent's store (adjacent releases share most)."""
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:2], "fail-open"))
    one = results / "copilot" / "1.0.1" / "hang-pretool.json"
    names = store.refs(json.loads(one.read_text()))
    beside = one.parent / store.BLOBS
    beside.mkdir()
    for name in names:
        (results / "copilot" / store.BLOBS / f"{name}.txt").rename(beside / f"{name}.txt")
    assert names and load_evidence(one) == load_evidence(TEMPLATE) | {"requested_version": "1.0.1", "executed_version": "1.0.1"}
    text = one.read_bytes()
    compaction.apply(compaction.plan(results))
    assert not beside.exists() and one.read_bytes() == text
    assert all((results / "copilot" / store.BLOBS / f"{n}.txt").exists() for n in names)
    load_evidence(one)


def test_outside_window_removes_the_versions_a_window_no_longer_holds(tmp_path, monkeypatch):
    """Once a window's `from` moves on, `--outside-window` removes the versions before it, but
    a pinned one and one a FINDINGS check reads (a range check reads its whole range)."""
    results = tree(tmp_path, monkeypatch, dict.fromkeys(RELEASES[:6], "fail-open"), "[1.0.0]")
    (tmp_path / "windows.yaml").write_text("copilot: {from: 1.0.4, pinned: [1.0.0]}\n")
    (results / "FINDINGS.md").write_text("<!-- check: copilot@1.0.2..1.0.2 hang-pretool; outcome == fail-open -->\n")
    (results / "copilot" / "unknown-1.0.1").mkdir()
    assert [f.name for f in compaction.outside(results)] == ["1.0.1", "1.0.3"]
    dry = probe_cmd("compact", "--outside-window", "--dry-run", results=results)
    assert dry.returncode == 0 and (results / "copilot" / "1.0.1").exists(), dry.stderr
    assert dry.stdout.startswith("outside the window, 2 version(s) would be removed (2 record(s), ")
    assert dry.stdout.splitlines()[0].endswith("): copilot 1.0.1, 1.0.3")
    out = probe_cmd("compact", "--outside-window", results=results)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (results / "copilot").iterdir() if p.name[0].isdigit()) == ["1.0.0", "1.0.2", "1.0.4", "1.0.5"]
    assert store.unshared(results / "copilot") == [] and compaction.outside(results) == []
