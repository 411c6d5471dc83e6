"""Installs: a failed install leaves nothing a later run would use; a real install is
pruned and shares files with another version, and still runs a real probe."""

from __future__ import annotations

import json

import pytest

from probes.agents import AGENTS
from probes.errors import HarnessError, HostError, InputError
from probes.versions import cache as cache_mod
from probes.versions import install, prefixes


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))
    return tmp_path


def fake_npm(fail: bool):
    def npm_install(package, version, staging, npm_cache, env=None):
        (npm_cache / "_cacache").mkdir(parents=True)  # what npm keeps: this install's alone
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
    (cache / "cli" / "claude" / ".9.9.9.npm-cache-99999").mkdir()
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=False))
    prefix = install.install(AGENTS["claude"], "9.9.9")
    assert prefixes.installed(AGENTS["claude"], "9.9.9") and prefix.name == "9.9.9"
    assert not stale.exists()
    # npm's cache was this install's alone (not ~/.npm, which grew without bound): gone with it
    assert not [p for p in (cache / "cli" / "claude").iterdir() if p.name.startswith(".")]
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


def test_an_agent_s_preflight_stops_the_install_before_anything_is_written(cache, monkeypatch):
    def lacking() -> None:
        raise InputError("vscode needs make ...")

    monkeypatch.setattr(AGENTS["vscode"], "preflight", lacking)
    monkeypatch.setattr(install, "_npm_install", lambda *a, **k: pytest.fail("npm ran"))
    with pytest.raises(InputError, match="needs make"):
        install.install(AGENTS["vscode"], "9.9.9")
    assert not (cache / "cli").exists()


def npm_leaving_out_natives(present: bool):
    """npm as it behaves with a full disk: the optional package holding the platform's binary
    skipped, success reported, the wrapper's placeholder left as the binary (Claude Code 2.1.200)."""

    def npm_install(package, version, staging, npm_cache, env=None):
        fake_npm(fail=False)(package, version, staging, npm_cache, env)
        root = staging / "node_modules" / package
        root.mkdir(parents=True)
        platforms = ("darwin-arm64", "linux-x64", "linux-arm64", "linux-x64-musl", "win32-x64")
        optional = {f"{package}-{p}": version for p in platforms}
        (root / "package.json").write_text(json.dumps({"name": package, "optionalDependencies": optional}))
        for name in optional if present else ():
            (staging / "node_modules" / name).mkdir(parents=True)

    return npm_install


def test_an_install_npm_left_without_its_native_binary_is_not_kept(cache, monkeypatch):
    """The registry decides whose fault it is: it has Claude Code 2.1.200's linux package (the
    host's: a full disk, nothing kept); it never had 9.9.9's, so that install is the release as
    published (Copilot 1.0.56 runs its JavaScript without one) and its runs speak for it."""
    monkeypatch.setattr(install, "_npm_install", npm_leaving_out_natives(present=False))
    with pytest.raises(HostError, match=r"left out @anthropic-ai/claude-code-linux-\w+, its binary for this platform"):
        install.install(AGENTS["claude"], "2.1.200")
    assert not prefixes.installed(AGENTS["claude"], "2.1.200")
    assert install.install(AGENTS["claude"], "9.9.9").name == "9.9.9"


def test_a_disk_near_full_stops_an_install_before_npm_runs(cache, monkeypatch):
    monkeypatch.setattr(install, "DISK_FLOOR_BYTES", 2**62)
    monkeypatch.setattr(install, "_npm_install", lambda *a, **k: pytest.fail("npm ran"))
    with pytest.raises(HostError, match=r"only .* free on the disk of .*probe cache prune --max SIZE"):
        install.install(AGENTS["claude"], "9.9.9")
    assert not prefixes.installed(AGENTS["claude"], "9.9.9")
