"""Planning one probe: the run directory's layout, the workspace, the recipe's hooks where the
CLI loads them, and the runner's plan (environment, argv or terminal steps, model scripts,
filesystem jail). Everything agent-specific comes from the agent; everything per agent in the
recipe was picked already (recipes.ResolvedRecipe)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from probes.agents import Agent, ConfigTarget, Registration
from probes.agents.config import write_json
from probes.backends.base import PASSED_ENV
from probes.catalog.parts import Step, Verdict
from probes.catalog.recipes import ResolvedHook, ResolvedRecipe
from probes.errors import InputError
from probes.pipeline import shells
from probes.pipeline.rundirs import RunDirs  # the directories of one run
from probes.runner.contract import (
    ANSWERED,
    HOOK_PATH,
    HOOK_SENTINEL,
    ExtensionConfig,
    ExtensionEntry,
    HookAnswer,
    HookBehavior,
    HookConfig,
    HookEntry,
    Interactive,
    JailSpec,
    McpConfig,
    McpHook,
    Plan,
    ScriptStep,
    TtyStep,
)
from probes.versions.node import NODE_DIR

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
SUBAGENT_SENTINEL = "PROBE-SUBAGENT"  # the scripted model plays subagent_turns to a child asked this
TTY_SIZE = (40, 120)  # rows, columns of an interactive session's terminal
TTY_READY_TIMEOUT_S = 30.0  # from a start to the ready prompt
TTY_KEYS = {"up": "\x1b[A", "down": "\x1b[B", "enter": "\r", "esc": "\x1b", "tab": "\t"}  # a dialog's keys (xterm)
# Hidden from the session by empty mounts: scratch space and host sockets, and the homes
# whose dotfiles hold the caller's credentials (gh, npm, cloud CLIs).
HIDDEN = ("/tmp", "/var/tmp", "/run", "/dev/shm", "/root")


def workspace(run: RunDirs, files: Mapping[str, str] | None = None) -> None:
    """A fresh git repository with one commit, as a user's project would be: a README and the
    recipe's `files` (a CLAUDE.md, a slash command)."""
    env = {"PATH": BASE_PATH, "HOME": str(run.home), "GIT_CONFIG_NOSYSTEM": "1"}
    (run.workspace / "README.md").write_text("probe workspace\n")
    for rel, content in (files or {}).items():
        (run.workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (run.workspace / rel).write_text(content)
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=probe", "-c", "user.email=probe@localhost", "commit", "-q", "-m", "probe workspace"],
    ):
        subprocess.run(cmd, cwd=run.workspace, env=env, check=True, capture_output=True)


# ---------------------------------------------------------------- hooks


@dataclass(frozen=True)
class Hooks:
    """The recipe's hooks as registered: the config entries, what each record will be of
    (the instrumented hook's sidecar, by key), and how an extension is loaded."""

    registrations: list[Registration]
    sidecar: dict[str, HookEntry]
    env: Mapping[str, str] = field(default_factory=dict)  # what makes the CLI load the extension
    route: str | None = None  # said in the evidence
    argv: tuple[str, ...] = ()  # what makes the CLI load the config (a plugin's directory), after its argv
    files: tuple[Path, ...] = ()  # the config files written


def hook_command(python: str, hook_path: Path, key: str) -> str:
    # -S -E -s: no site, no PYTHON* env, no user site: the fastest start and the same
    # interpreter behaviour wherever the hook runs.
    return " ".join(shlex.quote(p) for p in (python, "-S", "-E", "-s", str(hook_path), key))


MCP_SERVER = "probe"  # the probe MCP server's name in the CLI's MCP config (its tools: mcp__probe__*)
MCP_TOOLS = ("record", "probe_tool")
# An mcp_tool hook's default input: which hook calls (probe_key) and the event's fields it knows.
MCP_INPUT = {"event": "${hook_event_name}", "tool_name": "${tool_name}", "tool_input": "${tool_input}", "source": "${source}"}


def mcp_fields(hook: ResolvedHook) -> dict[str, Any]:
    """An mcp_tool hook's server, tool and input (the hook's key in it: the server records by it)."""
    h = hook.handler
    return {
        **h.fields(),
        "server": MCP_SERVER,
        "tool": h.tool or "record",
        "input": {**(h.input or MCP_INPUT), "probe_key": hook.key},
    }


