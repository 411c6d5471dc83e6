"""One probe, from spec to evidence:

resolve -> install -> workspace, hooks, plan -> backend (model server + CLI)
        -> collect -> scrub (redact, stable paths) -> classify -> evidence -> write
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from . import __version__, install, limits, recipes, rundirs, spec
from .agents import AGENTS, Registration, hook_command
from .backends import BACKENDS
from .claims import judge
from .classify import SENTINEL_RE, hook_texts, label
from .errors import HarnessError, InputError
from .evidence import CliRun, Evidence, Invocation, ModelRequest, check_writable, evidence_path, write_atomic
from .redact import known_secrets, redact, redact_env

RUNNER_FILES = ("runner.py", "model.py", "hook.py", "terminal.py", "jail.py")
TEXT_LIMIT = 2000  # characters kept of each model message and each output tail
MESSAGES_KEPT = (2, 6)  # a request's first 2 and last 6 messages are kept
REQUESTS_KEPT = (10, 5)  # and of a runaway session's model requests, the first 10 and last 5
SAMPLE = (20, 10)  # a runaway session keeps its first 20 and last 10 invocations; counts stay exact
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
PASSED_ENV = ("LANG", "LC_ALL", "TZ")  # the only variables taken from the caller


@dataclass
class RunDirs:
    root: Path

    def __post_init__(self):
        for d in (self.workspace, self.home, self.bin, self.records, self.tmp):
            d.mkdir(parents=True, exist_ok=True)

    workspace = property(lambda self: self.root / "workspace")
    home = property(lambda self: self.root / "home")
    bin = property(lambda self: self.root / "bin")
    records = property(lambda self: self.root / "records")
    tmp = property(lambda self: self.root / "tmp")


def iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---------------------------------------------------------------- resolve and install


def resolve(spec_text: str) -> tuple[object, str, str]:
    """(agent, requested version, exact version). An installed exact version needs no
    registry round trip; anything else is checked against the registry."""
    s = spec.parse_spec(spec_text, AGENTS)
    agent = AGENTS[s.agent]
    if s.version != "latest" and install.installed(agent, s.version):
        return agent, s.version, s.version
    return agent, s.version, spec.resolve(s, agent.package)


def load_recipe(name: str, agent) -> recipes.Recipe:
    recipe = recipes.get(name)
    if agent.name not in recipe.agents:
        raise InputError(f"recipe {name!r} does not apply to {agent.name} (it applies to {', '.join(recipe.agents)})")
    return recipe


# ---------------------------------------------------------------- workspace and plan


def workspace(run: RunDirs) -> None:
    """A fresh git repository with one commit, as a user's project would be."""
    env = {"PATH": BASE_PATH, "HOME": str(run.home), "GIT_CONFIG_NOSYSTEM": "1"}
    (run.workspace / "README.md").write_text("probe workspace\n")
    for cmd in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=probe", "-c", "user.email=probe@localhost", "commit", "-q", "-m", "probe workspace"],
    ):
        subprocess.run(cmd, cwd=run.workspace, env=env, check=True, capture_output=True)


