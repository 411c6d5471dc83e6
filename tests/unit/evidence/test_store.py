"""Compact evidence (probes/evidence/store.py): values that repeat across records stored once per agent
version, content-addressed; records read the same as if the values were inline; merge, cite
and reclassify carry and check the blobs; committed results stay small."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from probes import limits
from probes.errors import InputError
from probes.evidence import store
from probes.evidence.layout import dumps
from probes.evidence.merge import merge
from probes.evidence.model import SCHEMA_VERSION, Evidence, load_evidence, save_evidence, write_atomic
from tests.helpers import ROOT, copy_record, probe_cmd

RESULTS = ROOT / "results"
V1 = ROOT / "tests" / "fixtures" / "evidence-v1"
CELL = "claude/2.1.328/payload-pretool"


def v1_record() -> dict:
    return json.loads((V1 / f"{CELL}.json").read_text())


def saved(tree: Path, cell: str = CELL) -> Path:
    """The version 1 fixture, upgraded and stored compact in `tree`, as `probe` writes it."""
    from probes.evidence.model import upgrade

    path = tree / f"{cell}.json"
    save_evidence(path, Evidence.model_validate(upgrade(v1_record())))
    return path


def blob_files(tree: Path) -> list[Path]:
    """Every blob of `tree`: in an agent's store, and any an older harness left beside records."""
    return sorted([*tree.glob(f"*/*/{store.BLOBS}/*"), *tree.glob(f"*/{store.BLOBS}/*")])


