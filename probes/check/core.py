"""`probe check`: a user's own hooks through the real CLI. The user's folder is copied into a
fresh workspace, each configured command is wrapped in the instrumented shim
(runner/shim.py), and a scenario is played twice on each version: with the hooks, and as a
control without them (the hook config left out). A hook's verdict is read off the two: what
it answered (its records), and whether the session went otherwise than the control
(steps that ran, tool results, text that reached the model).

The control is run every time, not cached: it costs one session, and a cache would have to
be keyed on the harness, the version, the scenario and the user's files (a script may act
without any hook)."""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import stat
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple, NotRequired, TypedDict

from probes.agents import AGENTS, CANONICAL_EVENTS, NATIVE, Agent, Registration
from probes.agents.config import HookSource, UserEntry, user_entries, write_json
from probes.catalog.names import NAME_RE
from probes.catalog.scenarios import Scenario
from probes.errors import Exit, HarnessError, InputError
from probes.limits import HOOK_CONFIG_MAX_BYTES, HOOK_CONFIGS_MAX, HOOKS_MAX, HOOKS_PER_CONFIG_MAX, JSON_MAX_DEPTH
from probes.pipeline import rundirs
from probes.pipeline.collect import edited
from probes.pipeline.rundirs import RunDirs
from probes.runner import untrusted
from probes.runner.contract import ShimConfig, ShimEntry

SHELL = "bash"  # both CLIs document a hook's command as a bash command
FOLDER_MAX_FILES = 10000  # the user's folder is copied into every session
FOLDER_MAX_BYTES = 256 * 1024 * 1024
ALONE_MAX = 4  # hooks run alone, one session each, when another effective hook may hide what they do
CHANGE_KEPT = 4000  # characters kept of a file the session wrote (an audit log)

Verdict = Literal["not-fired", "effective", "passive", "ignored", "broken", "undecided"]
PASSING: frozenset[str] = frozenset({"effective", "passive"})


class StepReport(TypedDict):
    kind: str  # canonical tool kind
    tool: str | None  # the CLI's tool name the model called
    ran: bool | None  # with the hooks (None: the scenario cannot tell)
    control_ran: bool | None  # without them
    command: str | None  # a shell step's command


class HookReport(TypedDict):
    source: str  # the config file, relative to the folder
    event: str  # as configured
    canonical: str | None
    matcher: str | None
    command: str
    fired: int  # invocations
    exit_code: int | None  # the last invocation's
    decision: str | None  # what it answered: deny, block, rewrite, context, text, malformed-json, exit N
    verdict: str
    treated: str | None  # how the CLI treated a broken or ignored hook: fail-open, fail-closed
    reason: str
    expected: bool  # the scenario exercises its event (and its matcher matches a tool used)


class Expectation(TypedDict):
    command: str  # a --command
    expect: str  # blocked or allowed (--expect)
    ran: bool | None  # measured, with the hooks
    control_ran: bool | None
    met: bool


class Report(TypedDict):
    agent: str
    version: str | None  # executed, read back from the run
    requested: str
    scenario: str
    steps: list[StepReport]
    hooks: list[HookReport]
    evidence: str
    control_evidence: str
    expectations: NotRequired[list[Expectation]]  # with --expect


# ---------------------------------------------------------------- the user's config


@dataclass
class ConfigFile:
    source: HookSource
    path: Path  # in the user's folder
    label: str  # relative to the folder
    data: Any
    entries: list[UserEntry]


def sources_of(agent: Agent) -> tuple[HookSource, ...]:
    """An agent's hook sources (an optional member): an agent without them cannot be checked."""
    sources: tuple[HookSource, ...] | None = getattr(agent, "hook_sources", None)
    if not sources:
        able = ", ".join(sorted(a.name for a in AGENTS.values() if getattr(a, "hook_sources", None)))
        raise InputError(f"probe check does not know where {agent.name} reads a repository's hooks yet (it does: {able})")
    return sources


def discover(agent: Agent, folder: Path) -> list[ConfigFile]:
    """Every hook config file the agent reads in `folder`, parsed; one line naming the file
    when one cannot be read, or when there is none. Bounded: HOOK_CONFIGS_MAX files, each a
    regular file (not a link, FIFO or device) of at most HOOK_CONFIG_MAX_BYTES, JSON no deeper
    than JSON_MAX_DEPTH, HOOKS_PER_CONFIG_MAX command hooks in one and HOOKS_MAX in all."""
    if not folder.is_dir():
        raise InputError(f"--hooks {folder}: not a directory")
    found: list[ConfigFile] = []
    for source in sources_of(agent):
        for path in sorted(folder.glob(source.pattern)):
            label = str(path.relative_to(folder))
            if len(found) >= HOOK_CONFIGS_MAX:
                raise InputError(f"--hooks {folder}: more than {HOOK_CONFIGS_MAX} hook config files; point it at the hooks only")
            data = load_config(path, label)
            try:
                entries = user_entries(source, data, label)
            except OverflowError:  # a timeout of 400 digits
                raise InputError(f"{label}: a timeout too large to read") from None
            if any(e.timeout_s is not None and not math.isfinite(e.timeout_s) for e in entries):
                raise InputError(f"{label}: a timeout that is not a finite number")
            if len(entries) > HOOKS_PER_CONFIG_MAX:
                raise InputError(f"{label}: {len(entries)} command hooks, over the limit of {HOOKS_PER_CONFIG_MAX} in one file")
            found.append(ConfigFile(source, path, label, data, entries))
    total = sum(len(c.entries) for c in found)
    if total > HOOKS_MAX:
        raise InputError(f"--hooks {folder}: {total} command hooks in all, over the limit of {HOOKS_MAX}")
    if not total:
        where = " or ".join(s.pattern for s in sources_of(agent))
        raise InputError(f"--hooks {folder}: no command hook for {agent.name} (looked in {where})")
    return found