def register_hooks(agent, recipe, run: RunDirs, python: str) -> tuple[list[Registration], dict, dict]:
    """Write the recipe's hooks where the CLI loads them: command hooks into its config, or an
    extension's handlers. Returns the registrations, the sidecar (key -> what the record is
    of), and how the extension is loaded ({"env", "route"}; empty for command hooks)."""
    extension = recipe.surface == "extension"
    if extension and not hasattr(agent, "write_extension"):
        raise InputError(f"recipe {recipe.name!r}: {agent.name} has no extension surface")
    regs, sidecar = [], {}
    for n, hook in enumerate(recipe.hooks):
        if hook.agents is not None and agent.name not in hook.agents:
            continue
        if extension:
            native = agent.extension_events.get(hook.event)
            what = "extension handler"
        else:
            native = recipes.pick(hook.native, agent.name) or agent.native_event(hook.event, hook.casing)
            what = f"{hook.casing} event"
        if native is None:
            raise InputError(f"recipe {recipe.name!r}: {agent.name} has no {what} for {hook.event!r}")
        key = f"{n}-{hook.event}"
        behavior = recipes.pick(hook.behavior, agent.name) or recipes.Behavior()
        command = "" if extension else hook_command(python, run.bin / "hook.py", key)
        regs.append(
            Registration(
                key, native, command, hook.timeout_s, recipes.pick(hook.matcher, agent.name), recipes.pick(hook.raw, agent.name)
            )
        )
        sidecar[key] = {"event": native, "canonical": hook.event, "behavior": behavior.model_dump(exclude_defaults=True)}
    if extension:
        handlers = {sidecar[r.key]["event"]: {"key": r.key, **sidecar[r.key]} for r in regs}
        if len(handlers) < len(regs):
            raise InputError(f"recipe {recipe.name!r}: an extension has one handler per event")
        loading = agent.write_extension(
            run.home, Path(__file__).parent / "runner" / "extension.mjs", {"records": str(run.records), "hooks": handlers}
        )
        return regs, sidecar, loading
    (run.bin / "hook.json").write_text(json.dumps({"records": str(run.records), "hooks": sidecar}))
    writer = AGENTS["claude"] if recipe.config_location == "claude-settings" else agent
    writer.write_hooks(run.workspace, regs)
    return regs, sidecar, {}


SUBAGENT_SENTINEL = "PROBE-SUBAGENT"  # the scripted model plays subagent_turns to a child asked this


def marker_path(step, index: int) -> str | None:
    """The file a scripted step leaves, relative to the CLI's working directory."""
    if step.tool == "shell":
        return f"probe-marker-{index}.txt"
    if step.tool == "create_file":
        return step.path or f"probe-created-{index}.txt"
    if step.tool == "edit_file":
        return step.path or "README.md"
    return step.path


def script(turns) -> list[dict]:
    out = []
    for i, step in enumerate(turns):
        s = step.model_dump(exclude_none=True)
        if step.tool == "shell" and step.command is None:
            s["command"] = f"echo ran > {marker_path(step, i)}"
        if step.tool in ("create_file", "edit_file", "view_file"):
            s["path"] = marker_path(step, i)
        if step.tool == "edit_file":
            s.setdefault("old", "probe workspace")
            s.setdefault("new", "probe workspace, edited")
        if step.tool == "subagent":
            s["prompt"] = f"{SUBAGENT_SENTINEL}: {step.prompt or 'run the probe step'}"
        out.append(s)
    return out