def uses_mcp(recipe: ResolvedRecipe) -> bool:
    """A recipe needs the probe MCP server: an mcp_tool hook, an mcp__probe__ matcher, an mcp step."""
    return any(h.handler.type == "mcp_tool" or (h.matcher or "").startswith(f"mcp__{MCP_SERVER}") for h in recipe.hooks) or any(
        s.tool == "mcp" for s in (*recipe.turns, *recipe.subagent_turns)
    )


def register_mcp(agent: Agent, recipe: ResolvedRecipe, run: RunDirs, python: str, native: Mapping[str, str]) -> tuple[str, ...]:
    """The probe MCP server's sidecar (runner/mcp_server.py) and what makes the CLI start it."""
    args = ["-S", "-E", "-s", str(run.bin / "mcp_server.py")]
    answers = {
        h.key: McpHook(event=native[h.key], answer=cast("HookAnswer", (h.answer or Verdict()).model_dump(exclude_defaults=True)))
        for h in recipe.hooks
        if h.handler.type == "mcp_tool"
    }
    write_json(run.bin / "mcp.json", McpConfig(records=str(run.records), hooks=answers, tools={}))
    servers = run.bin / "mcp-servers.json"
    write_json(servers, {"mcpServers": {MCP_SERVER: {"type": "stdio", "command": python, "args": args}}})
    argv = agent.mcp_argv(servers, [f"mcp__{MCP_SERVER}__{t}" for t in MCP_TOOLS])
    if not argv:
        raise InputError(f"recipe {recipe.name!r}: {agent.name} cannot start the probe MCP server")
    return argv


def register_hooks(agent: Agent, recipe: ResolvedRecipe, run: RunDirs, python: str) -> Hooks:
    """Write the recipe's hooks where the CLI loads them: command hooks into a config it
    reads, or an extension's handlers."""
    surface, name = recipe.surface, recipe.name
    extension = agent.extension if surface == "extension" else None
    if surface == "extension" and extension is None:
        raise InputError(f"recipe {name!r}: {agent.name} has no extension surface")
    regs, sidecar = [], {}
    for hook in recipe.hooks:
        if extension is not None:
            native = extension.events.get(hook.event)
            what = "extension handler"
        else:
            native = hook.native or agent.native_event(hook.event, hook.casing)
            what = f"{hook.casing} event"
        if native is None:
            raise InputError(f"recipe {name!r}: {agent.name} has no {what} for {hook.event!r}")
        command = "" if extension is not None else hook_command(python, run.bin / "hook.py", hook.key)
        h = hook.handler
        regs.append(
            Registration(
                hook.key,
                native,
                command,
                hook.timeout_s,
                hook.matcher,
                hook.raw,
                h.type,
                f"{HOOK_SENTINEL}{hook.key} {h.prompt}" if h.prompt else None,  # names the hook in the request
                (h.url or f"http://127.0.0.1:{{port}}{HOOK_PATH}{hook.key}") if h.type == "http" else None,
                mcp_fields(hook) if h.type == "mcp_tool" else h.fields(),
            )
        )
        behavior = cast("HookBehavior", hook.behavior.model_dump(exclude_defaults=True))  # Behavior's fields are its keys
        sidecar[hook.key] = HookEntry(event=native, canonical=hook.event, behavior=behavior)
    if extension is not None:
        handlers = {
            e["event"]: ExtensionEntry(key=key, event=e["event"], canonical=e["canonical"], behavior=e["behavior"])
            for key, e in sidecar.items()
        }
        if len(handlers) < len(regs):
            raise InputError(f"recipe {name!r}: an extension has one handler per event")
        folder = run.home / extension.folder
        folder.mkdir(parents=True)
        (folder / extension.source.name).write_text(extension.source.read_text())
        write_json(folder / "probe-ext.json", ExtensionConfig(records=str(run.records), hooks=handlers))
        return Hooks(regs, sidecar, extension.env, extension.route)
    writer = agent.config_locations.get(recipe.config_location)
    if writer is None:
        raise InputError(f"recipe {name!r}: {agent.name} reads no {recipe.config_location} config")
    (run.bin / "hook.json").write_text(json.dumps(HookConfig(records=str(run.records), hooks=sidecar)))
    target = ConfigTarget(workspace=run.workspace, home=run.home)
    written = writer(target, regs)
    agent.write_rules(target, recipe.setup.get("rules", "none"), recipe.config_location)  # merged: after the hooks
    mcp = register_mcp(agent, recipe, run, python, {r.key: r.native for r in regs}) if uses_mcp(recipe) else ()
    return Hooks(regs, sidecar, route=written.route, argv=(*written.argv, *mcp), files=tuple(written.files))


