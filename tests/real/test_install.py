"""Installs: a failed install leaves nothing a later run would use; a real install is
pruned and shares files with another version, and still runs a real probe."""

from __future__ import annotations

import json
import re

import pytest

from probes.versions import cache as cache_mod
from probes.versions import slim
from tests.helpers import COPILOT, probe_cmd

# Copilot 1.0.57's main package ships every platform's prebuilds (pruning drops about 197 MB
# of them); 1.0.92 shares about 30 MB of identical files with it.
FIRST, SECOND = "copilot@1.0.57", COPILOT


@pytest.mark.real
def test_real_install_is_pruned_shared_and_still_probes(real_tools, tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path / "cache"))  # probe_cmd's processes inherit it
    monkeypatch.delenv("PROBE_CACHE_MAX", raising=False)
    for spec in (FIRST, SECOND):
        proc = probe_cmd("run", spec, "payload-pretool", "--json", "--progress", results=tmp_path / "results")
        assert proc.returncode == 0, proc.stderr
        # uncached: --progress says the install, its time and size, on stderr (stdout is the record)
        assert re.search(rf"probe: installing copilot {spec.split('@')[1]} from npm: done in \d+\.\ds \(\d+ MB\)", proc.stderr)
        ev = json.loads(proc.stdout)
        assert ev["outcome"] == "recorded" and ev["observations"]["tool_ran"] is True
        assert 0 < ev["harness"]["install_s"] <= ev["harness"]["prepare_s"]
    root = tmp_path / "cache" / "cli" / "copilot"
    first, second = (root / s.split("@")[1] for s in (FIRST, SECOND))
    here = slim.this_platform()
    assert not [d for d in first.rglob("*") if d.is_dir() and slim.foreign(d.name, here)]
    record = cache_mod.read_record(first)
    assert record is not None and record["dropped_bytes"] > 100_000_000
    inodes = {p.stat().st_ino for p in first.rglob("*") if p.is_file() and not p.is_symlink()}
    assert any(p.stat().st_ino in inodes for p in second.rglob("*") if p.is_file() and not p.is_symlink())
    listed = json.loads(probe_cmd("cache", "--json").stdout)
    assert {r["version"] for r in listed["versions"]} == {first.name, second.name}
    assert all(r["unique_bytes"] < r["bytes"] and r["install_s"] > 0 for r in listed["versions"])
    # removing one version leaves the other whole: it still runs a real probe
    proc = probe_cmd("cache", "prune", "--agent", "copilot", "--version", second.name)
    assert proc.returncode == 0 and f"removed copilot@{second.name}" in proc.stdout, proc.stderr
    proc = probe_cmd("run", FIRST, "payload-pretool", "--json", results=tmp_path / "results")
    assert proc.returncode == 0 and json.loads(proc.stdout)["outcome"] == "recorded", proc.stderr