def load_config(path: Path, label: str) -> Any:
    """A config file's JSON, bounded (probes/limits.py), or one line naming the file."""
    from probes.limits import BadFile, decode, json_depth, nul_at, read_bounded

    try:
        label.encode("utf-8")
        text = decode(read_bounded(path, HOOK_CONFIG_MAX_BYTES, follow=False))
    except UnicodeEncodeError:
        raise InputError(f"{label!r}: a file name that is not UTF-8") from None
    except BadFile as e:
        raise InputError(f"{label}: {e}") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputError(f"{label}: nested deeper than {JSON_MAX_DEPTH}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{label}:{e.lineno}: not valid JSON ({e.msg})") from None
    except ValueError as e:  # an integer too long to convert
        raise InputError(f"{label}: not valid JSON ({str(e).splitlines()[0]})") from None
    if json_depth(data) > JSON_MAX_DEPTH:
        raise InputError(f"{label}: nested deeper than {JSON_MAX_DEPTH}")
    nul = nul_at(data)
    if nul is not None:
        raise InputError(f"{label}: {'.'.join(map(str, nul))}: contains a NUL character")
    return data


EXPANDED_VARS = re.compile(r"\$\{?(CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR)\}?")  # what Gemini CLI replaces itself
PROJECT_VARS = re.compile(r"\$\{?(CLAUDE_PROJECT_DIR|COPILOT_PROJECT_DIR|GEMINI_PROJECT_DIR|PWD)\}?")


def scripts_named(command: str) -> list[str]:
    """The relative paths a command names (words with a slash, after the project-dir variables):
    what must exist in the folder for the command to run. Absolute paths are the machine's."""
    try:
        words = shlex.split(PROJECT_VARS.sub(".", command))
    except ValueError:
        return []
    return [w for w in words if "/" in w and not w.startswith(("/", "~", "$", "-")) and not re.search(r"[*?|<>;&`]", w)]


def check_scripts(folder: Path, configs: Sequence[ConfigFile]) -> None:
    for c in configs:
        for e in c.entries:
            for rel in scripts_named(e.command):
                if os.path.normpath(rel).split(os.sep)[0] == "..":
                    raise InputError(f"{c.label}: {e.native} hook runs {rel}, outside {folder}: the check copies the folder only")
                if not (folder / rel).exists():
                    raise InputError(f"{c.label}: {e.native} hook runs {rel}, which is not in {folder}")


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


def canonical_of(agent: Agent, native: str) -> str | None:
    for casing in ("native", "pascal", "camel"):
        for c in CANONICAL_EVENTS:
            if agent.native_event(c, casing) == native:
                return c
    return None


@dataclass(frozen=True)
class Configured:
    """One configured hook as the check installs it."""

    key: str  # names its shim entry and records
    source: str
    native: str
    canonical: str | None
    matcher: str | None
    timeout_s: float | None
    command: str
    matchers: str = "full"  # how the agent reads its matcher (HookSource.matchers)
    matcher_names: tuple[tuple[str, str], ...] = ()  # the agent's tool -> its name in this file's matchers


def configured(agent: Agent, configs: Sequence[ConfigFile]) -> list[Configured]:
    out: list[Configured] = []
    for c in configs:
        for e in c.entries:
            key = f"{len(out)}-{re.sub(r'[^A-Za-z0-9_]', '_', e.native)[:40]}"
            canonical = canonical_of(agent, e.native)
            src = c.source
            out.append(
                Configured(key, e.source, e.native, canonical, e.matcher, e.timeout_s, e.command, src.matchers, src.matcher_names)
            )
    return out


# ---------------------------------------------------------------- one session


@dataclass
class Session:
    """What one session (with the hooks, or the control) left, as far as verdicts go."""

    evidence: Any  # the Evidence record, written by the caller
    records: dict[str, list[dict[str, Any]]]  # hook key -> its invocations (scrubbed)
    steps: list[StepReport]
    tools_used: list[str]
    model_texts: list[str]  # every message text the model received, whole
    tool_results: list[str]  # the tool results of the last main-conversation request
    prompt_reached: bool  # a model request carried the scenario's prompt
    changes: dict[str, str] = field(default_factory=dict)  # files the session wrote: path -> head
    shells: list[str] = field(default_factory=list)  # the strings shells outside hooks were started with


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
SHELLS_LOG_MAX = 16 * 1024 * 1024  # shells.jsonl: one line per shell started, each at most 64 KiB


def install_hooks(workspace: Path, configs: Sequence[ConfigFile], hooks: Sequence[Configured], keep: set[str]) -> None:
    """A session in which only the hooks in `keep` run: the user's config files rewritten
    with every other hook's command a neutral one (the rest of each file as written). With
    every hook kept the copied files stay byte for byte the user's."""
    if keep == {h.key for h in hooks}:
        return
    n = 0
    for c in configs:
        data = json.loads(json.dumps(c.data))  # a copy: the user's parsed file stays as read
        for e in user_entries(c.source, data, c.label):
            if hooks[n].key not in keep:
                e.holder[e.command_key] = NEUTRAL
            n += 1
        write_json(workspace / c.label, data)


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
    for h in hooks:
        if h.key in keep:  # as written, and as a CLI that expands its project variable itself passes it (Gemini)
            for command in dict.fromkeys([h.command, EXPANDED_VARS.sub(str(run.workspace).replace("\\", "\\\\"), h.command)]):
                by_command.setdefault(command, []).append(ShimEntry(key=h.key, event=h.native))
    config = ShimConfig(records=str(run.records), log=str(run.records / "shells.jsonl"), real=real, hooks=by_command)
    (run.bin / "shim.json").write_text(json.dumps(config))
    return real, str(launcher)


def shells_started(run: RunDirs, hook_pids: set[int]) -> list[str]:
    """The command strings of the shells the session started outside its hooks (shells.jsonl,
    the session's own file: read as untrusted, bad lines skipped)."""
    try:
        data = untrusted.read(run.root, "records/shells.jsonl", SHELLS_LOG_MAX)
    except untrusted.Refused:
        return []
    out = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
            pids = {entry["pid"], *entry["ancestors"]}
            if not pids & hook_pids and isinstance(entry["command"], str):
                out.append(entry["command"])
        except (ValueError, KeyError, TypeError):
            continue
    return out


