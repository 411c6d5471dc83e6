"""Collecting one probe: what the session left (the runner's result, the hook records, the
model log, the files the tools wrote, the CLI's output) read bounded and turned straight into
the evidence models, then scrubbed: credentials redacted, per-run paths written as stable
names."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

from probes import limits
from probes.agents import AGENTS
from probes.agents.base import Registration
from probes.catalog.recipes import ResolvedRecipe
from probes.classify import SENTINEL_RE, hook_texts
from probes.errors import HarnessError
from probes.evidence.model import CliRun, Collected, Invocation, ModelRequest, iso
from probes.evidence.provenance import checked
from probes.pipeline import shells
from probes.pipeline.answered import evaluations
from probes.pipeline.normalise import known_values, normalise
from probes.pipeline.plan import Hooks, marker_path
from probes.pipeline.redact import known_secrets, redact, redact_env, secret_name
from probes.pipeline.rundirs import RunDirs
from probes.pipeline.submitted import submissions
from probes.runner import untrusted
from probes.runner.contract import HookRecord, ModelLogEntry, Parent, Plan, Result

TEXT_LIMIT = 2000  # characters kept of each model message and each output tail
MESSAGES_KEPT = (2, 6)  # a request's first 2 and last 6 messages are kept
REQUESTS_KEPT = (10, 5)  # and of a runaway session's model requests, the first 10 and last 5
SAMPLE = (20, 10)  # a runaway session keeps its first 20 and last 10 invocations; counts stay exact
# What the session wrote is read bounded: a hostile or broken CLI must not exhaust the harness.
SESSION_FILE_MAX = 256 * 1024 * 1024  # the model log of a runaway session; a hook record
RECORD_MAX = 64 * 1024 * 1024  # one hook record (its stdin and output; stdout_pad is at most 16 MiB)

T = TypeVar("T")


def sample(items: list[T], keep: tuple[int, int] = SAMPLE) -> list[T]:
    """All of `items`, or only the first and last few."""
    head, tail_ = keep
    return items if len(items) <= head + tail_ else items[:head] + items[-tail_:]


def read_jsonl(path: Path) -> list[Any]:
    """The runner's model log (in the run directory, which only the harness writes): read
    as any file of the run is, never through a link, bounded."""
    if not untrusted.exists(path.parent, path.name):
        return []
    try:
        data = untrusted.read(path.parent, path.name, SESSION_FILE_MAX)
        return [json.loads(line) for line in limits.decode(data).splitlines() if line.strip()]
    except (untrusted.Refused, limits.BadFile, ValueError) as e:
        raise HarnessError(f"the run left {path.name} unreadable ({e}): no evidence written") from None


def relative(path: str, root: Path) -> str:
    try:
        return str(Path(path).relative_to(root)) or "."
    except ValueError:
        return path


def invocation(rec: HookRecord, canonical: str, run: RunDirs, result: Result) -> Invocation:
    """One hook record joined with what the runner saw of its process's death."""
    deaths = {int(p): t for p, t in result["hook_deaths"].items()}
    left = set(result["alive_at_cli_exit"])
    t0 = result["started_at"]
    pid = rec["pid"]
    died = deaths.get(pid)
    caught = rec.get("killed_by_signal")
    signal_name: str | None
    if rec.get("crashed_with"):
        signal_name, killed_by = rec.get("crashed_with"), "self"
    elif rec.get("ended_at") and not caught:
        signal_name, killed_by = None, None
    else:  # a caught signal, or no end at all: an uncatchable SIGKILL
        signal_name = caught or "SIGKILL"
        killed_by = "harness" if pid in left else "cli"
    gc = None
    g = rec.get("grandchild_pid")
    if g:
        gd = deaths.get(g)
        gc = {
            "pid": g,
            "alive_at_cli_exit": g in left,
            "died_offset_s": round(gd - t0, 3) if gd and g not in left else None,
            "killed_by": "harness" if g in left else ("cli" if gd else None),
        }
    ended = rec.get("ended_at") if killed_by is None else None
    gone = ended or died
    signals = rec.get("signals") or []
    return Invocation(
        event=rec["event"],
        canonical_event=canonical,
        payload=rec.get("payload"),
        stdin_raw=rec.get("stdin_raw"),
        stdin_eof=rec.get("stdin_eof"),
        argv=rec["argv"],
        cwd=rec["cwd"],
        cwd_relative=relative(rec["cwd"], run.workspace),
        config_index=int(rec["key"].split("-")[0]) if rec["key"][:1].isdigit() else None,
        env=rec["env"],
        pid=pid,
        started_at=iso(rec["started_at"]) or "",
        start_offset_s=round(rec["started_at"] - t0, 3),
        ended_at=iso(ended),
        gone_offset_s=round(gone - t0, 3) if gone else None,
        duration_s=round(gone - rec["started_at"], 3) if gone else None,
        exit_code=rec.get("exit_code") if killed_by is None else None,
        killed_by_signal=signal_name,
        killed_by=killed_by,
        signals_received=[s["signal"] for s in signals],
        first_signal_offset_s=round(signals[0]["at"] - t0, 3) if signals else None,
        output=rec.get("output"),
        stderr=rec.get("stderr"),
        grandchild=gc,
        surface=rec.get("surface") or "command",
        extension_result=rec.get("extension_result"),
        error=rec.get("error"),
        parent=parent_of(rec.get("parent")),
        handler_type=rec.get("handler_type") or "command",  # mcp_server.py's: mcp_tool, mcp_server
    )


