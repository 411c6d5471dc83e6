"""Which harness wrote a record: its version and the git commit it was built from.

The commit is read once, cheaply, without running git: from the checkout the package lives in
(.git/HEAD, then the ref it names, loose or packed), else from probes/COMMIT, a file a build
writes (the Dockerfile's PROBE_COMMIT), else it is unknown (None). Uncommitted changes in the
checkout are not seen."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from probes import __version__
from probes.limits import BadFile, decode, read_bounded

PACKAGE = Path(__file__).resolve().parent.parent
COMMIT_RE = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?\Z")  # SHA-1, or SHA-256 repositories
SMALL = 64 * 1024  # HEAD, a ref, the commondir pointer; packed-refs may be larger
PACKED_MAX = 16 * 1024 * 1024


def version() -> str:
    return __version__


@functools.cache
def commit() -> str | None:
    """The harness's git commit (lowercase hex), or None when it cannot be told."""
    found = from_checkout(PACKAGE.parent / ".git")
    if found is None:
        found = checked(read(PACKAGE / "COMMIT", SMALL))
    return found


def from_checkout(dot_git: Path) -> str | None:
    """HEAD's commit in the repository whose .git is `dot_git` (a directory, or a worktree's
    `gitdir:` file), read as git stores it."""
    gitdir = dot_git
    if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
        text = read(dot_git, SMALL) or ""
        if not text.startswith("gitdir:"):
            return None
        gitdir = (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
    head = read(gitdir / "HEAD", SMALL)
    if head is None:
        return None
    head = head.strip()
    if not head.startswith("ref:"):
        return checked(head)  # a detached HEAD holds the commit itself
    ref = head.removeprefix("ref:").strip()
    if not ref.startswith("refs/") or ".." in ref.split("/"):
        return None
    common = gitdir
    pointer = read(gitdir / "commondir", SMALL)
    if pointer is not None:  # a worktree keeps its branches in the main repository
        common = (gitdir / pointer.strip()).resolve()
    for where in (gitdir, common):
        loose = checked(read(where / ref, SMALL))
        if loose:
            return loose
    for line in (read(common / "packed-refs", PACKED_MAX) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name == ref:
            return checked(sha)
    return None


def read(path: Path, limit: int) -> str | None:
    """A small file's text (bounded, a regular file only), or None."""
    try:
        return decode(read_bounded(path, limit))
    except BadFile:
        return None


def checked(text: str | None) -> str | None:
    sha = (text or "").strip().lower()
    return sha if COMMIT_RE.match(sha) else None