def command_ran(command: str, shells: Sequence[str]) -> bool:
    """Whether a shell was started to run `command`: its string holds the command as written,
    or quoted inside single quotes as a CLI that wraps it in `eval '...'` writes it."""
    spellings = {command, command.replace("'", "'\\''"), command.replace("'", "'\"'\"'")}
    return any(s in started for started in shells for s in spellings)


def workspace_files(root: Path) -> dict[str, untrusted.Entry]:
    """Everything in the workspace but .git, described without following or opening it."""
    return untrusted.walk(root)


def changed_files(root: Path, before: Mapping[str, untrusted.Entry]) -> dict[str, str]:
    """Files the session created or changed (an audit log, a rewritten file), their heads;
    a link, FIFO or device it left is said, never followed or opened."""
    out = {}
    now = workspace_files(root)
    for rel, entry in sorted(now.items()):
        was = before.get(rel)
        if was and (was.kind, was.size, was.mtime_ns, was.target) == (entry.kind, entry.size, entry.mtime_ns, entry.target):
            continue
        if entry.kind != "file":
            out[rel] = f"({entry.describe()})"
            continue
        try:
            out[rel] = untrusted.text(root, rel, CHANGE_KEPT, "head")
        except untrusted.Refused as e:
            out[rel] = f"({str(e).removeprefix(rel + ': ')})"
    for rel in sorted(set(before) - set(now)):
        out[rel] = "(removed)"
    return out


def steps_of(
    scenario: Scenario, cwd: Path, log: Sequence[dict[str, Any]], shells: Sequence[str] | None
) -> tuple[list[StepReport], list[str]]:
    """Whether each tool step ran: a shell step's command from the shells the session started
    (`shells`; None: not watched, so it cannot be told), or its marker; a file step off the
    workspace; a read off the tool result the model got; and the tools the CLI called."""
    from probes.pipeline.plan import marker_path

    replies = [r["reply"] for r in log if r.get("reply") and not r["reply"].get("aux")]
    used = sorted({r["tool"] for r in replies if r.get("tool")})
    texts = [m["text"] for r in log for m in r["messages"] if m["role"] == "tool"]
    out: list[StepReport] = []
    for i, step in enumerate(scenario.turns):
        if step.tool is None:
            continue
        name = next((r.get("tool") for r in replies if r.get("turn") == i and not r.get("subagent")), None)
        path = marker_path(step, i)
        ran: bool | None = None
        if step.tool == "shell" and step.command is None and path:
            ran = untrusted.exists(cwd, path)
        elif step.tool == "shell" and step.command:
            ran = None if shells is None else command_ran(step.command, shells)
        elif step.tool == "create_file" and path:
            ran = untrusted.exists(cwd, path)
        elif step.tool == "edit_file" and path:
            ran = edited(cwd, path)
        elif step.tool == "view_file" and path in scenario.files:
            token = scenario.files[path].split()[0] if scenario.files[path].split() else ""
            ran = bool(token) and any(token in t for t in texts)
        elif step.tool == "subagent":
            ran = untrusted.exists(cwd, "probe-subagent.txt")
        if name is None and any(r.get("missing_tool") == step.tool for r in replies):
            ran = False
        out.append({"kind": step.tool, "tool": name, "ran": ran, "control_ran": None, "command": step.command})
    return out, used