def one_line(proc, code: int, *words: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in proc.stderr, proc.stderr


def test_a_record_round_trips_through_the_store(tmp_path):
    path = saved(tmp_path)
    stored = json.loads(path.read_text())
    record = load_evidence(path)
    assert Evidence.model_validate(record).model_dump(mode="json") == record
    refs = store.refs(stored)
    shared = store.shared_ref(stored)  # its recipe's part (lean.shares), in its agent's _blobs
    assert refs and shared and {p.name for p in blob_files(tmp_path)} == {f"{h}.txt" for h in [*refs, shared]}
    assert "question" in record and "question" not in stored and stored["agent"] == record["agent"]
    system = record["model_requests"][0]["messages"][0]["text"]
    digest = hashlib.sha256(system.encode()).hexdigest()
    assert (tmp_path / "claude/_blobs" / f"{digest}.txt").read_text() == system  # a text is stored as itself
    assert not (path.parent / store.BLOBS).exists()  # every blob in its agent's store, none beside it
    # env blocks: one ref each (an invocation that had the one before it's leaves it out)
    assert all(inv["env"] == {"ref": inv["env"]["ref"]} for inv in stored["invocations"] if "env" in inv)
    assert path.stat().st_size < (V1 / f"{CELL}.json").stat().st_size / 2
    # stored again: the same bytes, no new blob
    before = {p: p.read_bytes() for p in [path, *blob_files(tmp_path)]}
    saved(tmp_path)
    assert before == {p: p.read_bytes() for p in [path, *blob_files(tmp_path)]}


def test_a_model_request_leaves_out_what_the_one_before_it_said(tmp_path):
    """Each turn's request repeats the session's method, path, model, user agent and tools and
    begins with the last turn's messages: stored once (implied.AS_BEFORE), read back whole."""
    path = saved(tmp_path)
    stored, record = json.loads(path.read_text()), load_evidence(path)
    first, second = stored["model_requests"][:2]
    assert "as_before" not in first and "user_agent" in first
    assert second["as_before"] == 3 and "user_agent" not in second and "tools" not in second
    whole = record["model_requests"][1]
    assert whole["messages"][:3] == record["model_requests"][0]["messages"][:3] and len(whole["messages"]) == 5
    assert whole["user_agent"] == record["model_requests"][0]["user_agent"] and "as_before" not in whole


def test_an_invocation_leaves_out_what_the_one_before_it_had(tmp_path):
    """A hook's cwd, parent and most of its payload (session, transcript path) repeat
    invocation after invocation: stored once (implied.AS_BEFORE, a list of the keys), read
    back whole."""
    path = saved(tmp_path)
    stored, record = json.loads(path.read_text()), load_evidence(path)
    first, second = stored["invocations"][:2]
    assert "as_before" not in first and {"cwd", "payload"} <= set(first)
    assert {"cwd", "payload.session_id", "payload.transcript_path"} <= set(second["as_before"])
    assert "cwd" not in second and "session_id" not in second["payload"] and "prompt" in second["payload"]
    whole = record["invocations"][1]
    assert "as_before" not in whole and whole["cwd"] == record["invocations"][0]["cwd"]
    assert whole["payload"]["session_id"] == record["invocations"][0]["payload"]["session_id"]
    from probes.evidence.model import upgrade

    assert record["invocations"] == Evidence.model_validate(upgrade(v1_record())).model_dump()["invocations"]


def test_the_layout_keeps_short_values_on_one_line():
    text = dumps({"b": [1, 2], "a": {"x": "y" * 200, "z": None}, "c": []})
    assert text == '{\n  "a": {\n    "x": "' + "y" * 200 + '",\n    "z": null\n  },\n  "b": [1,2],\n  "c": []\n}\n'
    assert json.loads(text) == {"b": [1, 2], "a": {"x": "y" * 200, "z": None}, "c": []}


def test_only_the_slots_hold_refs_and_a_value_shaped_like_a_ref_is_stored():
    record = {
        "invocations": [{"env": {"ref": "sha256:" + "0" * 64}, "payload": {"text": "x" * 500}}],
        "model_requests": [{"tools": ["a"], "messages": [{"role": "system", "text": "s" * 500}, {"role": "user", "text": "hi"}]}],
        "cli": {"env_names": None, "stdout_tail": "o" * 500, "argv": ["a" * 500]},
    }
    stored, blobs = store.compact(record)
    env = stored["invocations"][0]["env"]
    assert store.is_ref(env) and json.loads(blobs[store.ref_hex(env)]) == {"ref": "sha256:" + "0" * 64}
    assert stored["invocations"][0]["payload"] == {"text": "x" * 500}  # not a slot
    assert stored["cli"]["argv"] == record["cli"]["argv"] and stored["cli"]["env_names"] is None  # not slots
    assert blobs[store.ref_hex(stored["cli"]["stdout_tail"])] == b"o" * 500  # a CLI's output is one
    assert store.is_ref(stored["model_requests"][0]["messages"][0]["text"])
    assert stored["model_requests"][0]["messages"][1]["text"] == "hi" and stored["model_requests"][0]["tools"] == ["a"]


@pytest.mark.parametrize("spoil", ["missing", "corrupt", "not-a-file"])
def test_a_missing_or_corrupt_blob_is_one_line_naming_record_and_blob(tmp_path, spoil):
    results = tmp_path / "results"
    path = saved(results)
    blob = blob_files(results)[0]
    if spoil == "missing":
        blob.unlink()
    elif spoil == "corrupt":
        blob.write_text("not what its name says")
    else:
        blob.unlink()
        blob.mkdir()
    why = {"missing": "missing", "corrupt": "does not hash to its name", "not-a-file": "not a regular file"}[spoil]
    with pytest.raises(InputError, match=why) as e:
        load_evidence(path)
    assert str(path) in str(e.value) and blob.name in str(e.value) and "\n" not in str(e.value)
    one_line(probe_cmd("cite", "claude@2.1.328", "payload-pretool", results=results), 2, str(path), blob.name, why)
    table = probe_cmd("table", "--format", "json", results=results)
    assert table.returncode == 2 and table.stderr.count("\n") == 2  # skipped with a warning; then nothing left to show
    assert f"skipping {path}" in table.stderr and blob.name in table.stderr
    one_line(probe_cmd("merge", str(results), results=tmp_path / "out"), 2, blob.name, why)
    assert not (tmp_path / "out").exists()


def test_refs_expand_to_a_bounded_size(tmp_path, monkeypatch):
    path = saved(tmp_path)
    monkeypatch.setattr(store, "EXPANDED_MAX_BYTES", 1000)
    with pytest.raises(InputError, match="expand beyond 1000 bytes"):
        load_evidence(path)


def test_merge_carries_the_blobs_and_checks_them(tmp_path):
    a, b, dest = tmp_path / "a", tmp_path / "b", tmp_path / "dest"
    saved(a)
    saved(b, "claude/2.1.328/payload-pretool-copy")  # another cell (misnamed on purpose below)
    shutil.rmtree(b)
    for record in (RESULTS / "copilot" / "1.0.92").glob("*.json"):  # with the blobs they refer to
        copy_record(record, b / "copilot" / "1.0.92" / record.name)
    assert merge([a, b], dest) == (1 + len(list((b / "copilot/1.0.92").glob("*.json"))), 0)
    for tree in (a, b):
        for p in blob_files(tree):
            assert (dest / p.relative_to(tree)).read_bytes() == p.read_bytes()
    load_evidence(dest / f"{CELL}.json")
    # a blob spoiled in the destination is written again from the merged tree
    spoiled = blob_files(dest)[0]
    spoiled.write_text("x")
    assert merge([a, b], dest)[1] > 0
    assert hashlib.sha256(spoiled.read_bytes()).hexdigest() == spoiled.stem


def test_cite_hashes_the_record_with_the_blobs_it_refers_to(tmp_path):
    results = tmp_path / "results"
    path = saved(results)
    refs = store.refs(json.loads(path.read_text()))
    h = hashlib.sha256(path.read_bytes())
    for name in refs:  # ascending, each once (docs/evidence.md)
        h.update((path.parent.parent / store.BLOBS / f"{name}.txt").read_bytes())
    shared = store.shared_ref(json.loads(path.read_text()))  # last: its recipe's part (lean.shares)
    h.update((path.parent.parent / store.BLOBS / f"{shared}.txt").read_bytes())
    out = probe_cmd("cite", "claude@2.1.328", "payload-pretool", results=results)
    assert out.returncode == 0, out.stderr
    assert f"sha256 `{h.hexdigest()}`" in out.stdout
    assert hashlib.sha256(path.read_bytes()).hexdigest() not in out.stdout


def test_reclassify_upgrades_a_version_1_tree_and_removes_unreferenced_blobs(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(V1, results)
    before = {p.relative_to(results): json.loads(p.read_text()) for p in results.glob("*/*/*.json")}
    orphan = results / "claude/2.1.328/_blobs" / f"{'0' * 64}.txt"
    write_atomic(orphan, "nobody refers to me")
    foreign = results / "claude/2.1.328/_blobs/README"
    foreign.write_text("not a blob: left alone")
    proc = probe_cmd("reclassify", results=results)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(f"0 record(s) changed, {len(before)} upgraded\n")
    for rel, v1 in before.items():
        v2 = load_evidence(results / rel)
        assert v2["schema_version"] == SCHEMA_VERSION and "harness_commit" in json.loads((results / rel).read_text())
        assert (v2["outcome"], v2["observations"], v2["claims"]) == (v1["outcome"], v1["observations"], v1["claims"])
        assert v2["invocation_count"] == v1["invocation_count"] and len(v2["model_requests"]) == len(v1["model_requests"])
    assert not orphan.exists() and foreign.exists()
    # the blobs the version 1 tree kept beside its records are in the agent's store now
    assert [p.name for p in (results / "claude/2.1.328/_blobs").iterdir()] == ["README"]
    again = probe_cmd("reclassify", results=results)
    assert again.returncode == 0 and again.stdout == "0 record(s) changed\n"


def test_committed_results_are_compact_and_read_whole():
    """At most 8 KB a record on average, counting the blobs, after 16 KB a version (what its
    blobs hold once: system prompt, tool list; a bisect leaves versions with a record or two);
    every ref resolves."""
    records = sorted(RESULTS.glob("*/*/*.json"))
    blobs = blob_files(RESULTS)
    total = sum(p.stat().st_size for p in [*records, *blobs]) - 16_000 * len({p.parent for p in records})
    assert total / len(records) <= 8000, f"{total / len(records):.0f} bytes a record"
    referenced: set[str] = set()
    for p in records:
        stored = json.loads(p.read_text())
        assert stored["schema_version"] == SCHEMA_VERSION, p
        shared = store.shared_ref(stored)
        referenced |= {f"{p.parent.parent.name}/{h}" for h in [*store.refs(stored), *([shared] if shared else [])]}
    assert all(b.parent.parent.parent == RESULTS for b in blobs)  # each in its agent's store, none beside a record
    assert referenced == {f"{b.parent.parent.name}/{b.stem}" for b in blobs}  # none missing, none unused
    assert max(b.stat().st_size for b in blobs) < limits.BLOB_MAX_BYTES // 16


def test_committed_results_stay_under_60_mb():
    """The whole of results/ in files (records, blobs, tables, the page), issue 32's bound:
    past it, compact (`probe compact`), or move a window's `from` (probes/catalog/windows.yaml)
    and drop what left it (`probe compact --outside-window`)."""
    total = sum(p.stat().st_size for p in RESULTS.rglob("*") if p.is_file())
    assert total < 60_000_000, f"results/ holds {total / 1e6:.1f} MB in files"