# ---------------------------------------------------------------- model scripts


def marker_path(step: Step, index: int) -> str | None:
    """The file a scripted step leaves, relative to the CLI's working directory."""
    if step.tool == "shell":
        return f"probe-marker-{index}.txt"
    if step.tool == "create_file":
        return step.path or f"probe-created-{index}.txt"
    if step.tool == "edit_file":
        return step.path or "README.md"
    return step.path


def script(turns: Sequence[Step], root: Path | None = None) -> list[ScriptStep]:
    """The model's steps; `root`: file paths given as absolute under it (Agent.absolute_paths)."""
    out: list[ScriptStep] = []
    for i, step in enumerate(turns):
        s = cast("ScriptStep", step.model_dump(exclude_none=True))  # Step's fields are its keys
        path = marker_path(step, i)
        if step.tool == "shell" and step.command is None:
            s["command"] = f"echo ran > {path}"
        if step.tool in ("create_file", "edit_file", "view_file") and path is not None:
            s["path"] = str(root / path) if root is not None else path
        if step.tool == "edit_file":
            s.setdefault("old", "probe workspace")
            s.setdefault("new", "probe workspace, edited")
        if step.tool == "subagent":
            s["prompt"] = f"{SUBAGENT_SENTINEL}: {step.prompt or 'run the probe step'}"
        out.append(s)
    return out


def hook_answer(verdict: Verdict | None) -> HookAnswer:
    """What the run answers a hook it answers itself; an agent's tool turns as script steps (a
    shell turn without a command writes a marker of its own, never a main step's)."""
    out = cast("HookAnswer", (verdict or Verdict()).model_dump(exclude_defaults=True, exclude={"tool_turns"}))
    if verdict and verdict.tool_turns:
        out["tool_turns"] = [
            {
                **cast("ScriptStep", s.model_dump(exclude_none=True)),
                **({"command": f"echo ran > probe-hook-{i}.txt"} if s.tool == "shell" and s.command is None else {}),
            }
            for i, s in enumerate(verdict.tool_turns)
        ]
    return out


# ---------------------------------------------------------------- the runner's plan


