"""Installs: a failed install leaves nothing a later run would use; a real install is
pruned and shares files with another version, and still runs a real probe."""

from __future__ import annotations

import json

import pytest

from probes.agents import AGENTS
from probes.errors import HarnessError, InputError
from probes.versions import cache as cache_mod
from probes.versions import install, prefixes, slim
from tests.conftest import COPILOT, probe_cmd


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))
    return tmp_path


def fake_npm(fail: bool):
    def npm_install(package, version, staging, env=None):
        binary = AGENTS["claude"].binary_path(staging)
        binary.parent.mkdir(parents=True)
        binary.write_text("#!/bin/sh\n")  # half an install: the binary is there already
        if fail:
            raise HarnessError("npm install failed midway")

    return npm_install


def test_failed_install_leaves_no_usable_prefix(cache, monkeypatch):
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=True))
    with pytest.raises(HarnessError):
        install.install(AGENTS["claude"], "9.9.9")
    assert not prefixes.installed(AGENTS["claude"], "9.9.9")
    assert sorted(p.name for p in (cache / "cli" / "claude").iterdir()) == ["9.9.9.lock", "9.9.9.use"]  # no record


def test_stale_partial_from_a_killed_install_is_cleared(cache, monkeypatch):
    stale = cache / "cli" / "claude" / ".9.9.9.partial-99999"
    stale.mkdir(parents=True)
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=False))
    prefix = install.install(AGENTS["claude"], "9.9.9")
    assert prefixes.installed(AGENTS["claude"], "9.9.9") and prefix.name == "9.9.9"
    assert not stale.exists()
    assert prefixes.installed_versions(AGENTS["claude"]) == ["9.9.9"]


def test_install_records_its_time_and_holds_the_version(cache, monkeypatch):
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=False))
    prefix = install.install(AGENTS["claude"], "9.9.9")
    record = cache_mod.read_record(prefix)
    assert record is not None and record["version"] == "9.9.9" and record["install_s"] >= 0
    assert cache_mod.try_take(prefix) is None  # in use by this process: eviction skips it
    cache_mod.release(prefix)


def test_bad_cache_max_stops_before_installing(cache, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE_MAX", "20 gigs")
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=False))
    with pytest.raises(InputError, match="PROBE_CACHE_MAX"):
        install.install(AGENTS["claude"], "9.9.9")
    assert not (cache / "cli").exists()


# Copilot 1.0.57's main package ships every platform's prebuilds (pruning drops about 197 MB
# of them); 1.0.92 shares about 30 MB of identical files with it.
FIRST, SECOND = "copilot@1.0.57", COPILOT


@pytest.mark.real
def test_real_install_is_pruned_shared_and_still_probes(real_tools, tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path / "cache"))  # probe_cmd's processes inherit it
    monkeypatch.delenv("PROBE_CACHE_MAX", raising=False)
    for spec in (FIRST, SECOND):
        proc = probe_cmd("run", spec, "payload-pretool", "--json", results=tmp_path / "results")
        assert proc.returncode == 0, proc.stderr
        ev = json.loads(proc.stdout)
        assert ev["outcome"] == "recorded" and ev["observations"]["tool_ran"] is True
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
