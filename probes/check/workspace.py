"""A check's workspace: the user's folder copied in (never followed out of, never opened
where it is no regular file), the hooks kept as written or made neutral, and the system's
shells covered by the watcher (runner/shim.py) inside the run's jail, which records each
invocation of a configured command as that hook's."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from probes.agents.config import user_entries, write_json
from probes.catalog.scenarios import Scenario
from probes.check.config import EXPANDED_VARS, ConfigFile, Configured
from probes.check.kinds import judged, rewrite
from probes.errors import InputError
from probes.pipeline.rundirs import RunDirs
from probes.runner.contract import ShimConfig, ShimEntry

FOLDER_MAX_FILES = 10000  # the user's folder is copied into every session
FOLDER_MAX_BYTES = 256 * 1024 * 1024
KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


def folder_entries(folder: Path) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, lstat) of everything in the user's folder but .git, parents first,
    never following a link nor opening anything. One line, naming the entry, for what the
    check will not copy: a FIFO (opening it would hang), a socket or a device; a symbolic
    link that is absolute or leads outside the folder (its target is not the user's to
    copy; one inside is copied as a link); a directory that cannot be read."""
    root = os.path.realpath(folder)
    todo = [""]
    while todo:
        rel_dir = todo.pop()
        try:
            with os.scandir(os.path.join(folder, rel_dir)) as it:
                names = sorted(e.name for e in it)
        except OSError as e:
            raise InputError(f"--hooks {folder}: cannot read {rel_dir or '.'} ({e.strerror})") from None
        for name in names:
            if name == ".git":  # anywhere: a submodule's too
                continue
            rel = os.path.join(rel_dir, name)
            path = os.path.join(folder, rel)
            try:
                st = os.lstat(path)
            except OSError as e:
                raise InputError(f"--hooks {folder}: cannot read {rel} ({e.strerror})") from None
            kind = stat.S_IFMT(st.st_mode)
            if kind in KINDS:
                raise InputError(f"--hooks {folder}: {rel} is {KINDS[kind]}: the check copies only files, directories and links")
            if kind == stat.S_IFLNK:
                target = os.readlink(path)
                real = os.path.realpath(path)
                if os.path.isabs(target) or os.path.commonpath([root, real]) != root:
                    raise InputError(
                        f"--hooks {folder}: {rel} is a link to {target}, outside the folder: the check copies the folder, "
                        "not what a link points to; copy the file in"
                    )
            elif kind == stat.S_IFDIR:
                todo.append(rel)
            yield rel, st


def check_folder(folder: Path) -> None:
    """What copy_folder will copy is there to copy (folder_entries), and not too much of it."""
    files = total = 0
    for _rel, st in folder_entries(folder):
        files += not stat.S_ISDIR(st.st_mode)
        total += st.st_size if stat.S_ISREG(st.st_mode) else 0
        if files > FOLDER_MAX_FILES or total > FOLDER_MAX_BYTES:
            raise InputError(
                f"--hooks {folder}: over {FOLDER_MAX_FILES} files or {FOLDER_MAX_BYTES} bytes: too big to copy into "
                "every session; point it at the hooks only"
            )


def copy_folder(folder: Path, workspace: Path) -> None:
    """The user's folder into the workspace, but .git: directories, regular files (mode and
    times kept) and links (as links), each checked again as it is copied (folder_entries),
    a file opened without following a link or blocking, read no further than its size was;
    each directory's mode set last (as shutil.copytree does; its owner may always write)."""
    dirs: list[tuple[str, int]] = []
    rel = "."
    try:
        os.makedirs(workspace, exist_ok=True)
        for rel, st in folder_entries(folder):
            src, dst = os.path.join(folder, rel), os.path.join(workspace, rel)
            if stat.S_ISDIR(st.st_mode):
                os.makedirs(dst, exist_ok=True)
                dirs.append((dst, stat.S_IMODE(st.st_mode) | stat.S_IRWXU))  # the harness writes configs in it
            elif stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(src), dst)
            else:
                fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                with os.fdopen(fd, "rb") as f, open(dst, "wb") as out:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        raise InputError(f"--hooks {folder}: {rel} is no longer a regular file")
                    left = st.st_size
                    while left > 0 and (chunk := f.read(min(left, 1 << 20))):
                        out.write(chunk)
                        left -= len(chunk)
                os.chmod(dst, stat.S_IMODE(st.st_mode))
                os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
        for dst, mode in reversed(dirs):
            os.chmod(dst, mode)
    except OSError as e:
        raise InputError(f"--hooks {folder}: cannot copy {rel} ({e.strerror})") from None


NEUTRAL = "cat >/dev/null"  # a hook left out of an isolating session: reads its input, answers nothing
WATCHED_SHELLS = ("/bin/sh", "/bin/bash")  # what every CLI starts hooks and tool commands with