def runner_plan(
    agent: Agent,
    prefix: Path,
    recipe: ResolvedRecipe,
    run: RunDirs,
    node_dir: str,
    extra_env: Mapping[str, str] | None = None,
    extra_argv: Sequence[str] = (),
) -> Plan:
    """`extra_env` and `extra_argv`: what makes the CLI load the hooks (Hooks.env, Hooks.argv),
    the argv's after the agent's own, in a print session and at each start of a terminal one."""
    env: dict[str, str | None] = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env.update(
        {
            "PATH": f"{agent.binary_path(prefix).parent}:{own_node_dir(prefix)}{node_dir}:{BASE_PATH}",
            "HOME": str(run.home),
            "TMPDIR": str(run.tmp),
            "XDG_CONFIG_HOME": str(run.home / ".config"),
            "XDG_CACHE_HOME": str(run.home / ".cache"),
            "XDG_DATA_HOME": str(run.home / ".local" / "share"),
            "XDG_STATE_HOME": str(run.home / ".local" / "state"),
            "TERM": "dumb",
            "NO_COLOR": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )
    env.update(agent.session_env(prefix, run.home))
    agent.prepare_permissions(prefix, run.home, recipe.permissions)  # after the hooks and session_env's files
    env.update(extra_env or {})
    cwd = run.workspace / (recipe.cwd or "")
    cwd.mkdir(parents=True, exist_ok=True)
    interactive = terminal_plan(agent, prefix, recipe, run, str(cwd), env, extra_argv) if recipe.mode == "interactive" else None
    env.update(recipe.env)
    plan: Plan = {
        "argv": interactive[0]["steps"][0].get("argv", [])
        if interactive
        else [*agent.argv(prefix, recipe.prompt, recipe.permissions), *extra_argv, *recipe.args],
        "env": {k: v for k, v in env.items() if v is not None},
        "cwd": str(cwd),
        "budget_s": recipe.budget_s + agent.startup_s,  # from the CLI's start; an agent slow to start
        "turn_budget_s": recipe.budget_s,  # from its first model request: start-up under load is no verdict
        "run_id": uuid.uuid4().hex,
        "script": script(recipe.turns, cwd if agent.absolute_paths else None),
        "subagent_script": script(recipe.subagent_turns, cwd if agent.absolute_paths else None),
        "subagent_sentinel": SUBAGENT_SENTINEL,
        "tool_names": {kind: list(names) for kind, names in agent.tool_names.items()},
        "hook_answers": {h.key: hook_answer(h.answer) for h in recipe.hooks if h.handler.type in ANSWERED},
        "records": str(run.records),
        "model_log": str(run.root / "model.jsonl"),
        "stdout": str(run.root / "cli.stdout"),
        "stderr": str(run.root / "cli.stderr"),
        "result": str(run.root / "result.json"),
        "jail": jail_spec(run, prefix, node_dir, recipe.setup.get("sh", "dash")),
        "disk": run.disk,
    }
    if run.capped:
        plan["capped"] = run.capped
    if recipe.interrupt_s is not None:
        plan["interrupt_s"] = recipe.interrupt_s
    if interactive is not None:
        plan["interactive"], plan["prompt_scripts"] = interactive
    return plan


def own_node_dir(prefix: Path) -> str:
    """The Node.js installed for the CLI (versions/node.py) first on PATH, where there is one
    ("DIR:"; "" leaves the PATH, and so the records, as without it). Docker's image puts its own
    in the backend's node_dir."""
    own = prefix / NODE_DIR / "bin"
    return f"{own}:" if own.is_dir() else ""


def jail_spec(run: RunDirs, prefix: Path, node_dir: str, sh: str = "dash") -> JailSpec:
    """What the runner's filesystem jail makes writable, keeps readable and hides, and the
    shell it binds at /bin/sh (see probes/runner/jail.py); a backend without a private mount
    namespace drops it."""
    home = os.path.expanduser("~")
    hide = [*HIDDEN, *([home] if home not in ("/", "") else [])]
    spec: JailSpec = {
        "writable": [str(run.root)],
        "owned": [str(d) for d in (run.workspace, run.home, run.tmp, run.records)],
        "keep": [str(prefix), node_dir, sys.prefix, sys.base_prefix],
        "hide": list(dict.fromkeys(hide)),
    }
    bound = shells.bind(sh)
    if bound:
        spec["sh"] = bound
    return spec


def terminal_plan(
    agent: Agent,
    prefix: Path,
    recipe: ResolvedRecipe,
    run: RunDirs,
    cwd: str,
    env: dict[str, str | None],
    extra_argv: Sequence[str] = (),
) -> tuple[Interactive, dict[str, list[ScriptStep]]]:
    """An interactive session: the agent's first-run screens skipped, a terminal environment,
    and the recipe's actions as the terminal driver's steps, keys and markers resolved. Each
    prompt carries a marker (PROBE-PROMPT-N) that selects its own model script."""
    env.update({"TERM": "xterm-256color", "NO_COLOR": None})
    env.update(agent.prepare_interactive(run.home, cwd, env))
    argv = [*agent.interactive_argv(prefix, recipe.permissions), *extra_argv]
    steps: list[TtyStep] = [{"do": "start", "argv": argv}]
    scripts: dict[str, list[ScriptStep]] = {}
    for action in recipe.actions:
        if action.prompt is not None:
            marker = f"PROBE-PROMPT-{len(scripts) + 1}"
            scripts[marker] = script(action.turns or recipe.turns)
            steps.append({"do": "prompt", "text": f"{action.prompt} ({marker})"})
        elif action.answer:
            steps.append({"do": "answer", "text": action.answer, "keys": agent.tty["keys"][action.answer]})
        elif action.command:
            command: TtyStep = {"do": "command", "text": action.command}
            if action.keys:
                command["presses"] = [TTY_KEYS[k] for k in action.keys]
            steps.append(command)
        elif action.exit:
            steps.append({"do": "exit", "text": agent.tty["exit"]})
        elif action.wait is not None:
            steps.append({"do": "wait", "seconds": action.wait})
        else:
            steps.append({"do": "start", "argv": argv + (agent.tty["resume"] if action.start == "resume" else [])})
    rows, cols = TTY_SIZE
    tty: Interactive = {
        "steps": steps,
        "markers": agent.tty["markers"],
        "rows": rows,
        "cols": cols,
        "ready_timeout_s": TTY_READY_TIMEOUT_S,
    }
    return tty, scripts