def run_session(
    agent: Agent,
    requested: str,
    version: str,
    scenario: Scenario,
    folder: Path,
    configs: Sequence[ConfigFile],
    hooks: Sequence[Configured],
    keep: set[str] | None,
    backend_name: str = "local",
    watch: bool = True,
) -> Session:
    """One session: with the hooks in `keep` installed (the others neutral), or with no hook
    config at all (`keep` None: the control). `watch` False leaves the shells as they are (no
    hook recorded, no step measured): the session exactly as without `probe`, for comparing."""
    control = keep is None
    variant = "-control" if keep is None else "" if len(keep) == len(hooks) else "-alone"  # the caller numbers it
    from probes.backends import BACKENDS
    from probes.catalog.recipes import ResolvedRecipe
    from probes.pipeline.collect import read_jsonl
    from probes.pipeline.plan import Hooks, runner_plan, workspace
    from probes.pipeline.run import RUNNER_FILES, Probed, build_evidence, load_record_modules
    from probes.runner.contract import HookEntry

    backend = BACKENDS[backend_name]
    name = f"check-{scenario.name}{variant}"
    recipe = ResolvedRecipe(
        agent=agent.name,
        name=name,
        question=f"probe check: the repository's own hooks through scenario {scenario.name!r}"
        + {"-control": " (control: no hooks installed)", "-alone": " (only the hooks in question run)"}.get(variant, ""),
        classifier="check",
        control=None if control else f"check-{scenario.name}-control",
        control_of=f"check-{scenario.name}" if control else None,
        subject=None,
        prompt=scenario.prompt,
        hooks=(),
        turns=tuple(scenario.turns),
        subagent_turns=tuple(scenario.subagent_turns),
        budget_s=scenario.budget_s,
        env={},
        cwd=None,
        config_location=NATIVE,
        permissive=True,
        watch_files=tuple(scenario.files),
        claims=(),
        surface="user-hooks",
        mode="prompt",
        actions=(),
    )
    with rundirs.run_directory() as tmp:
        run = RunDirs(tmp)
        run.cap()  # before the runner's namespaces are made: they see the caps
        for f in (*RUNNER_FILES, "shim.py"):
            shutil.copy(Path(__file__).parent.parent / "runner" / f, run.bin / f)
        launch = backend.launch(run.root)
        try:
            prefix = backend.prepare(agent, version)
            run.resize(scenario.disk_mb)
            workspace(run)
            copy_folder(folder, run.workspace)
            if keep is None:  # the control: the same files, no hook config
                for c in configs:
                    (run.workspace / c.label).unlink()
            else:
                install_hooks(run.workspace, configs, hooks, keep)
            shells, launcher = watch_shells(run, backend.python(), hooks, keep or set())
            for rel, content in scenario.files.items():
                (run.workspace / rel).parent.mkdir(parents=True, exist_ok=True)
                (run.workspace / rel).write_text(content)
            before = workspace_files(run.workspace)
            plan = runner_plan(agent, prefix, recipe, run, backend.node_dir())
            jail = plan.get("jail")
            if jail and watch:
                jail["shells"], jail["wrapper"] = shells, launcher
        except BaseException:
            launch.cancel()
            raise
        loading = load_record_modules()
        ran = launch.run(plan)
        loading.join()
        from probes.pipeline.collect import collect
        from probes.pipeline.normalise import known_values, normalise
        from probes.pipeline.redact import redact

        regs = [Registration(h.key, h.native, h.command, h.timeout_s, h.matcher) for h in hooks] if not control else []
        sidecar = {h.key: HookEntry(event=h.native, canonical=h.canonical or h.native, behavior={}) for h in hooks}
        collected, secrets = collect(
            recipe, run, Hooks(regs, sidecar if not control else {}), plan, ran.result, prefix, backend.python()
        )
        log = read_jsonl(Path(plan["model_log"]))
        watched = watch and (ran.result.get("jail") or {}).get("filesystem", "host") != "host"
        if watch and not watched:
            why = (ran.result.get("jail") or {}).get("error") or "no private mount namespace (unshare)"
            raise HarnessError(f"probe check watches hooks inside the run's jail, which this host cannot make ({why})")
        started = shells_started(run, {inv.pid for inv in collected.invocations}) if watched else None
        steps, used = steps_of(scenario, Path(plan["cwd"]), log, started)
        main = [r for r in log if r.get("reply") and not r["reply"].get("aux") and not r["reply"].get("subagent")]
        texts = [m["text"] for r in log for m in r["messages"]]
        results = [m["text"] for m in main[-1]["messages"] if m["role"] == "tool"] if main else []
        changes = changed_files(run.workspace, before)
        for c in configs:  # the config files the check wrote are not the session's doing
            changes.pop(c.label, None)
        records: dict[str, list[dict[str, Any]]] = {}
        for inv in collected.invocations:  # each record names its hook by the key shim.json gave it
            if inv.config_index is not None and inv.config_index < len(hooks):
                records.setdefault(hooks[inv.config_index].key, []).append(inv.model_dump(mode="json"))
        # The tool names hooks were told, or would be (Codex tells its hooks Bash for exec_command).
        told = {inv.payload.get("tool_name") for inv in collected.invocations if isinstance(inv.payload, dict)}
        told |= {agent.hook_tool_names[t] for t in used if t in agent.hook_tool_names}
        used = sorted(set(used) | {t for t in told if isinstance(t, str) and t})
        probed = Probed(
            agent, requested, version, recipe, backend.name, ran, plan, collected, "checked", {}, secrets, run.home, None
        )
        ev = build_evidence(probed)
        known = known_values(str(run.root), plan["run_id"], backend.python())

        def scrub(v: Any) -> Any:
            """As collect.scrub does the session's parts: credentials, then per-run names."""
            text = json.dumps(v).replace(json.dumps(str(run.root))[1:-1], "$RUN")
            return normalise(redact(json.loads(text), secrets), known)

    return Session(
        evidence=ev,
        records=records,
        steps=steps,
        tools_used=used,
        model_texts=texts,
        tool_results=scrub(results),
        prompt_reached=any(scenario.prompt in t for t in texts),
        changes=scrub(changes),
        shells=started or [],
    )


# ---------------------------------------------------------------- verdicts


