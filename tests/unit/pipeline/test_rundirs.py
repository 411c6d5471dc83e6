"""Run directories: locked by their owner while it lives, swept once it is gone (fast: no CLI)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from probes.pipeline import rundirs

HOLD = """
import sys, time
from pathlib import Path
from probes.pipeline import rundirs
with rundirs.run_directory() as d:
    (d / "workspace").mkdir()
    print(d, flush=True)
    time.sleep(60)
"""


def owner(tmp: Path) -> tuple[subprocess.Popen, Path]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD], env={**os.environ, "TMPDIR": str(tmp)}, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_live_owners_directory_stays_and_a_killed_ones_goes(tmp_path):
    live, live_dir = owner(tmp_path)
    dead, dead_dir = owner(tmp_path)
    try:
        dead.kill()
        dead.wait()
        assert dead_dir.is_dir()  # SIGKILL: nothing of the owner's cleanup ran
        assert rundirs.sweep(tmp_path) == [dead_dir]
        assert live_dir.is_dir() and not dead_dir.exists()
    finally:
        live.kill()
        live.wait()


def test_a_directory_without_a_lock_goes_only_when_old(tmp_path):
    fresh, old = tmp_path / "probe-run-fresh", tmp_path / "probe-run-old"
    for d in (fresh, old):
        (d / "records").mkdir(parents=True)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert rundirs.sweep(tmp_path) == [old]
    assert fresh.is_dir()


def test_the_sweep_removes_what_a_session_made_unwritable_and_ignores_links(tmp_path):
    proc, d = owner(tmp_path)
    stuck = d / "workspace" / "stuck"
    stuck.mkdir()
    (stuck / "f").write_text("x")
    stuck.chmod(0)
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "probe-run-link").symlink_to(target)
    proc.kill()
    proc.wait()
    assert rundirs.sweep(tmp_path) == [d]
    assert not d.exists() and target.is_dir()


def test_a_run_directory_is_removed_when_its_block_ends(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with rundirs.run_directory() as d:
        assert (d / rundirs.LOCK).is_file()
    assert not d.exists()
