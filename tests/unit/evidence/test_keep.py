"""A re-run that differs from the stored record only in measured numbers, the run's identity and
fields the stored record predates leaves it and its blobs alone (keep.measured_only,
model.save_unless_unchanged): the first command in a fresh clone does not dirty `git status`."""

from __future__ import annotations

import copy
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from probes.evidence import keep, store
from probes.evidence.model import Evidence, load_evidence, save_evidence, save_unless_unchanged
from tests.helpers import RESULTS, ROOT

COMMITTED = RESULTS / "copilot" / "1.0.92" / "hang-pretool.json"


def committed() -> dict[str, Any]:
    return load_evidence(COMMITTED)


def timing_only(record: dict[str, Any]) -> dict[str, Any]:
    """`record` as a second run of the same CLI gives it: other timings, another run."""
    new = copy.deepcopy(record)
    new["cli"]["wall_s"] = record["cli"]["wall_s"] + 1.234
    new["observations"]["tool_delay_s"] = 9.876
    new["run_id"], new["started_at"] = "run-2", "2030-01-01T00:00:00Z"
    new["harness"] = {"startup_s": 0.1, "prepare_s": 0.2, "launch_s": 0.3, "spawn_s": 0.1, "cli_s": 5.0}
    new["harness"] |= {"teardown_s": 0.1, "record_s": 0.1, "total_s": 6.0}
    return new


def test_measured_only_ignores_timings_identity_and_predated_fields():
    old = committed()
    new = timing_only(old)
    new["isolation"] = {"network": "netns", "filesystem": "mount-ns", "user": "userns"}  # null in a record before it
    new["cli"]["secrets_given"] = ["SOME_TOKEN"]
    new["cli"]["first_model_request_s"] = 1.5  # absent in a record before it
    new["observations"]["added_since"] = True  # an observation its classifier gained since
    old["isolation"], old["cli"]["secrets_given"] = None, None
    new["requested_version"] = "latest"  # `probe run copilot` named the version that ran
    new["setup"] = {**old["setup"], "rules": "none"}  # a setup dimension the stored record predates
    assert keep.measured_only(old, new)
    assert keep.measured_only(old, old)


def edit(path: str, value: Any):
    def apply(r: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for p in parents:
            r = r[int(p)] if p.isdigit() else r[p]
        r[last] = value(r[last]) if callable(value) else value

    return apply


@pytest.mark.parametrize(
    "change",
    [
        edit("outcome", "fail-closed"),
        edit("observations.tool_ran", False),
        edit("observations.tools_ran", 2),  # a number, but a count, not a measurement
        edit("observations.hook_exit", None),  # a null is behaviour here, not a field it predates
        edit("invocations_by_event", {"preToolUse": 2}),
        edit("invocation_count", 2),
        edit("claims.0.verdict", "disagrees"),
        edit("cli.stdout_tail", lambda t: t + " and something else"),
        edit("cli.exit_code", None),
        edit("cli.exit_signal", "SIGKILL"),
        edit("repeats", {"runs": 3, "outcomes": {"fail-open": 3}}),  # --repeat 3 on a single run's record
        edit("executed_version", "1.0.93"),
    ],
)
def test_measured_only_sees_a_label_or_observation_change(change):
    old = committed()
    new = timing_only(old)
    change(new)
    assert not keep.measured_only(old, new)


def renumbered(text: str) -> str:
    return re.sub(r"\d+", lambda m: str(int(m.group()) + 7), text)


def blobs_of(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((directory / store.BLOBS).iterdir())}


def test_save_unless_unchanged_leaves_bytes_and_blobs(tmp_path):
    path = tmp_path / "copilot" / "1.0.92" / "hang-pretool.json"
    ev = Evidence.model_validate(committed())
    save_evidence(path, ev)
    before, blobs = path.read_bytes(), blobs_of(path.parent.parent)
    rerun = timing_only(ev.model_dump(mode="json"))
    # other pids and offsets in a tail and in a prompt stored as a blob: masked, and no new blob
    rerun["cli"]["stdout_tail"] = renumbered(rerun["cli"]["stdout_tail"])
    for m in rerun["model_requests"][0]["messages"]:
        m["text"] = renumbered(m["text"])
    assert rerun["cli"]["stdout_tail"] != ev.cli.stdout_tail
    again = Evidence.model_validate(rerun)
    assert save_unless_unchanged(path, again) is False
    assert path.read_bytes() == before and blobs_of(path.parent.parent) == blobs
    assert save_unless_unchanged(path, again, update=True) is True
    assert path.read_bytes() != before and load_evidence(path)["run_id"] == "run-2"


def test_a_changed_or_unreadable_record_is_written(tmp_path):
    path = tmp_path / "copilot" / "1.0.92" / "hang-pretool.json"
    ev = Evidence.model_validate(committed())
    assert save_unless_unchanged(path, ev) is True  # nothing there
    assert save_unless_unchanged(path, ev.model_copy(update={"outcome": "fail-closed"})) is True
    assert load_evidence(path)["outcome"] == "fail-closed"
    path.write_text("{not json")
    assert save_unless_unchanged(path, ev) is True and load_evidence(path)["outcome"] == ev.outcome


def test_probe_check_dir_is_ignored():
    """`probe check` writes probe-check/ in the working directory: git never shows it."""
    proc = subprocess.run(["git", "check-ignore", "-q", "probe-check/x"], cwd=ROOT, capture_output=True)
    assert proc.returncode == 0, proc.stderr