def plan(agent, prefix: Path, recipe, run: RunDirs, node_dir: str, extra_env: dict | None = None) -> dict:
    env = {k: os.environ[k] for k in PASSED_ENV if k in os.environ}
    env.update(
        {
            "PATH": f"{agent.binary_path(prefix).parent}:{node_dir}:{BASE_PATH}",
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
    env.update(extra_env or {})
    cwd = run.workspace / (recipe.cwd or "")
    cwd.mkdir(parents=True, exist_ok=True)
    interactive = terminal_plan(agent, prefix, recipe, run, str(cwd), env) if recipe.mode == "interactive" else None
    env.update(recipes.pick(recipe.env, agent.name) or {})
    return {
        **(interactive or {}),
        "argv": interactive["interactive"]["steps"][0]["argv"]
        if interactive
        else agent.argv(prefix, recipe.prompt, recipe.permissive),
        "env": {k: v for k, v in env.items() if v is not None},
        "cwd": str(cwd),
        "budget_s": recipe.budget_s,
        "run_id": uuid.uuid4().hex,
        "script": script(recipe.turns),
        "subagent_script": script(recipe.subagent_turns),
        "subagent_sentinel": SUBAGENT_SENTINEL,
        "records": str(run.records),
        "model_log": str(run.root / "model.jsonl"),
        "stdout": str(run.root / "cli.stdout"),
        "stderr": str(run.root / "cli.stderr"),
        "result": str(run.root / "result.json"),
        "jail": jail_spec(run, prefix, node_dir),
    }


# Hidden from the session by empty mounts: scratch space and host sockets, and the homes
# whose dotfiles hold the caller's credentials (gh, npm, cloud CLIs).
HIDDEN = ("/tmp", "/var/tmp", "/run", "/dev/shm", "/root")


def jail_spec(run: RunDirs, prefix: Path, node_dir: str) -> dict:
    """What the runner's filesystem jail makes writable, keeps readable and hides (see
    probes/runner/jail.py); a backend without a private mount namespace drops it."""
    home = os.path.expanduser("~")
    hide = [*HIDDEN, *([home] if home not in ("/", "") else [])]
    return {
        "writable": [str(run.root)],
        "owned": [str(d) for d in (run.workspace, run.home, run.tmp, run.records)],
        "keep": [str(prefix), node_dir, sys.prefix, sys.base_prefix],
        "hide": list(dict.fromkeys(hide)),
    }


TTY_SIZE = (40, 120)  # rows, columns of an interactive session's terminal
TTY_READY_TIMEOUT_S = 30.0  # from a start to the ready prompt


def terminal_plan(agent, prefix: Path, recipe, run: RunDirs, cwd: str, env: dict) -> dict:
    """An interactive session: the agent's first-run screens skipped, a terminal environment,
    and the recipe's actions as the terminal driver's steps, keys and markers resolved. Each
    prompt carries a marker (PROBE-PROMPT-N) that selects its own model script."""
    env.update({"TERM": "xterm-256color", "NO_COLOR": None})
    env.update(agent.prepare_interactive(run.home, cwd, env))
    argv = agent.interactive_argv(prefix, recipe.permissive)
    steps, scripts = [{"do": "start", "argv": argv}], {}
    for action in recipe.actions():
        if action.prompt is not None:
            marker = f"PROBE-PROMPT-{len(scripts) + 1}"
            scripts[marker] = script(action.turns or recipe.turns)
            steps.append({"do": "prompt", "text": f"{action.prompt} ({marker})"})
        elif action.answer:
            steps.append({"do": "answer", "text": action.answer, "keys": agent.tty["keys"][action.answer]})
        elif action.command:
            steps.append({"do": "command", "text": action.command})
        elif action.exit:
            steps.append({"do": "exit", "text": agent.tty["exit"]})
        else:
            steps.append({"do": "start", "argv": argv + (agent.tty["resume"] if action.start == "resume" else [])})
    rows, cols = TTY_SIZE
    return {
        "interactive": {
            "steps": steps,
            "markers": agent.tty["markers"],
            "rows": rows,
            "cols": cols,
            "ready_timeout_s": TTY_READY_TIMEOUT_S,
        },
        "prompt_scripts": scripts,
    }


# ---------------------------------------------------------------- collect


def sample(items: list, keep: tuple[int, int] = SAMPLE) -> list:
    """All of `items`, or only the first and last few."""
    head, tail_ = keep
    return items if len(items) <= head + tail_ else items[:head] + items[-tail_:]


# What the session wrote is read bounded: a hostile or broken CLI must not exhaust the harness.
SESSION_FILE_MAX = 256 * 1024 * 1024  # the model log of a runaway session; a hook record
RECORD_MAX = 64 * 1024 * 1024  # one hook record (its stdin and output; stdout_pad is at most 16 MiB)


def session_file(path: Path, limit: int) -> bytes:
    """A file the session left, or one line naming it."""
    try:
        return limits.read_bounded(path, limit, follow=False)
    except limits.BadFile as e:
        raise HarnessError(f"the run left {path.name} unreadable ({e}): the session misbehaved; no evidence written") from None


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in limits.decode(session_file(path, SESSION_FILE_MAX)).splitlines() if line.strip()]


def relative(path: str, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root)) or "."
    except ValueError:
        return path