def parent_of(parent: Parent | None) -> dict[str, str] | None:
    """What started a hook, named: the shell it is by inode (a shell bound over another's
    path shows that path), else the executable's name."""
    if not isinstance(parent, dict):
        return None
    exe, dev, ino = parent.get("exe"), parent.get("dev"), parent.get("ino")
    if not isinstance(exe, str) or not isinstance(dev, int) or not isinstance(ino, int):
        return None
    return {"exe": exe[:200], "is": shells.named(dev, ino) or os.path.basename(exe)[:60]}


RECORD_NAME = re.compile(r"\d{1,24}-\d{1,10}\.json")  # hook.py's and the shim's: <start ns>-<pid>.json


def handler_of(r: Registration) -> dict[str, Any]:
    """A registered hook's handler as the evidence says it: its type, a prompt hook's prompt
    (http and mcp_tool: null, as recorded since they came), and the fields written."""
    if r.handler_type == "command":
        return {"type": "command", **r.fields}
    return {"type": r.handler_type, "prompt": r.prompt, **r.fields}


def collect_invocations(run: RunDirs, hooks: Hooks, result: Result) -> tuple[list[Invocation], list[str]]:
    """Every hook record, in the order the hooks started; and what could not be read as one
    (the records directory is the session's: a hook may have put a FIFO, a link or junk
    there), each in a few words. A bad record costs that record, never the run's evidence."""
    out, unreadable = [], []
    names = [n for n in untrusted.names(run.root, "records") if RECORD_NAME.fullmatch(n)]
    for name in sorted(names, key=lambda n: int(n.split("-")[0])):
        try:
            rec = cast("HookRecord", limits.parse_json(untrusted.read(run.root, f"records/{name}", RECORD_MAX)))
            entry = hooks.sidecar.get(rec["key"])
            out.append(invocation(rec, entry["canonical"] if entry else rec["event"], run, result))
        except (untrusted.Refused, limits.BadFile) as e:
            unreadable.append(str(e) if str(e).startswith("records/") else f"records/{name}: {e}")
        except (KeyError, TypeError, ValueError, AttributeError) as e:  # JSON, but not hook.py's record
            unreadable.append(f"records/{name}: not a hook record ({type(e).__name__}: {str(e)[:80]})")
    return out, unreadable


