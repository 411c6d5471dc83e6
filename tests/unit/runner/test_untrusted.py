"""The one reader of what a session leaves (probes/runner/untrusted.py), on files made here,
and the list of every other file access in the modules that handle a run's directories: a
new read of a run's content cannot bypass the reader without a reviewed entry below."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from probes.runner import untrusted
from tests.helpers import ROOT

PROBES = ROOT / "probes"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "file.txt").write_text("0123456789")
    (tmp_path / "secret").write_text("host secret")
    os.symlink(tmp_path / "secret", tmp_path / "dir" / "link")
    os.symlink(tmp_path / "dir", tmp_path / "dirlink")
    os.mkfifo(tmp_path / "dir" / "pipe")
    return tmp_path


def test_a_regular_file_reads_whole_head_or_tail(root):
    assert untrusted.read(root, "dir/file.txt", 10) == b"0123456789"
    assert untrusted.read(root, "dir/file.txt", 4, "head") == b"0123"
    assert untrusted.read(root, "dir/file.txt", 4, "tail") == b"6789"
    with pytest.raises(untrusted.Refused, match="over the limit of 9"):
        untrusted.read(root, "dir/file.txt", 9)


@pytest.mark.parametrize(
    "rel, why",
    [
        ("dir/link", "a symlink to '.*secret', not followed"),
        ("dirlink/file.txt", "dirlink is not a directory \\(a link is not followed\\)"),
        ("dir/pipe", "a fifo, not opened"),
        ("../secret", "not a path inside the run"),
        ("/etc/passwd", "not a path inside the run"),
        ("dir", "a directory"),
        ("dir/missing", "cannot read"),
    ],
)
def test_links_fifos_and_escapes_are_refused_in_words(root, rel, why):
    with pytest.raises(untrusted.Refused, match=why):
        untrusted.read(root, rel, 1024)


def test_a_device_is_never_opened(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero")
    with pytest.raises(untrusted.Refused, match="/dev/zero', not followed"):
        untrusted.read(tmp_path, "zero", 1024, "head")
    with pytest.raises(untrusted.Refused, match="a device, not opened"):
        untrusted.read(Path("/dev"), "zero", 10, "head")


def test_lstat_exists_names_and_walk_never_follow(root):
    assert untrusted.lstat(root, "dir/link") == untrusted.Entry(
        "symlink", 0, os.lstat(root / "dir/link").st_mtime_ns, str(root / "secret")
    )
    assert untrusted.exists(root, "dir/pipe") and not untrusted.exists(root, "dir/missing")
    assert not untrusted.exists(root, "dirlink/file.txt")  # through a link: nothing there
    assert untrusted.names(root, "dir") == ["file.txt", "link", "pipe"]
    assert untrusted.names(root, "dirlink") == []
    found = untrusted.walk(root)
    assert {k: v.kind for k, v in found.items()} == {
        "dir/file.txt": "file",
        "dir/link": "symlink",
        "dir/pipe": "fifo",
        "dirlink": "symlink",
        "secret": "file",
    }
    assert untrusted.walk(root, "dirlink") == {}


def test_a_walk_is_bounded(tmp_path):
    for i in range(50):
        (tmp_path / f"f{i}").touch()
    assert len(untrusted.walk(tmp_path, limit=10)) == 10


# ---------------------------------------------------------------- every other file access

# The modules that handle a run's directories. Every call below that reads or lists a path
# reads something the harness owns (its own files, the CLI install, the user's input, /proc
# of its own processes) or runs inside the jail; the session's leavings go through
# `untrusted`. A call not listed here fails this test: route it through `untrusted`, or add
# it with what it reads.
RUN_MODULES = (
    "pipeline/collect.py",
    "check",
    "pipeline/run.py",
    "pipeline/steps.py",
    "pipeline/spare.py",
    "pipeline/plan.py",
    "pipeline/rundirs.py",
    "pipeline/normalise.py",
    "evidence/provenance.py",
    "backends",
    "agents",
    "classify",
    "runner/runner.py",
    "runner/jail.py",
    "runner/terminal.py",
    "runner/vscode_session.py",
)
READS = {"open", "read_text", "read_bytes", "read_bounded", "load_json", "glob", "rglob", "iterdir", "walk", "scandir"}
READS |= {"listdir", "exists", "is_file", "is_dir", "stat", "readlink", "copytree", "copy", "copyfile"}
ALLOWED = {
    "agents/codex.py:_version:read_text": "the CLI install's package.json",
    "agents/codex.py:binary_path:exists": "the CLI install",
    "agents/codex.py:prepare_install:exists": "the CLI install",
    "agents/codex.py:prepare_permissions:exists": "the CLI install",
    "agents/opencode.py:binaries:glob": "the CLI install's binaries",
    "agents/opencode.py:binaries:is_file": "the CLI install's binaries",
    "agents/opencode.py:declares:open": "the CLI install's binary, mapped read-only",
    "agents/opencode.py:prepare_install:readlink": "the CLI install, before it is renamed into place",
    "agents/kilo.py:write_relay:read_text": "the harness's relay core source",
    "agents/opencode.py:relay_source:read_text": "the harness's relay plugin source",
    "agents/opencode.py:write_relay:read_text": "the harness's relay core source",
    "agents/pi.py:relay_source:read_text": "the harness's relay extension source",
    "agents/pi.py:write_relay:read_text": "the harness's relay core source",
    "agents/vscode.py:bundled:exists": "the CLI install's package.json",
    "agents/vscode.py:bundled:read_text": "the CLI install's package.json",
    "agents/vscode.py:missing_prerequisites:exists": "the host's Kerberos header, before an install",
    "agents/vscode.py:prepare_install:is_dir": "the CLI install",
    "agents/vscode.py:session_env:copy": "the harness's driver into the run, before the session",
    "agents/copilot.py:node_wanted:is_dir": "the CLI install, after npm's (its native package)",
    "agents/copilot.py:node_wanted:open": "the CLI install's launcher, bounded, after npm's",
    "backends/docker.py:build_digest:read_bytes": "the harness's image template and node.py",
    "backends/docker.py:prepare:copy": "the harness's node.py into the image's build context",
    "check/plugins.py:changed:exists": "the user's hook folder (input)",
    "check/plugins.py:discover:exists": "the user's hook folder (input)",
    "check/plugins.py:discover:glob": "the user's hook folder (input)",
    "check/plugins.py:discover:is_file": "the user's hook folder (input)",
    "check/plugins.py:install:exists": "the check's workspace, before the session",
    "check/plugins.py:wrapper:read_text": "the harness's recording wrapper source",
    "backends/docker.py:ca_bundle:is_file": "the host's CA bundle, for the image",
    "backends/docker.py:prepare:read_bytes": "the host's CA bundle, for the image",
    "backends/docker.py:prepare:read_text": "the harness's image template",
    "backends/docker.py:run:copy": "the harness's runner files into the run, before the session",
    "backends/local.py:__init__:open": "runner.err, opened for writing",
    "backends/local.py:run:copy": "the plan, copied to hand to the runner",
    "backends/local.py:run:readlink": "/proc/self/ns/mnt of probe itself",
    "check/report.py:action_main:read_text": "the check's own report (the Action's job summary)",
    "check/config.py:check_scripts:exists": "the user's hook folder (input)",
    "check/workspace.py:copy_folder:open": "the user's hook folder (input)",
    "check/workspace.py:copy_folder:readlink": "the user's hook folder (input)",
    "check/config.py:discover:glob": "the user's hook folder (input)",
    "check/config.py:discover:is_dir": "the user's hook folder (input)",
    "check/workspace.py:folder_entries:readlink": "the user's hook folder (input)",
    "check/workspace.py:folder_entries:scandir": "the user's hook folder (input)",
    "check/config.py:load_config:read_bounded": "the user's hook folder (input)",
    "check/config.py:hook_file:read_bounded": "the user's hook folder (input): a hook file's shebang",
    "check/command.py:prepare:is_dir": "the user's hook folder (input)",
    "classify/session.py:hook_texts:walk": "a JSON value, not a path",
    "classify/session.py:walk:walk": "a JSON value, not a path",
    "pipeline/normalise.py:normalise:walk": "a JSON value, not a path",
    "pipeline/normalise.py:walk:walk": "a JSON value, not a path",
    "pipeline/plan.py:register_hooks:read_text": "the harness's extension source",
    "pipeline/plan.py:own_node_dir:is_dir": "the CLI install's own Node, before the session",
    "evidence/provenance.py:from_checkout:is_file": "the harness's own checkout",
    "evidence/provenance.py:read:read_bounded": "the harness's own checkout",
    "pipeline/spare.py:copy_runner_files:copy": "the harness's runner files into the run, before the session",
    "pipeline/spare.py:hook_bytecode:read_bytes": "the harness's hooklib.py compiled, in its own temporary directory",
    "pipeline/rundirs.py:run_directory:open": "the lock file it creates",
    "pipeline/rundirs.py:sweep:glob": "the temporary directory: run directories by name, links skipped",
    "pipeline/rundirs.py:sweep:is_dir": "a run directory (lstat first: links skipped)",
    "pipeline/rundirs.py:sweep:open": "a run directory's lock, O_NOFOLLOW",
    "pipeline/rundirs.py:sweep:stat": "a run directory's age",
    "pipeline/rundirs.py:unmount_under:open": "/proc/self/mountinfo, bounded",
    "runner/jail.py:_chown_tree:walk": "the run's directories before the session starts (links not followed)",
    "runner/jail.py:_mapped:open": "/proc/self/uid_map",
    "runner/jail.py:enter:exists": "the plan's keep paths (the CLI install, node, Python)",
    "runner/jail.py:enter:open": "the plan's paths, O_PATH, before the session starts",
    "runner/jail.py:enter:stat": "/bin/sh inside the jail, before the session starts (which shell it is)",
    "runner/runner.py:alive:open": "/proc/PID/stat",
    "runner/runner.py:dying:open": "/proc/PID/stat and status",
    "runner/runner.py:enter_jail:readlink": "/proc/self/ns/mnt",
    "runner/runner.py:prompt_session:open": "the CLI's output files, opened for writing",
    "runner/runner.py:read_plan:read_bytes": "the plan the harness wrote",
    "runner/runner.py:run_processes:listdir": "/proc",
    "runner/runner.py:run_processes:open": "/proc/PID/environ",
    "runner/terminal.py:__init__:open": "the terminal log, opened for writing",
    "runner/vscode_session.py:main:exists": "inside the jail, as the session",
    "runner/vscode_session.py:main:open": "inside the jail, as the session",
    "runner/vscode_session.py:main:read_text": "inside the jail, as the session",
    "runner/vscode_session.py:prepare:copy": "inside the jail, as the session",
}


def file_accesses(path: Path) -> set[str]:
    """module:function:call for each call of a path-reading name not made on `untrusted`."""
    found: set[str] = set()
    rel = path.relative_to(PROBES).as_posix()

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name_here = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call):
                func = child.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                owner = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
                if name in READS and not owner.startswith("untrusted"):
                    found.add(f"{rel}:{function}:{name}")
            visit(child, name_here)

    visit(ast.parse(path.read_text()), "<module>")
    return found


def test_every_file_access_near_a_run_is_listed():
    found: set[str] = set()
    for entry in RUN_MODULES:
        target = PROBES / entry
        for path in sorted(target.rglob("*.py")) if target.is_dir() else [target]:
            found |= file_accesses(path)
    assert sorted(found - set(ALLOWED)) == [], "a new file access: read the session's files through probes/runner/untrusted.py"
    assert sorted(set(ALLOWED) - found) == [], "listed but gone: remove it from ALLOWED"
