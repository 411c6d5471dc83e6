"""Provenance (probes/evidence/provenance.py): a record names the harness version and the git commit it
was built from, read from .git without running git, or from a COMMIT file a build wrote."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from probes import __version__
from probes.evidence import provenance


def git(repo: Path, *args: str) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "PATH": "/usr/bin:/bin"}
    cmd = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(cmd, cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    (r / "f").write_text("x")
    git(r, "add", "f")
    git(r, "commit", "-q", "-m", "one")
    return r


def test_the_commit_is_read_as_git_stores_it(repo):
    head = git(repo, "rev-parse", "HEAD")
    assert provenance.from_checkout(repo / ".git") == head  # a loose ref
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert provenance.from_checkout(repo / ".git") == head  # a packed one
    git(repo, "checkout", "-q", "--detach")
    assert provenance.from_checkout(repo / ".git") == head  # a detached HEAD


def test_a_worktree_reads_its_own_head(repo, tmp_path):
    git(repo, "branch", "other")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "other")
    assert (tmp_path / "wt" / ".git").is_file()
    assert provenance.from_checkout(tmp_path / "wt" / ".git") == git(repo, "rev-parse", "other")


def test_unknown_is_none(tmp_path, repo):
    assert provenance.from_checkout(tmp_path / "nowhere" / ".git") is None
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/gone\n")
    assert provenance.from_checkout(repo / ".git") is None
    (repo / ".git" / "HEAD").write_text("ref: ../../etc/passwd\n")
    assert provenance.from_checkout(repo / ".git") is None


def test_an_installed_package_reads_the_commit_file_a_build_wrote(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "probes"
    package.mkdir(parents=True)
    monkeypatch.setattr(provenance, "PACKAGE", package)
    provenance.commit.cache_clear()
    try:
        assert provenance.commit() is None
        provenance.commit.cache_clear()
        (package / "COMMIT").write_text("0123456789ABCDEF0123456789abcdef01234567\n")
        assert provenance.commit() == "0123456789abcdef0123456789abcdef01234567"
    finally:
        provenance.commit.cache_clear()


def test_this_checkout_is_read_and_quickly():
    provenance.commit.cache_clear()
    t = time.perf_counter()
    found = provenance.commit()
    assert time.perf_counter() - t < 0.05
    root = Path(provenance.__file__).resolve().parent.parent
    if (root / ".git").exists():
        assert found == subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    assert provenance.version() == __version__