def collect_side_effects(recipe: ResolvedRecipe, cwd: Path, t0: float) -> list[dict[str, Any]]:
    """The files the scripted steps left (and the recipe's watched files), timed by their
    mtime: the tool ran then. A view step leaves nothing; a file it reads is not proof."""
    wanted: list[tuple[int | None, str, str | None]] = [
        (i, step.tool, marker_path(step, i))
        for i, step in enumerate(recipe.turns)
        if step.tool in ("shell", "create_file", "edit_file")
    ]
    wanted += [(None, "watched", rel) for rel in recipe.watch_files]
    out = []
    for step, kind, rel in wanted:
        found = untrusted.lstat(cwd, rel) if rel else None
        if rel and found and (kind != "edit_file" or edited(cwd, rel)):
            out.append({"step": step, "kind": kind, "path": rel, "offset_s": round(found.mtime_ns / 1e9 - t0, 3)})
    return out


EDITED_READ = 64 * 1024  # an edit step's file: the scripted edit writes "edited" near its start


def edited(cwd: Path, rel: str) -> bool:
    """Whether the file an edit step edited holds its edit (read bounded, never followed)."""
    try:
        return "edited" in untrusted.text(cwd, rel, EDITED_READ, "head")
    except untrusted.Refused:
        return False


def model_request(r: ModelLogEntry, t0: float, phrases: Sequence[str]) -> ModelRequest:
    """One model request as evidence. Sentinel words (PROBE-...) are looked for in the full
    texts: by role, whether a hook's whole phrase is there verbatim, and a snippet around the
    first one. Then the texts are bounded."""
    found: dict[str, dict[str, Any]] = {}
    for m in r["messages"]:
        for match in SENTINEL_RE.finditer(m["text"]):
            word = match.group()
            f = found.setdefault(word, {"roles": set(), "verbatim": False, "snippet": None})
            f["roles"].add(m["role"])
            f["verbatim"] = f["verbatim"] or any(word in p and p in m["text"] for p in phrases)
            if f["snippet"] is None:
                f["snippet"] = m["text"][max(0, match.start() - 80) : match.start() + 400]
    return ModelRequest(
        seq=r["seq"],
        offset_s=round(r["t"] - t0, 3),
        method=r["method"],
        path=r["path"],
        model=r.get("model"),
        user_agent=r.get("user_agent", ""),
        tools=r["tools"],
        reply=cast("dict[str, Any] | None", r.get("reply")),
        sentinels={w: {**f, "roles": sorted(f["roles"])} for w, f in sorted(found.items())},
        message_count=len(r["messages"]),
        messages=[
            {"role": m["role"], "chars": len(m["text"]), "text": m["text"][:TEXT_LIMIT]}
            for m in sample(r["messages"], MESSAGES_KEPT)
        ],
    )


def tail(path: Path) -> str:
    """The end of the CLI's output (it may be any size, or not a file at all)."""
    try:
        return untrusted.text(path.parent, path.name, 4 * TEXT_LIMIT, "tail")[-TEXT_LIMIT:]
    except untrusted.Refused:
        return ""


def cli_run(plan: Plan, result: Result) -> CliRun:
    first = result.get("first_model_request_at")
    return CliRun(
        argv=[Path(plan["argv"][0]).name, *plan["argv"][1:]],
        exit_code=result["exit_code"],
        exit_signal=result["exit_signal"],
        wall_s=result["wall_s"],
        timed_out=result["timed_out"],
        budget_s=plan["budget_s"],
        first_model_request_s=None if first is None else round(first - result["started_at"], 3),
        env_names=sorted({*plan["env"], "PROBE_RUN_ID"}),
        secrets_given=sorted(k for k, v in plan["env"].items() if secret_name(k) and v),
        stdout_tail=tail(Path(plan["stdout"])),
        stderr_tail=tail(Path(plan["stderr"])),
    )


def scrub(
    session: Collected,
    secrets: set[str],
    stable_paths: Mapping[str, str],
    known: Mapping[str, str],
    workspace_commit: str | None = None,
) -> Collected:
    """Redact credentials, write per-run paths as stable names ($RUN, $INSTALL), then every
    other per-run value that is not a measurement (normalise.py: the run directory's other
    spellings, the run id, the hooks' interpreter, ports, UUIDs, the scripted model's ids),
    so two runs' evidence differ only where the CLI did, and in measured numbers."""
    text = json.dumps(session.model_dump(mode="json"))
    for path, name in stable_paths.items():
        text = text.replace(json.dumps(path)[1:-1], name)
    data = json.loads(text)
    for inv in data["invocations"]:
        inv["env"] = redact_env(inv["env"], secrets)
    return Collected.model_validate(normalise(redact(data, secrets), known, workspace_commit))


