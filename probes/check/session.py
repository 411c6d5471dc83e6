"""One session of a check (with the hooks, alone, or the control) and what it left, as far
as verdicts go: the hooks' records, whether each step ran (measured off the shells the
session started, the workspace, the tool results), the files it changed."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probes.agents import NATIVE, Agent, Registration
from probes.backends import BACKENDS
from probes.catalog.recipes import ResolvedRecipe
from probes.catalog.scenarios import Scenario
from probes.catalog.setup import default as setup_default
from probes.check import kinds, plugins
from probes.check.config import ConfigFile, Configured
from probes.check.kinds import judged, receiver
from probes.check.model import StepReport
from probes.check.workspace import lay_out, watch_shells
from probes.errors import HarnessError
from probes.pipeline import steps
from probes.pipeline.collect import edited, read_jsonl
from probes.pipeline.normalise import known_values, normalise
from probes.pipeline.plan import Hooks, marker_path
from probes.pipeline.redact import redact
from probes.pipeline.rundirs import RunDirs
from probes.pipeline.steps import Prepared
from probes.runner import untrusted
from probes.runner.contract import HOOK_SENTINEL, HookEntry

CHANGE_KEPT = 4000  # characters kept of a file the session wrote (an audit log)


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


SHELLS_LOG_MAX = 16 * 1024 * 1024  # shells.jsonl: one line per shell started, each at most 64 KiB


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


def recipe_of(agent: Agent, scenario: Scenario, variant: str) -> ResolvedRecipe:
    """The recipe a check's session is recorded under: the scenario's turns, no hook of the
    harness's own (the user's are in the workspace), classified by the check, not a classifier."""
    control = variant == "-control"
    return ResolvedRecipe(
        agent=agent.name,
        name=f"check-{scenario.name}{variant}",
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
        permissions="preapproved",
        watch_files=tuple(scenario.files),
        claims=(),
        surface="user-hooks",
        mode="prompt",
        actions=(),
        disk_mb=scenario.disk_mb,
        setup=setup_default(agent),
    )


def registration(h: Configured, kept: bool) -> Registration:
    """A hook as the pipeline registers one: a kept prompt, agent or http hook with its type,
    its prompt as the check's copy asks it, its URL the receiver (collect reads its answers)."""
    if not kept or not judged(h):
        return Registration(h.key, h.native, h.command, h.timeout_s, h.matcher)
    prompt = f"{HOOK_SENTINEL}{h.key} {h.command}" if h.type in ("prompt", "agent") else None
    url = receiver(h.key) if h.type == "http" else None
    return Registration(h.key, h.native, "", h.timeout_s, h.matcher, None, h.type, prompt, url)


def hooks_of(hooks: Sequence[Configured], keep: set[str] | None, files: Sequence[Path] = (), argv: Sequence[str] = ()) -> Hooks:
    """The user's hooks as the pipeline registers hooks: what collect reads each record as
    (the shim names each by its key), the config files the check wrote (an http hook's URL's
    port is filled in there), what starts an mcp_tool hook's server. The control registers none."""
    if keep is None:
        return Hooks([], {})
    regs = [registration(h, h.key in keep) for h in hooks]
    sidecar = {h.key: HookEntry(event=h.native, canonical=h.canonical or h.native, behavior={}) for h in hooks}
    return Hooks(regs, sidecar, argv=tuple(argv), files=tuple(files))


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
    """One session through the probe pipeline (pipeline/steps.py): with the hooks in `keep`
    installed (the others neutral), or with no hook config at all (`keep` None: the control).
    `watch` False leaves the shells as they are (no hook recorded, no step measured): the
    session exactly as without `probe`, for comparing. Only the workspace (the user's
    folder, the watched shells) and the reading of the session are the check's own."""
    variant = "-control" if keep is None else "" if len(keep) == len(hooks) else "-alone"  # the caller numbers it
    backend = BACKENDS[backend_name]
    recipe = recipe_of(agent, scenario, variant)
    before: dict[str, untrusted.Entry] = {}  # the workspace as the session found it

    def prepare(run: RunDirs) -> Prepared:
        prefix = steps.install(backend, agent, version, recipe, run)
        written = lay_out(run.workspace, folder, configs, hooks, keep, scenario)
        written += plugins.install(agent, run.workspace, run.records, hooks, keep)  # each behind its recorder
        shells, launcher = watch_shells(run, backend.python(), hooks, keep or set())
        mcp = kinds.mcp_servers(agent, run, backend.python(), hooks, keep or set())
        before.update(workspace_files(run.workspace))
        ready = steps.plan(backend, agent, requested, version, recipe, prefix, hooks_of(hooks, keep, written, mcp), run)
        ready.plan["hook_answers"] = kinds.answers(hooks, keep or set())  # in the user's model's and URL's place
        jail = ready.plan.get("jail")
        if jail and watch:
            jail["shells"], jail["wrapper"] = shells, launcher
        return ready

    with steps.session(backend, prepare, runner_files=("shim.py",)) as done:
        return read_session(done, scenario, configs, hooks, before, watch)


def read_session(
    done: steps.Ran,
    scenario: Scenario,
    configs: Sequence[ConfigFile],
    hooks: Sequence[Configured],
    before: Mapping[str, untrusted.Entry],
    watch: bool,
) -> Session:
    """What the session left, as far as verdicts go, read while its run directory is there;
    its record is the pipeline's, outcome `checked` (the caller writes the verdicts in)."""
    run, plan, result, collected = done.run, done.ready.plan, done.ran.result, done.collected
    log = read_jsonl(Path(plan["model_log"]))
    watched = watch and (result.get("jail") or {}).get("filesystem", "host") != "host"
    if watch and not watched:
        why = (result.get("jail") or {}).get("error") or "no private mount namespace (unshare)"
        raise HarnessError(f"probe check watches hooks inside the run's jail, which this host cannot make ({why})")
    hooks_run = {inv.pid for inv in collected.invocations if inv.surface == "command"}  # a plugin's pid is the CLI's
    started = shells_started(run, hooks_run) if watched else None
    steps_run, used = steps_of(scenario, Path(plan["cwd"]), log, started)
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
    agent = done.ready.agent
    told = {inv.payload.get("tool_name") for inv in collected.invocations if isinstance(inv.payload, dict)}
    told |= {agent.hook_tool_names[t] for t in used if t in agent.hook_tool_names}
    used = sorted(set(used) | {t for t in told if isinstance(t, str) and t})
    known = known_values(str(run.root), plan["run_id"], done.backend.python())

    def scrub(v: Any) -> Any:
        """As collect.scrub does the session's parts: credentials, then per-run names."""
        text = json.dumps(v).replace(json.dumps(str(run.root))[1:-1], "$RUN")
        return normalise(redact(json.loads(text), done.secrets), known)

    return Session(
        evidence=steps.evidence(done, "checked", {}),
        records=records,
        steps=steps_run,
        tools_used=used,
        model_texts=texts,
        tool_results=scrub(results),
        prompt_reached=any(scenario.prompt in t for t in texts),
        changes=scrub(changes),
        shells=started or [],
    )