def collect_invocations(run: RunDirs, sidecar: dict, result: dict) -> list[dict]:
    """Hook records joined with what the runner saw of each process's death."""
    deaths = {int(p): t for p, t in result["hook_deaths"].items()}
    left = set(result["alive_at_cli_exit"])
    t0 = result["started_at"]
    out = []
    for path in sorted(run.records.glob("*.json"), key=lambda p: int(p.name.split("-")[0])):
        try:
            rec = limits.parse_json(session_file(path, RECORD_MAX))
        except limits.BadFile as e:
            raise HarnessError(f"hook record {path.name}: {e}") from None
        pid = rec["pid"]
        died = deaths.get(pid)
        caught = rec.get("killed_by_signal")
        if rec.get("crashed_with"):
            signal_name, killed_by = rec["crashed_with"], "self"
        elif rec.get("ended_at") and not caught:
            signal_name, killed_by = None, None
        else:  # a caught signal, or no end at all: an uncatchable SIGKILL
            signal_name = caught or "SIGKILL"
            killed_by = "harness" if pid in left else "cli"
        gc = None
        if rec.get("grandchild_pid"):
            g = rec["grandchild_pid"]
            gd = deaths.get(g)
            gc = {
                "pid": g,
                "alive_at_cli_exit": g in left,
                "died_offset_s": round(gd - t0, 3) if gd and g not in left else None,
                "killed_by": "harness" if g in left else ("cli" if gd else None),
            }
        ended = rec.get("ended_at") if killed_by is None else None
        gone = ended or died
        out.append(
            {
                "event": rec["event"],
                "canonical_event": sidecar.get(rec["key"], {}).get("canonical", rec["event"]),
                "key": rec["key"],
                "payload": rec.get("payload"),
                "stdin_raw": rec.get("stdin_raw"),
                "stdin_eof": rec.get("stdin_eof"),
                "argv": rec["argv"],
                "cwd": rec["cwd"],
                "cwd_relative": relative(rec["cwd"], run.workspace),
                "config_index": int(rec["key"].split("-")[0]) if rec["key"][:1].isdigit() else None,
                "env": rec["env"],
                "pid": pid,
                "started_at": iso(rec["started_at"]),
                "start_offset_s": round(rec["started_at"] - t0, 3),
                "ended_at": iso(ended),
                "gone_offset_s": round(gone - t0, 3) if gone else None,
                "duration_s": round(gone - rec["started_at"], 3) if gone else None,
                "exit_code": rec.get("exit_code") if killed_by is None else None,
                "killed_by_signal": signal_name,
                "killed_by": killed_by,
                "signals_received": [s["signal"] for s in rec.get("signals", [])],
                "first_signal_offset_s": (round(rec["signals"][0]["at"] - t0, 3) if rec.get("signals") else None),
                "output": rec.get("output"),
                "stderr": rec.get("stderr"),
                "grandchild": gc,
                "surface": rec.get("surface", "command"),
                "extension_result": rec.get("extension_result"),
                "error": rec.get("error"),
            }
        )
    return out


def collect_side_effects(recipe, cwd: Path, t0: float) -> list[dict]:
    """The files the scripted steps left (and the recipe's watched files), timed by their
    mtime: the tool ran then. A view step leaves nothing; a file it reads is not proof."""
    wanted = [
        (i, step.tool, marker_path(step, i))
        for i, step in enumerate(recipe.turns)
        if step.tool in ("shell", "create_file", "edit_file")
    ]
    wanted += [(None, "watched", rel) for rel in recipe.watch_files]
    out = []
    for step, kind, rel in wanted:
        p = cwd / rel
        if p.exists() and (kind != "edit_file" or "edited" in p.read_text(errors="replace")):
            out.append({"step": step, "kind": kind, "path": rel, "offset_s": round(p.stat().st_mtime_ns / 1e9 - t0, 3)})
    return out


