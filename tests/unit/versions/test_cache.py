"""The CLI cache's own logic on temporary trees: the platform rule, sharing by content,
sizes that count a hard-linked file once, least-recently-used eviction that never takes a
version in use, and `probe cache` (the fakes are our own trees; no CLI is run here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probes.cli import main
from probes.errors import InputError
from probes.versions import cache, slim
from probes.versions.cache import Version, plan_eviction

LINUX_X64 = slim.Platform(frozenset({"linux"}), frozenset({"x64", "amd64"}), frozenset({"gnu", "glibc"}))


@pytest.mark.parametrize(
    "name",
    [
        "darwin-arm64",
        "win32-x64",
        "linux-arm64",
        "linuxmusl-x64",
        "sharp-darwin-x64",
        "copilot-win32-arm64",
        "x86_64-pc-windows-msvc",
        "x86_64-unknown-linux-musl",
        "aarch64-apple-darwin",
        "arm64",
        "darwin",
        "webview-linux-arm64-gnu",
    ],
)
def test_other_platforms_directories_are_foreign(name):
    assert slim.foreign(name, LINUX_X64)


@pytest.mark.parametrize(
    "name",
    [
        "linux-x64",
        "x64",
        "webview-linux-x64-gnu",
        "x86_64-unknown-linux-gnu",
        "copilot-linux-x64",
        "sharp-libvips-linux-x64",
        "arm.js",
        "armada",
        "windows-helpers",
        "lib",
        "node_modules",
        "universal-user-agent",
        "prebuilds",
    ],
)
def test_this_platforms_and_ordinary_directories_are_kept(name):
    assert not slim.foreign(name, LINUX_X64)


def test_musl_host_drops_glibc_builds():
    musl = slim.Platform(frozenset({"linux"}), frozenset({"x64"}), frozenset({"musl"}))
    assert slim.foreign("linux-x64-gnu", musl) and not slim.foreign("linuxmusl-x64", musl)


def write(path: Path, data: bytes, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)
    return path


def test_drop_foreign_removes_other_platforms_and_never_the_binary(tmp_path):
    pkg = tmp_path / "node_modules" / "pkg"
    write(pkg / "prebuilds" / "linux-x64" / "runtime.node", b"x" * 100)
    write(pkg / "prebuilds" / "darwin-arm64" / "runtime.node", b"y" * 300)
    write(pkg / "ripgrep" / "bin" / "win32-x64" / "rg.exe", b"z" * 50)
    binary = write(tmp_path / "odd" / "darwin" / "cli", b"#!/bin/sh\n", 0o755)  # a misnamed home for the CLI
    dropped = slim.drop_foreign(tmp_path, binary, LINUX_X64)
    assert dropped == 350
    assert (pkg / "prebuilds" / "linux-x64" / "runtime.node").exists() and binary.exists()
    assert not (pkg / "prebuilds" / "darwin-arm64").exists() and not (pkg / "ripgrep" / "bin" / "win32-x64").exists()


BIG = slim.SHARE_MIN_BYTES


def test_identical_files_are_shared_by_content_across_versions(tmp_path):
    store = tmp_path / "store"
    a = write(tmp_path / "v1" / "lib.js", b"a" * BIG)
    b = write(tmp_path / "v2" / "sub" / "lib.js", b"a" * BIG)
    exe = write(tmp_path / "v2" / "bin" / "lib", b"a" * BIG, 0o755)  # same bytes, executable
    small = write(tmp_path / "v2" / "small.js", b"a" * 10)
    small1 = write(tmp_path / "v1" / "small.js", b"a" * 10)
    assert slim.share(tmp_path / "v1", store) == 0  # the first copy goes into the store
    assert slim.share(tmp_path / "v2", store) == BIG
    assert a.stat().st_ino == b.stat().st_ino and a.stat().st_nlink == 3  # v1, v2, the store
    assert exe.stat().st_ino != a.stat().st_ino and os.access(exe, os.X_OK)
    assert small.stat().st_ino != small1.stat().st_ino  # not worth a hash
    assert b.read_bytes() == b"a" * BIG
    assert not list(tmp_path.rglob(".*link-*"))


def test_a_store_entry_swept_between_two_installs_is_added_again(tmp_path):
    store = tmp_path / "store"
    write(tmp_path / "v1" / "f", b"q" * BIG)
    slim.share(tmp_path / "v1", store)
    import shutil

    shutil.rmtree(tmp_path / "v1")
    assert slim.sweep(store) > 0 and not list((store / "sha256").iterdir())
    f2 = write(tmp_path / "v2" / "f", b"q" * BIG)
    slim.share(tmp_path / "v2", store)
    assert f2.stat().st_nlink == 2 and f2.read_bytes() == b"q" * BIG


def _share_and_sweep(args: tuple[str, str, bool]) -> None:
    tree, store, sweeping = args
    slim.share(Path(tree), Path(store))
    if sweeping:
        slim.sweep(Path(store))


def test_concurrent_installs_and_sweeps_leave_every_file_whole(tmp_path):
    import multiprocessing

    files = {f"lib/{i}.js": bytes([i]) * (BIG + i) for i in range(20)}
    trees = []
    for n in range(4):
        for rel, data in files.items():
            write(tmp_path / f"v{n}" / rel, data)
        trees.append((str(tmp_path / f"v{n}"), str(tmp_path / "store"), n % 2 == 1))
    # spawn, not fork: a pytest worker may hold a lock in another thread (a forked child waited
    # on it for good, 28 minutes in one CI-like run)
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_share_and_sweep, trees)
    for n in range(4):
        for rel, data in files.items():
            assert (tmp_path / f"v{n}" / rel).read_bytes() == data
    assert not list(tmp_path.rglob(".*link-*"))
    slim.share(tmp_path / "v0", tmp_path / "store")  # whatever a sweep undid, sharing converges
    for n in range(1, 4):
        slim.share(tmp_path / f"v{n}", tmp_path / "store")
    for rel in files:
        assert len({(tmp_path / f"v{n}" / rel).stat().st_ino for n in range(4)}) == 1


def version(name: str, inodes: dict[tuple[int, int], int], last_used: float) -> Version:
    return Version("claude", name, Path("/nowhere") / name, inodes, last_used, None)


def test_eviction_takes_least_recently_used_first_and_counts_shared_bytes_once():
    shared = {(1, 1): 100}
    old = version("1", {**shared, (1, 2): 50}, last_used=1)
    mid = version("2", {**shared, (1, 3): 60}, last_used=2)
    new = version("3", {(1, 4): 70}, last_used=3)
    # total = 100 + 50 + 60 + 70 = 280: removing `old` frees only its own 50
    assert [v.version for v in plan_eviction([new, old, mid], 230, lambda v: True)] == ["1"]
    assert [v.version for v in plan_eviction([new, old, mid], 229, lambda v: True)] == ["1", "2"]
    assert plan_eviction([new, old, mid], 280, lambda v: True) == []


def test_eviction_skips_a_version_in_use_and_never_touches_pinned_ones():
    old = version("1", {(1, 1): 100}, last_used=1)
    mid = version("2", {(1, 2): 100}, last_used=2)
    other = version("9", {(1, 9): 1000}, last_used=0)
    chosen = plan_eviction([old, mid], 50, lambda v: v.version != "1", pinned=[other])
    assert [v.version for v in chosen] == ["2"]


def fake_install(root: Path, agent: str, name: str, files: dict[str, bytes]) -> Path:
    prefix = root / "cli" / agent / name
    for rel, data in files.items():
        write(prefix / rel, data)
    slim.share(prefix, root / "store")
    return prefix


def installed_in(agent: str, prefix: Path) -> bool:
    return (prefix / "bin").is_dir()


def test_evict_removes_lru_versions_but_not_one_held_and_sweeps_the_store(tmp_path):
    common = b"c" * (4 * BIG)
    v1 = fake_install(tmp_path, "claude", "1.0.1", {"bin/cli": b"1" * BIG, "lib.js": common})
    v2 = fake_install(tmp_path, "claude", "1.0.2", {"bin/cli": b"2" * BIG, "lib.js": common})
    v3 = fake_install(tmp_path, "claude", "1.0.3", {"bin/cli": b"3" * BIG, "lib.js": common})
    for i, v in enumerate((v1, v2, v3)):
        cache.use_path(v).touch()
        os.utime(cache.use_path(v), (1000 + i, 1000 + i))
    found = cache.scan(tmp_path, None, installed_in)
    assert found.total == sum(found.size(v) for v in found.versions) - 2 * 4 * BIG  # common once
    cache.hold(v1)  # this process uses the oldest (holding it marks it used now: set it back)
    os.utime(cache.use_path(v1), (1000, 1000))
    try:
        removed, skipped = cache.evict(tmp_path, found.total - 1, installed_in)
    finally:
        cache.release(v1)
    assert [v.version for v in removed] == ["1.0.2"] and [v.version for v in skipped] == ["1.0.1"]
    assert v1.exists() and not v2.exists() and v3.exists()
    assert (v1 / "lib.js").read_bytes() == common
    assert not [e for e in (tmp_path / "store" / "sha256").iterdir() if e.stat().st_nlink == 1]


def test_evict_clears_what_a_killed_eviction_left(tmp_path):
    mine = write(tmp_path / "cli" / "claude" / f".1.0.1.evicted-{os.getpid()}" / "f", b"x")  # under way
    gone = write(tmp_path / "cli" / "claude" / ".1.0.2.evicted-4194304" / "f", b"x")  # above pid_max
    cache.evict(tmp_path, None, installed_in)
    assert mine.exists() and not gone.exists()


def test_evict_dry_run_and_named_version(tmp_path):
    v1 = fake_install(tmp_path, "claude", "1.0.1", {"bin/cli": b"1" * BIG})
    v2 = fake_install(tmp_path, "claude", "1.0.2", {"bin/cli": b"2" * BIG})
    removed, _ = cache.evict(tmp_path, 0, installed_in, dry_run=True)
    assert len(removed) == 2 and v1.exists() and v2.exists()
    removed, _ = cache.evict(tmp_path, None, installed_in, only={"claude": "1.0.2"})
    assert [v.version for v in removed] == ["1.0.2"] and v1.exists() and not v2.exists()


@pytest.mark.parametrize(("text", "n"), [("20G", 20 << 30), ("500M", 500 << 20), ("1.5K", 1536), ("123", 123), ("2GiB", 2 << 30)])
def test_sizes_parse(text, n):
    assert cache.parse_size(text) == n


@pytest.mark.parametrize("text", ["", "lots", "-1G", "5X", "1e9", "9" * 40])
def test_bad_sizes_are_one_line(text):
    with pytest.raises(InputError, match="PROBE_CACHE_MAX"):
        cache.parse_size(text)


def test_bad_probe_cache_max_is_one_line_exit_2(tmp_path):
    env = {**os.environ, "PROBE_CACHE": str(tmp_path), "PROBE_CACHE_MAX": "lots"}
    for args in (["cache", "prune"], ["cache", "list"]):
        proc = subprocess.run([sys.executable, "-m", "probes.cli", *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "PROBE_CACHE_MAX='lots'" in proc.stderr, proc.stderr


def test_probe_cache_list_and_prune(tmp_path, monkeypatch, capsys):
    from probes.versions import install

    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))
    monkeypatch.setattr(install, "installed_in", installed_in)
    v1 = fake_install(tmp_path, "claude", "1.0.1", {"bin/cli": b"1" * BIG, "lib.js": b"c" * BIG})
    fake_install(tmp_path, "claude", "1.0.2", {"bin/cli": b"2" * BIG, "lib.js": b"c" * BIG})
    cache.write_record(
        v1,
        cache.InstallRecord(
            agent="claude",
            version="1.0.1",
            installed_at="2026-01-02T03:04:05+00:00",
            install_s=4.2,
            npm_s=2.0,
            dropped_bytes=0,
            shared_bytes=0,
        ),
    )
    assert main(["cache", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    rows = {r["version"]: r for r in listed["versions"]}
    assert rows["1.0.1"]["install_s"] == 4.2 and rows["1.0.2"]["installed_at"] is None
    assert rows["1.0.1"]["unique_bytes"] < rows["1.0.1"]["bytes"]  # lib.js is shared
    assert main(["cache", "list", "--agent", "claude"]) == 0
    assert "4.2s" in capsys.readouterr().out
    assert main(["cache", "prune", "--agent", "claude", "--version", "1.0.1"]) == 0
    assert "removed claude@1.0.1" in capsys.readouterr().out and not v1.exists()


def test_probe_cache_prune_input_errors(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))
    monkeypatch.delenv("PROBE_CACHE_MAX", raising=False)
    fake_install(tmp_path, "claude", "1.0.1", {"bin/cli": b"1" * BIG})
    for argv, msg in (
        (["cache", "prune"], "say how much to keep"),
        (["cache", "prune", "--agent", "claud"], "Perhaps you meant claude"),
        (["cache", "prune", "--version", "1.0.1"], "name the agent"),
        (["cache", "prune", "--max", "big"], "--max='big'"),
    ):
        assert main(argv) == 2
        assert msg in capsys.readouterr().err