def flat(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON answer with Claude Code's hookSpecificOutput lifted to the top."""
    specific = data.get("hookSpecificOutput")
    return {**data, **specific} if isinstance(specific, dict) else data


class Answer(NamedTuple):
    """What one invocation answered, as its agent's docs define an answer."""

    decision: str | None  # block (exit 2), deny, ask, allow, stop, rewrite, context, text, json (no decision); None: nothing
    data: dict[str, Any] | None  # its JSON object
    error: str | None  # why it is not an answer at all: the hook is broken


def answer_of(inv: dict[str, Any], block_codes: frozenset[int]) -> Answer:
    """One invocation read as its agent reads it: an exit code the docs give for blocking, a
    JSON object, plain text, nothing; or no answer at all (killed, not found, not executable,
    an exit code the docs call an error, output that is not the JSON it looks like)."""
    if why := broken_why(inv, block_codes):
        return Answer(None, None, why)
    code = inv.get("exit_code")
    if code in block_codes:
        return Answer(f"block (exit {code})", None, None)
    out = (inv.get("output") or "").strip()
    if not out:
        return Answer(None, None, None)
    try:
        data = json.loads(out)
    except ValueError as e:
        if out[:1] in "{[":
            return Answer(None, None, f"stdout is not valid JSON ({e})")
        return Answer("text", None, None)
    if not isinstance(data, dict):
        return Answer(None, None, f"stdout is a JSON {type(data).__name__}, not an object")
    merged = flat(data)
    parts = []
    decision = merged.get("permissionDecision") or merged.get("decision")
    if decision in ("deny", "block", "ask", "allow", "approve"):
        parts.append(str(decision))
    if merged.get("continue") is False:
        parts.append("stop")
    if any(k in merged for k in ("modifiedArgs", "updatedInput", "modifiedPrompt", "updatedPrompt")):
        parts.append("rewrite")
    if isinstance(merged.get("additionalContext"), str):
        parts.append("context")
    return Answer("+".join(parts) or "json (no decision)", data, None)


BLOCKING = ("deny", "block", "stop")


def blocks(decision: str | None) -> bool:
    return any(word in (decision or "") for word in BLOCKING)


def broken_why(inv: dict[str, Any], block_codes: frozenset[int] = frozenset({2})) -> str | None:
    """Why an invocation is no answer: the hook did not run to an answer."""
    code = inv.get("exit_code")
    lines = [line.strip() for line in (inv.get("stderr") or "").splitlines() if line.strip()]
    said = f": {lines[-1][:120]}" if lines else ""  # its last line: a traceback's error, a shell's complaint
    if inv.get("killed_by") == "self":
        return f"crashed ({inv.get('killed_by_signal')})"
    if inv.get("killed_by") in ("cli", "harness"):
        who = "the CLI" if inv["killed_by"] == "cli" else "the harness, at the end of the session"
        return f"timed out: killed by {who} ({inv.get('killed_by_signal')}) after {inv.get('duration_s') or '?'} s"
    if code == 127:
        return "command not found (exit 127)" + said
    if code == 126:
        return "not executable (exit 126)" + said
    if code not in (0, None) and code not in block_codes:
        return f"exit {code}, an error (the agent blocks on exit {', '.join(map(str, sorted(block_codes)))})" + said
    return None


def matcher_matches(matcher: str | None, tools: Sequence[str], matchers: str = "full") -> bool:
    """Whether a matcher matches one of the tools: as a regular expression matching the whole
    name, or any part of it (Gemini CLI), or always where the agent does not read matchers (VS Code)."""
    if matcher in (None, "", "*") or matchers == "ignored":
        return True
    assert matcher is not None
    find = re.search if matchers == "search" else re.fullmatch
    try:
        return any(find(matcher, t) for t in tools)
    except re.error:
        return matcher in tools


def changed_steps(hooked: Session, control: Session) -> list[str]:
    """The steps that went otherwise than in the control: ran there and not here, or not
    there and here (each measured on both sides)."""
    out = []
    for s in hooked.steps:
        if s["ran"] is not None and s["control_ran"] is not None and s["ran"] != s["control_ran"]:
            what = repr(s.get("command") or s["kind"])
            out.append(
                f"{what} did not run (it ran without the hooks)" if s["control_ran"] else f"{what} ran (not without the hooks)"
            )
    return out


def treated_of(hooked: Session, control: Session) -> str:
    """fail-closed when something that happened without the hooks did not happen with them."""
    stopped = any(s["control_ran"] and s["ran"] is False for s in hooked.steps)
    return "fail-closed" if stopped or (control.prompt_reached and not hooked.prompt_reached) else "fail-open"


def settle(report: HookReport, verdict: str, reason: str, treated: str | None = None) -> None:
    report["verdict"], report["reason"], report["treated"] = verdict, reason, treated


def not_fired_why(h: Configured, scenario: Scenario, hooked: Session, expected: bool) -> str:
    tool_event = h.canonical in TOOL_EVENTS
    if h.canonical is None:
        return f"{h.native} is no event this harness knows for the agent"
    if h.canonical not in scenario.events:
        return f"scenario {scenario.name} does not exercise {h.canonical}"
    if tool_event and not expected:
        return f"matcher {h.matcher!r} matches none of the tools called ({', '.join(hooked.tools_used) or 'none'})"
    return "the CLI did not run it, though the scenario exercises its event"


TOOL_EVENTS = ("pre_tool", "post_tool", "post_tool_failure", "permission_request")


def verdict_of(h: Configured, scenario: Scenario, hooked: Session, control: Session, block_codes: frozenset[int]) -> HookReport:
    """One rule for every agent: `broken` when the hook did not answer as a hook (and how the
    CLI treated it); `effective` for an answer the agent documents that changed the session
    against the control (a step, a tool's result, text that reached the model); `ignored`
    for such an answer that changed nothing; `passive` for no answer; `not-fired`."""
    invs = hooked.records.get(h.key, [])
    tool_event = h.canonical in TOOL_EVENTS
    named = dict(h.matcher_names)
    tools = [*hooked.tools_used, *(named[t] for t in hooked.tools_used if t in named)]
    expected = h.canonical in scenario.events and (not tool_event or matcher_matches(h.matcher, tools, h.matchers))
    report: HookReport = {
        "source": h.source,
        "event": h.native,
        "canonical": h.canonical,
        "matcher": h.matcher,
        "command": h.command,
        "fired": len(invs),
        "exit_code": invs[-1].get("exit_code") if invs else None,
        "decision": None,
        "verdict": "not-fired",
        "treated": None,
        "reason": "",
        "expected": expected,
    }
    if not invs:
        path = re.search(r"(?:[\w.-]+/)+[\w.-]+", h.command)
        unseen = next((c for c in hooked.shells if path and path.group() in c), None) if h.canonical else None
        if unseen is not None:  # it ran, but not as its config says: the watcher could not tell it was this hook
            settle(report, "undecided", f"a shell ran {short(unseen, 60)!r}, not its command as configured: not recorded")
            return report
        report["reason"] = not_fired_why(h, scenario, hooked, expected)
        return report
    answers = [answer_of(inv, block_codes) for inv in invs]
    report["decision"] = ", ".join(dict.fromkeys(a.decision for a in answers if a.decision)) or None
    changed = changed_steps(hooked, control)
    broken = next((a.error for a in answers if a.error), None)
    if broken:
        treated = treated_of(hooked, control)
        went = f"; the CLI {'stopped: ' + changed[0] if treated == 'fail-closed' and changed else 'went on as without it'}"
        settle(report, verdict="broken", treated=treated, reason=broken + went)
        return report
    decisions = [a.decision for a in answers if a.decision]
    if not decisions or all(d in ("json (no decision)", "allow", "approve") for d in decisions):
        what = f"answered {report['decision']}" if decisions else "answered nothing (exit 0, no output)"
        settle(report, verdict="passive", reason=f"{what}: nothing to change")
        return report
    contexts = [str(flat(a.data).get("additionalContext")) for a in answers if a.decision and "context" in a.decision and a.data]
    texts = [(inv.get("output") or "").strip() for inv, a in zip(invs, answers, strict=True) if a.decision == "text"]
    reached = [t for t in contexts + texts if t and any(t in m for m in hooked.model_texts)]
    blocking = any(blocks(d) for d in decisions)
    rewrite = any("rewrite" in d for d in decisions)
    results_differ = hooked.tool_results != control.tool_results
    if blocking and changed:
        settle(report, verdict="effective", reason=f"blocked: {changed[0]}")
    elif rewrite and (changed or results_differ):
        settle(report, verdict="effective", reason="rewrote: the tool's result differs from the control's")
    elif reached:
        settle(report, verdict="effective", reason="its text reached the model")
    elif blocking:
        settle(
            report,
            verdict="ignored",
            treated="fail-open",
            reason=f"answered {report['decision']}; every step ran as without the hooks",
        )
    elif rewrite:
        settle(report, verdict="ignored", reason="asked to rewrite; the tool's result is the control's")
    elif contexts or texts:
        wheres = {
            "hookSpecificOutput.additionalContext"
            if "additionalContext" in (a.data.get("hookSpecificOutput") or {})
            else "additionalContext"
            for a in answers
            if a.decision and "context" in a.decision and a.data
        }
        wheres |= {"plain stdout"} if texts else set()
        settle(report, verdict="ignored", reason=f"its text ({', '.join(sorted(wheres))}) never reached the model")
    else:  # ask, or another decision this scenario has nothing for
        settle(report, verdict="passive", reason=f"answered {report['decision']}: nothing to change in this scenario")
    return report


# ---------------------------------------------------------------- the command


def scenario_name_ok(scenario: Scenario) -> None:
    if not NAME_RE.fullmatch(scenario.name):
        raise InputError(f"scenario name {scenario.name!r}: lower-case words joined by '-' (it names the evidence file)")


def scenario_fits(agent: Agent, scenario: Scenario) -> None:
    """A scenario whose steps need a tool the agent's sessions do not have is refused."""
    if agent.tool_kinds is None:
        return
    missing = sorted({s.tool for s in scenario.turns if s.tool} - agent.tool_kinds)
    if missing:
        raise InputError(
            f"scenario {scenario.name} needs a {' and a '.join(missing)} tool, which {agent.name} has not here "
            f"(its scenarios can use: {', '.join(sorted(agent.tool_kinds))})"
        )


def prepare(agent_name: str, folder: Path) -> tuple[Agent, list[ConfigFile], list[Configured]]:
    """Everything checked before anything is installed or run: bad input is one line."""
    from probes.agents import get

    agent = get(agent_name)
    folder = folder.resolve()
    if not folder.is_dir():
        raise InputError(f"--hooks {folder}: not a directory")
    check_folder(folder)  # first: nothing in it is opened before it is known to be a file
    configs = discover(agent, folder)
    check_scripts(folder, configs)
    return agent, configs, configured(agent, configs)


def check_version(
    agent: Agent,
    requested: str,
    version: str,
    scenario: Scenario,
    folder: Path,
    configs: Sequence[ConfigFile],
    hooks: Sequence[Configured],
    results: Path,
    backend: str = "local",
    expect: Sequence[str] = (),
) -> Report:
    from probes.evidence.model import evidence_path
    from probes.versions import install

    writes: list[tuple[Path, Any]] = []  # (path, Evidence): checked together, then written
    if not install.installed(agent, version):
        progress(f"{agent.name} {version}: installing it (once)")
    progress(f"{agent.name} {version}: the scenario without the hooks (the control)")
    control = run_session(agent, requested, version, scenario, folder, configs, hooks, None, backend)
    progress(f"{agent.name} {version}: the scenario with the hooks")
    hooked = run_session(agent, requested, version, scenario, folder, configs, hooks, {h.key for h in hooks}, backend)
    against(hooked, control)
    verdicts = [verdict_of(h, scenario, hooked, control, agent.block_exit_codes) for h in hooks]
    # A hook beside one that changed the session (a deny, a fail-closed failure) may look
    # fail-closed, or not run at all (Copilot runs no preToolUse hook after a deny); one beside
    # an effective hook on its event may look ignored (Copilot passes one additionalContext).
    # A session in which it runs alone (the others neutral) tells; its verdict is that
    # session's, said so. The first ALONE_MAX such hooks; the others' reasons say they were not.
    effective = [(g, o) for g, o in zip(hooks, verdicts, strict=True) if o["verdict"] == "effective"]
    beside: dict[str, list[str]] = {}
    for h, v in zip(hooks, verdicts, strict=True):
        blockers = [
            named(o)
            for g, o in zip(hooks, verdicts, strict=True)
            if g is not h and ((o["verdict"] == "effective" and blocks(o["decision"])) or o["treated"] == "fail-closed")
        ]
        same = [named(o) for g, o in effective if g is not h and g.canonical == h.canonical]
        if blockers and (v["treated"] == "fail-closed" or (v["verdict"] == "not-fired" and v["expected"])):
            beside[h.key] = blockers
        elif same and v["verdict"] in ("ignored", "not-fired") and v["expected"]:
            beside[h.key] = same
    for n, h in enumerate(hooks):
        if h.key not in beside:
            continue
        if list(beside).index(h.key) >= ALONE_MAX:
            verdicts[n]["reason"] += f" (beside {', '.join(beside[h.key])}; not run alone: at most {ALONE_MAX} are)"
            continue
        progress(f"{agent.name} {version}: {hook_name(verdicts[n])} alone")
        alone = run_session(agent, requested, version, scenario, folder, configs, hooks, {h.key}, backend)
        against(alone, control)
        before = "not run" if verdicts[n]["verdict"] == "not-fired" else verdicts[n]["verdict"]
        verdicts[n] = again = verdict_of(h, scenario, alone, control, agent.block_exit_codes)
        again["reason"] = f"{before} beside {', '.join(beside[h.key])}, which changed the session; alone: {again['reason']}"
        aev = alone.evidence.model_copy(
            update={
                "recipe": f"{alone.evidence.recipe}-{n}",
                "outcome": "alone",
                "observations": {"steps": alone.steps, "hook": again, "workspace_changes": alone.changes},
            }
        )
        writes.append((evidence_path(results, aev), aev))
    expectations = expectations_of(scenario, expect, hooked)
    observations: dict[str, Any] = {"steps": hooked.steps, "hooks": verdicts, "workspace_changes": hooked.changes}
    if expectations:
        observations["expectations"] = expectations
    outcome = "pass" if all(ok(v) for v in verdicts) and all(e["met"] for e in expectations) else "fail"
    ev = hooked.evidence.model_copy(update={"outcome": outcome, "observations": observations})
    cev = control.evidence.model_copy(
        update={"outcome": "control", "observations": {"steps": control.steps, "workspace_changes": control.changes}}
    )
    path, cpath = evidence_path(results, ev), evidence_path(results, cev)
    save_checked([*writes, (cpath, cev), (path, ev)])
    report: Report = {
        "agent": agent.name,
        "version": ev.executed_version,
        "requested": requested,
        "scenario": scenario.name,
        "steps": hooked.steps,
        "hooks": verdicts,
        "evidence": str(path),
        "control_evidence": str(cpath),
    }
    if expectations:
        report["expectations"] = expectations
    return report


def save_checked(writes: Sequence[tuple[Path, Any]]) -> None:
    """A version's records, each stored as save_evidence stores it, once all of them are
    known to be readable (limits.evidence_problem: the size every reader accepts, above all):
    else one line, and none of them written."""
    from probes.evidence.model import write_atomic
    from probes.evidence.store import compact, dumps, put_blob
    from probes.limits import evidence_problem

    stored = []
    for path, ev in writes:
        record, blobs = compact(ev.model_dump(mode="json"))
        text = dumps(record)
        problem = evidence_problem(path, text, blobs)
        if problem:
            raise InputError(
                f"the evidence {path.name} of {ev.agent} {ev.executed_version or ev.requested_version} would be unreadable: "
                f"{problem}; check fewer hooks, or hooks that print less (nothing written for this version)"
            )
        stored.append((path, text, blobs))
    for path, text, blobs in stored:
        for digest, data in blobs.items():
            put_blob(path.parent, digest, data, write_atomic)
        write_atomic(path, text)


def named(h: HookReport) -> str:
    """A hook in another's reason."""
    return hook_name(h)


def against(session: Session, control: Session) -> None:
    """Each step of `session` beside the control's."""
    for s, c in zip(session.steps, control.steps, strict=False):
        s["control_ran"] = c["ran"]


def ok(h: HookReport) -> bool:
    """What --strict accepts: effective or passive, or not fired where the scenario does not
    exercise the hook."""
    return h["verdict"] in PASSING or (h["verdict"] == "not-fired" and not h["expected"])


def versions_of(agent: Agent, spec_version: str, selector: str | None) -> list[tuple[str, str]]:
    """(requested, exact) pairs: the spec's version, or --versions. Installed exact versions
    need no registry round trip."""
    from probes.sweep.matrix import select_versions
    from probes.versions import install, spec

    if selector is None:
        if spec_version != "latest" and install.installed(agent, spec_version):
            return [(spec_version, spec_version)]
        return [(spec_version, spec.resolve(spec.Spec(agent.name, spec_version), agent.package))]
    listed = [v.strip() for v in selector.split(",") if v.strip()]
    if ".." not in selector and not selector.startswith("latest") and all(install.installed(agent, v) for v in listed):
        return [(v, v) for v in listed]
    chosen = select_versions(agent, selector)
    if not chosen:
        raise InputError(f"--versions {selector} selects no published {agent.name} version")
    return [(v, v) for v in chosen]


def hook_name(h: HookReport) -> str:
    """A hook as a person names it: the script its command runs (the whole path, relative to
    the folder), else the command; with its event and matcher."""
    scripts = scripts_named(h["command"])
    path = re.search(r"(?:[\w.-]+/)+[\w.-]+", h["command"])  # behind a "$(git rev-parse ...)"/ too
    what = scripts[0].removeprefix("./") if scripts else path.group() if path else h["command"]
    what = what if len(what) <= 48 else what[:45] + "..."
    return f"{what} ({h['event']}" + (f" [{h['matcher']}])" if h["matcher"] else ")")


def short(reason: str, width: int = 90) -> str:
    return reason if len(reason) <= width else reason[: width - 3] + "..."


def shown(h: HookReport) -> str:
    return h["verdict"] + (f" ({h['treated']})" if h["treated"] else "")


def summary(hooks: Sequence[HookReport]) -> str:
    """`3 hooks: 1 effective, 1 passive, 1 broken`."""
    counts: dict[str, int] = {}
    for h in hooks:
        counts[h["verdict"]] = counts.get(h["verdict"], 0) + 1
    order = ["effective", "passive", "ignored", "broken", "undecided", "not-fired"]
    parts = [f"{counts[v]} {v}" for v in order if v in counts]
    return f"{len(hooks)} hook{'' if len(hooks) == 1 else 's'}: {', '.join(parts)}"


def expectation_lines(report: Report) -> list[str]:
    return [
        f"  {'ok  ' if e['met'] else 'FAIL'} {e['command']!r} expected {e['expect']}: {fmt(e['ran'])}"
        + f" (without the hooks: {fmt(e['control_ran'])})"
        for e in report.get("expectations") or []
    ]


def table(report: Report) -> str:
    """One version's verdicts: a line per hook, the steps, what was expected, a summary."""
    from tabulate import tabulate

    steps = "; ".join(
        f"{s.get('command') or s['kind']!r}: {fmt(s['ran'])} (without the hooks: {fmt(s['control_ran'])})"
        for s in report["steps"]
    )
    rows = [(hook_name(h), shown(h), short(h["reason"])) for h in report["hooks"]]
    head = f"{report['agent']} {report['version'] or 'unknown version'}, scenario {report['scenario']}: {steps or 'no tool step'}"
    body = tabulate(rows, headers=["hook", "verdict", "reason"])
    return "\n".join([head, body, *expectation_lines(report), summary(report["hooks"]), f"evidence: {report['evidence']}"])


def versions_table(reports: Sequence[Report]) -> str:
    """Several versions: one table, a column per version, `*` where the verdicts differ."""
    from tabulate import tabulate

    first = reports[0]
    columns = [r["version"] or f"{r['requested']}?" for r in reports]
    rows = []
    differ = False
    for n, h in enumerate(first["hooks"]):
        cells = [shown(r["hooks"][n]) for r in reports]
        mark = "*" if len(set(cells)) > 1 else ""
        differ = differ or bool(mark)
        rows.append((mark + hook_name(h), *cells))
    for n, e in enumerate(first.get("expectations") or []):
        cells = [("ok: " if r["expectations"][n]["met"] else "FAIL: ") + fmt(r["expectations"][n]["ran"]) for r in reports]
        mark = "*" if len(set(cells)) > 1 else ""
        differ = differ or bool(mark)
        rows.append((f"{mark}{e['command']!r} expected {e['expect']}", *cells))
    head = f"{first['agent']} {', '.join(columns)}, scenario {first['scenario']}"
    lines = [head, tabulate(rows, headers=["hook", *columns])]
    lines.append("* differs between versions" if differ else "the same on every version")
    lines += [f"{c}: {summary(r['hooks'])}" for c, r in zip(columns, reports, strict=True)]
    return "\n".join(lines)


def workflow_commands(reports: Sequence[Report]) -> list[str]:
    """GitHub workflow commands: an error per broken hook, a warning per ignored one, an error
    per unmet expectation, each on the config file that holds the hook."""

    def escape(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    out = []
    for r in reports:
        where = f"{r['agent']} {r['version'] or r['requested']}"
        for h in r["hooks"]:
            if h["verdict"] in ("broken", "ignored"):
                level = "error" if h["verdict"] == "broken" else "warning"
                message = escape(f"{where}: {shown(h)}: {h['reason']}")
                out.append(f"::{level} file={h['source']},title=probe check: {escape(hook_name(h))}::{message}")
        for e in r.get("expectations") or []:
            if not e["met"]:
                msg = f"{where}: {e['command']!r} expected {e['expect']}, {fmt(e['ran'])}"
                out.append(f"::error title=probe check: expected {e['expect']}::{escape(msg)}")
    return out


def fmt(ran: bool | None) -> str:
    return {True: "ran", False: "did not run", None: "cannot tell"}[ran]


def expectations_of(scenario: Scenario, expect: Sequence[str], hooked: Session) -> list[Expectation]:
    """--expect per --command: blocked is met when the step's command did not run, allowed
    when it did (measured: a step that cannot be told meets neither)."""
    steps = [s for s in hooked.steps if s["kind"] == "shell"]
    out: list[Expectation] = []
    for want, step in zip(expect, steps, strict=False):
        met = step["ran"] is (want == "allowed") if step["ran"] is not None else False
        out.append(
            {
                "command": step.get("command") or "",
                "expect": want,
                "ran": step["ran"],
                "control_ran": step["control_ran"],
                "met": met,
            }
        )
    return out


def commands_scenario(commands: Sequence[str]) -> Scenario:
    """--command CMD ...: one shell step per command, in order, then a text."""
    from probes.catalog.recipes import Step
    from probes.catalog.scenarios import SESSION, TOOL

    turns = [Step(tool="shell", command=c) for c in commands] + [Step(text="done")]
    return Scenario(name="commands", description="the commands given with --command", turns=turns, events=SESSION + TOOL)


PROGRESS: list[bool] = [False]  # set by cmd_check: stderr is a terminal, or --progress


def progress(message: str) -> None:
    """A long step, said on stderr while it runs (quiet when stderr is no terminal, unless --progress)."""
    if PROGRESS[0]:
        print(f"probe: {message}", file=sys.stderr, flush=True)


def cmd_check(args: Any) -> int:
    """probe check AGENT@VERSION --hooks DIR: 0, or 4 with --strict when a hook is not as
    its scenario expects or a command not as --expect says."""
    from probes.catalog.scenarios import load
    from probes.commands.options import spec_of
    from probes.evidence.store import check_writable

    s = spec_of(args.spec)
    PROGRESS[0] = bool(args.progress) or sys.stderr.isatty()
    commands, expect = args.command or [], args.expect or []
    if commands and args.scenario is not None:
        raise InputError("--command builds its own scenario: give --scenario or --command, not both")
    if expect and len(expect) != len(commands):
        raise InputError(f"--expect goes with --command, one each: {len(commands)} --command, {len(expect)} --expect")
    if any("\0" in c or not c.strip() for c in commands):
        raise InputError("--command: an empty command, or one with a NUL character")
    agent, configs, hooks = prepare(s.agent, Path(args.hooks))
    scenario = commands_scenario(commands) if commands else load(args.scenario or "shell")
    scenario_name_ok(scenario)
    scenario_fits(agent, scenario)
    chosen = versions_of(agent, s.version, args.versions)  # an unpublished version: before anything is written
    results = Path(args.results)
    check_writable(results)
    reports = []
    for requested, version in chosen:
        report = check_version(
            agent, requested, version, scenario, Path(args.hooks).resolve(), configs, hooks, results, expect=expect
        )
        reports.append(report)
        if not args.json and len(chosen) == 1:
            print(table(report), flush=True)
    if args.json:
        out = [{k: v for k, v in r.items() if k != "requested"} for r in reports]
        print(json.dumps(out if args.versions else out[0], indent=2))
    elif len(chosen) > 1:
        print(versions_table(reports), flush=True)
    failed = [h for r in reports for h in r["hooks"] if not ok(h)]
    unmet = [e for r in reports for e in r.get("expectations") or [] if not e["met"]]
    return Exit.NOT_AS_EXPECTED if args.strict and (failed or unmet) else Exit.OK


def action_main() -> None:
    """The GitHub Action: `python -m probes.check [--annotations] REPORT.json`."""
    wanted = sys.argv[1:]
    loaded = json.loads(Path(wanted[-1]).read_text())
    every = loaded if isinstance(loaded, list) else [loaded]
    if "--annotations" in wanted:
        print("\n".join(workflow_commands(every)))
    else:
        print(f"```\n{versions_table(every) if len(every) > 1 else table(every[0])}\n```\n")