def collect_requests(path: Path, t0: float, phrases: list[str]) -> list[dict]:
    """Model requests as evidence. Sentinel words (PROBE-...) are looked for in the full
    texts: by role, whether a hook's whole phrase is there verbatim, and a snippet around the
    first one. Then the texts are bounded."""
    out = []
    for r in read_jsonl(path):
        found: dict[str, dict] = {}
        for m in r["messages"]:
            for match in SENTINEL_RE.finditer(m["text"]):
                word = match.group()
                f = found.setdefault(word, {"roles": set(), "verbatim": False, "snippet": None})
                f["roles"].add(m["role"])
                f["verbatim"] = f["verbatim"] or any(word in p and p in m["text"] for p in phrases)
                if f["snippet"] is None:
                    f["snippet"] = m["text"][max(0, match.start() - 80) : match.start() + 400]
        out.append(
            {
                "seq": r["seq"],
                "offset_s": round(r["t"] - t0, 3),
                "method": r["method"],
                "path": r["path"],
                "model": r.get("model"),
                "user_agent": r.get("user_agent", ""),
                "tools": r["tools"],
                "reply": r.get("reply"),
                "sentinels": {w: {**f, "roles": sorted(f["roles"])} for w, f in sorted(found.items())},
                "message_count": len(r["messages"]),
                "messages": [
                    {"role": m["role"], "chars": len(m["text"]), "text": m["text"][:TEXT_LIMIT]}
                    for m in sample(r["messages"], MESSAGES_KEPT)
                ],
            }
        )
    return out


def cli_record(plan_: dict, result: dict) -> dict:
    return {
        "argv": [Path(plan_["argv"][0]).name, *plan_["argv"][1:]],
        "exit_code": result["exit_code"],
        "exit_signal": result["exit_signal"],
        "wall_s": result["wall_s"],
        "timed_out": result["timed_out"],
        "budget_s": plan_["budget_s"],
        "env_names": sorted({*plan_["env"], "PROBE_RUN_ID"}),
        "stdout_tail": tail(Path(plan_["stdout"])),
        "stderr_tail": tail(Path(plan_["stderr"])),
    }


def tail(path: Path) -> str:
    if not path.exists():
        return ""
    with open(path, "rb") as f:  # only the tail: the CLI's output may be any size
        f.seek(max(0, path.stat().st_size - 4 * TEXT_LIMIT))
        return f.read().decode(errors="replace")[-TEXT_LIMIT:]


# ---------------------------------------------------------------- evidence


def build_evidence(
    agent,
    requested: str,
    version: str,
    recipe,
    backend: str,
    network: str,
    plan_: dict,
    result: dict,
    session: dict,
    outcome: str,
    observations: dict,
    secrets: set[str],
    home: Path,
    route: str | None = None,
) -> Evidence:
    invocations, requests = session["invocations"], session["model_requests"]
    executed, source = agent.executed_version(invocations, requests, home)
    ev = Evidence(
        agent=agent.name,
        requested_version=requested,
        executed_version=executed,
        executed_version_source=source,
        version_mismatch=executed != version,
        recipe=recipe.name,
        question=recipe.question,
        control=recipe.control_for(agent.name),
        control_of=recipe.control_of,
        backend=backend,
        network=network,
        isolation={
            "network": network,
            "filesystem": result.get("jail", {}).get("filesystem", "host"),
            "user": result.get("jail", {}).get("user", "caller"),
        },
        harness_version=__version__,
        started_at=iso(result["started_at"]),
        platform=f"{platform.system()}-{platform.machine()}",
        subject=session["subject"],
        surface=recipe.surface,
        route=route,
        mode=recipe.mode,
        transcript=session["transcript"],
        outcome=outcome,
        observations=observations,
        claims=judge(recipe.claims, agent.name, executed, outcome, observations),
        hooks=session["hooks"],
        run_id=plan_["run_id"],
        invocations=[Invocation(**{k: v for k, v in inv.items() if k != "key"}) for inv in sample(invocations)],
        invocation_count=len(invocations),
        invocations_by_event=session["invocations_by_event"],
        model_requests=[ModelRequest(**r) for r in sample(requests, REQUESTS_KEPT)],
        model_request_count=len(requests),
        side_effects=session["side_effects"],
        cli=CliRun(**session["cli"]),
        cli_cwd=session["cli_cwd"],
        image=result.get("image_id"),
        cleanup={"alive_at_cli_exit": len(result["alive_at_cli_exit"]), "killed_by_harness": len(result["harness_killed"])},
    )
    # The session was scrubbed already; one more pass over everything that will be written
    # (the CLI's argv, output tails) so no credential can leave this function.
    return Evidence(**redact(json.loads(ev.model_dump_json()), secrets))


