"""Stable bytes: two runs of an unchanged probe differ only in measured numbers (times,
offsets, pids) and the run's identity (run_id). Runs the real CLIs, twice each."""

from __future__ import annotations

import difflib
import json
import re

import pytest

from probes.evidence.model import load_evidence
from tests.helpers import CLAUDE, COPILOT, probe_cmd

pytestmark = pytest.mark.real


def masked(record: dict) -> list[str]:
    """The record, resolved, with its run_id dropped and every number masked, as lines."""
    record = {k: v for k, v in record.items() if k != "run_id"}
    return re.sub(r"\d+", "N", json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False)).splitlines()


@pytest.mark.parametrize("spec, recipe", [(CLAUDE, "payload-pretool"), (COPILOT, "hang-pretool")])
def test_two_runs_differ_only_in_numbers(real_tools, tmp_path, spec, recipe):
    runs = []
    for i in (1, 2):
        results = tmp_path / f"run{i}"
        proc = probe_cmd("run", spec, recipe, results=results)
        assert proc.returncode == 0, proc.stderr
        (path,) = results.glob(f"*/*/{recipe}.json")
        runs.append(load_evidence(path))
    assert runs[0]["run_id"] != runs[1]["run_id"]
    diff = [d for d in difflib.unified_diff(masked(runs[0]), masked(runs[1]), lineterm="", n=0) if d[:1] in "+-"]
    assert diff[2:] == [], "\n".join(diff[:20])  # past the ---/+++ header: nothing
    # and the stored bytes (refs included) differ only in numbers and the run_id too
    texts = [re.sub(r'"run_id": "\w+"|\d+', "N", p.read_text()) for p in sorted(tmp_path.glob(f"run*/*/*/{recipe}.json"))]
    stored_diff = [d for d in difflib.unified_diff(*(t.splitlines() for t in texts), lineterm="", n=0) if d[:1] in "+-"]
    assert stored_diff[2:] == [] or all("sha256:" in d for d in stored_diff[2:]), "\n".join(stored_diff[:20])