def install_hooks(workspace: Path, configs: Sequence[ConfigFile], hooks: Sequence[Configured], keep: set[str]) -> list[Path]:
    """A session in which only the hooks in `keep` run: the user's config files rewritten
    with every other hook a neutral command (the rest of each file as written), and each kept
    prompt, agent or http hook pointed at what answers it in the user's place (kinds.rewrite).
    With every hook kept and none of those, the copied files stay byte for byte the user's.
    The files it wrote."""
    pointed = {h.key for h in hooks if h.key in keep and judged(h) and h.type in ("prompt", "agent", "http")}
    if keep == {h.key for h in hooks} and not pointed:
        return []
    n, written = 0, []
    for c in configs:
        if c.source.layout == "files":  # the file is the hook: one left out is a neutral script
            if hooks[n].key not in keep:
                (workspace / c.label).write_text(f"#!/bin/sh\n{NEUTRAL}\n")
                (workspace / c.label).chmod(0o755)
                written.append(workspace / c.label)
            n += 1
            continue
        data = json.loads(json.dumps(c.data))  # a copy: the user's parsed file stays as read
        for e in user_entries(c.source, data, c.label):
            h = hooks[n]
            if h.key not in keep and e.type == "command":
                e.holder[e.command_key] = NEUTRAL
            elif h.key not in keep:  # a hook of another type: a neutral command in its place
                e.holder.clear()
                e.holder.update({"type": "command", c.source.command_keys[0]: NEUTRAL})
            elif h.key in pointed:
                rewrite(e.holder, h)
            n += 1
        write_json(workspace / c.label, data)
        written.append(workspace / c.label)
    return written


def lay_out(
    workspace: Path,
    folder: Path,
    configs: Sequence[ConfigFile],
    hooks: Sequence[Configured],
    keep: set[str] | None,
    scenario: Scenario,
) -> list[Path]:
    """A session's workspace: the user's folder, with the hooks in `keep` as written (or
    answered in the user's place: install_hooks) and the others neutral, or without its hook
    configs (`keep` None: the control); then the scenario's files. The config files it wrote."""
    copy_folder(folder, workspace)
    written = []
    if keep is None:  # the control: the same files, no hook config
        for c in configs:
            (workspace / c.label).unlink()
    else:
        written = install_hooks(workspace, configs, hooks, keep)
    for rel, content in scenario.files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(content)
    return written


def watch_shells(run: RunDirs, python: str, hooks: Sequence[Configured], keep: set[str]) -> tuple[dict[str, str], str]:
    """What the jail binds for runner/shim.py to watch the session's shells: each system
    shell's real path -> an empty file the real binary is bound over (in the run's bin), and
    the launcher bound over the shells; shim.json, which names the hooks by their commands."""
    real = {}
    for shell in WATCHED_SHELLS:
        path = os.path.realpath(shell)
        if os.path.isfile(path) and path not in real:
            saved = run.bin / f"real-{os.path.basename(path)}"
            saved.touch(mode=0o755)
            real[path] = str(saved)
    launcher = run.bin / "watched-shell"
    launcher.write_text(
        f"#!{os.path.realpath(python)} -SEs\n"
        f"import sys\nsys.path.insert(0, {str(run.bin)!r})\nimport shim\n"
        f"sys.exit(shim.main({str(run.bin / 'shim.json')!r}))\n"
    )
    launcher.chmod(0o755)
    by_command: dict[str, list[ShimEntry]] = {}
    scripts: dict[str, list[ShimEntry]] = {}
    for h in hooks:
        if h.key in keep and h.program is not None:  # a hook file: a shell started with it as its script,
            path = str(run.workspace / h.source)  # or `sh -c "'FILE'"` (Cline 2.x's Node, shell: true)
            scripts.setdefault(os.path.realpath(path), []).append(ShimEntry(key=h.key, event=h.native))
            for command in (path, "'" + path.replace("'", "'\\''") + "'"):
                by_command.setdefault(command, []).append(ShimEntry(key=h.key, event=h.native))
            continue
        # as written, and as a CLI that expands its project variable itself passes it (Gemini)
        if h.key in keep and h.type == "command":
            for command in dict.fromkeys([h.command, EXPANDED_VARS.sub(str(run.workspace).replace("\\", "\\\\"), h.command)]):
                by_command.setdefault(command, []).append(ShimEntry(key=h.key, event=h.native))
    config = ShimConfig(
        records=str(run.records), log=str(run.records / "shells.jsonl"), real=real, hooks=by_command, scripts=scripts
    )
    (run.bin / "shim.json").write_text(json.dumps(config))
    return real, str(launcher)