def collect(
    recipe: ResolvedRecipe,
    run: RunDirs,
    hooks: Hooks,
    plan: Plan,
    result: Result,
    prefix: Path,
    python: str | None = None,
) -> tuple[Collected, set[str]]:
    """What the session left behind as the evidence record's parts, scrubbed, and the secret
    values seen (scrubbed from anything else written)."""
    t0 = result["started_at"]
    answers = plan.get("hook_answers") or {}
    registered = [
        {
            "canonical": hooks.sidecar[r.key]["canonical"],
            "native": r.native,
            "timeout_s": r.timeout_s,
            "matcher": r.matcher,
            "raw": r.raw,
            "behavior": hooks.sidecar[r.key]["behavior"],
            # a handler other than the plain instrumented command (absent: a record keeps its bytes)
            **({"handler": handler_of(r)} if r.handler_type != "command" or r.fields else {}),
            **({"answer": answers[r.key]} if r.key in answers else {}),
        }
        for r in hooks.registrations
    ]
    log = read_jsonl(Path(plan["model_log"]))
    commands, unreadable = collect_invocations(run, hooks, result)
    # no process: the model's log says. A Stop hook's feedback may quote a prompt hook's text in
    # the main conversation: a submission only where the agent submits prompt hooks.
    submitted = submissions(log, hooks, t0) if AGENTS[recipe.agent].prompt_hooks == "submitted" else []
    answered = [*evaluations(log, hooks, t0), *submitted]
    invocations = sorted([*commands, *answered], key=lambda i: i.start_offset_s)
    phrases = [t for h in registered for t in hook_texts(h)]
    requests = [model_request(r, t0, phrases) for r in log]
    tty = result.get("tty")
    session = Collected(
        subject=recipe.subject,
        cli_cwd=recipe.cwd or ".",
        hooks=registered,
        cli=cli_run(plan, result),
        invocations=invocations,
        invocations_by_event=dict(Counter(i.event for i in invocations)),
        model_requests=requests,
        model_request_count=len(requests),
        side_effects=collect_side_effects(recipe, Path(plan["cwd"]), t0),
        transcript=cast("list[dict[str, Any]]", tty["steps"]) if tty else None,
        error=session_error(result, unreadable),
    )
    secrets = known_secrets(os.environ, plan["env"], *(i.env for i in invocations))
    # Classify what will be written: committed evidence then classifies again the same.
    stable = {str(run.root): "$RUN", str(prefix): "$INSTALL"}
    known = known_values(str(run.root), plan["run_id"], python)
    return scrub(session, secrets, stable, known, workspace_commit(run.workspace)), secrets


def session_error(result: Result, unreadable: Sequence[str]) -> str | None:
    """What the session did to the run that the record must say: records it made
    unreadable, the disk cap it filled."""
    said = []
    if result.get("disk_full"):
        said.append(f"disk full: {result['disk_full']}")
    if unreadable:
        shown = "; ".join(unreadable[:5]) + (f"; and {len(unreadable) - 5} more" if len(unreadable) > 5 else "")
        said.append(f"records unreadable: {shown}")
    return " | ".join(said) or None


def workspace_commit(workspace: Path) -> str | None:
    """The commit the harness made in the workspace (plan.workspace), read back as any file
    of the session's is: its HEAD and the branch it names, never through a link."""
    try:
        head = untrusted.text(workspace, ".git/HEAD", 4096).strip()
        if head.startswith("ref: refs/heads/"):
            head = untrusted.text(workspace, ".git/" + head.removeprefix("ref: "), 4096).strip()
    except untrusted.Refused:
        return None
    return checked(head)