def scrub(session: dict, secrets: set[str], stable_paths: dict[str, str]) -> dict:
    """Redact credentials, and write per-run paths as stable names ($RUN, $INSTALL) so two
    runs' evidence differ only where the CLI did."""
    text = json.dumps(session)
    for path, name in stable_paths.items():
        text = text.replace(json.dumps(path)[1:-1], name)
    data = json.loads(text)
    for inv in data["invocations"]:
        inv["env"] = redact_env(inv["env"], secrets)
    return redact(data, secrets)


def collect(recipe, run: RunDirs, regs, sidecar: dict, plan_: dict, result: dict, prefix: Path) -> tuple[dict, set[str]]:
    """What the session left behind, shaped as the evidence record's parts and scrubbed, and
    the secret values seen (scrubbed from anything else written)."""
    t0 = result["started_at"]
    hooks = [
        {
            "canonical": sidecar[r.key]["canonical"],
            "native": r.native,
            "timeout_s": r.timeout_s,
            "matcher": r.matcher,
            "raw": r.raw,
            "behavior": sidecar[r.key]["behavior"],
        }
        for r in regs
    ]
    session = {
        "subject": recipe.subject_event(),
        "cli_cwd": recipe.cwd or ".",
        "hooks": hooks,
        "cli": cli_record(plan_, result),
        "invocations": collect_invocations(run, sidecar, result),
        "model_requests": collect_requests(Path(plan_["model_log"]), t0, [t for h in hooks for t in hook_texts(h)]),
        "side_effects": collect_side_effects(recipe, Path(plan_["cwd"]), t0),
        "transcript": (result.get("tty") or {}).get("steps"),
    }
    session["invocations_by_event"] = dict(Counter(i["event"] for i in session["invocations"]))
    session["model_request_count"] = len(session["model_requests"])
    secrets = known_secrets(os.environ, plan_["env"], *(i["env"] for i in session["invocations"]))
    # Classify what will be written: committed evidence then classifies again the same.
    return scrub(session, secrets, {str(run.root): "$RUN", str(prefix): "$INSTALL"}), secrets


def probe_repeated(
    spec_text: str, recipe_name: str, results: Path, backend_name: str = "local", repeat: int = 1
) -> tuple[list[Evidence], Path]:
    """`repeat` probes of one cell; the last is written, with the spread of labels seen."""
    records = [probe(spec_text, recipe_name, results, backend_name, write=False)[0] for _ in range(repeat)]
    if repeat > 1:
        records[-1] = records[-1].model_copy(
            update={"repeats": {"runs": repeat, "outcomes": dict(sorted(Counter(r.outcome for r in records).items()))}}
        )
    path = evidence_path(results, records[-1])
    write_atomic(path, records[-1].to_json())
    return records, path


def probe(
    spec_text: str, recipe_name: str, results: Path, backend_name: str = "local", write: bool = True
) -> tuple[Evidence, Path]:
    agent, requested, version = resolve(spec_text)
    recipe = load_recipe(recipe_name, agent)
    backend = BACKENDS[backend_name]
    check_writable(results)
    if recipe.mode == "interactive" and backend.name != "local":
        raise InputError(f"recipe {recipe.name!r} is interactive: it runs with --backend local")
    prefix = backend.prepare(agent, version)
    with rundirs.run_directory() as tmp:
        run = RunDirs(tmp)
        for name in RUNNER_FILES:
            shutil.copy(Path(__file__).parent / "runner" / name, run.bin / name)
        workspace(run)
        regs, sidecar, loading = register_hooks(agent, recipe, run, backend.python())
        plan_ = plan(agent, prefix, recipe, run, backend.node_dir(), loading.get("env"))
        result, network = backend.run(run.root, plan_)
        session, secrets = collect(recipe, run, regs, sidecar, plan_, result, prefix)
        outcome, observations = label(recipe.classifier, session)
        ev = build_evidence(
            agent,
            requested,
            version,
            recipe,
            backend.name,
            network,
            plan_,
            result,
            session,
            outcome,
            observations,
            secrets,
            run.home,
            loading.get("route"),
        )
    path = evidence_path(results, ev)
    if write:
        write_atomic(path, ev.to_json())
    return ev, path
