"""What `probe recorder AGENT DIR` and `probe import DIR` do (docs/recorder.md; the commands are
commands/recorder.py and commands/import_.py): a hook config and a stdlib script a person drops
into their own workspace, logging every hook event the agent sends on their desktop; and the
log turned into evidence with provenance `recorded-by-person`, under
results/<agent>/_recorded/<version>/, apart from driven runs (which `*/*/*.json` finds)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from probes.agents import get
from probes.agents.base import NATIVE, RUNNER_DIR, Agent, ConfigTarget, Registration
from probes.agents.events import CANONICAL_EVENTS
from probes.errors import InputError
from probes.evidence import provenance
from probes.evidence.model import CliRun, Evidence, Invocation, write_atomic
from probes.evidence.readable import evidence_problem
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, decode, parse_json, read_bounded
from probes.pipeline.redact import known_secrets, redact, redact_env

PROVENANCE = "recorded-by-person"
FOLDER = ".probe-recorder"  # in the workspace: record.py, and the log it appends to
LOG = "log.jsonl"
SCRIPT = "record.py"
TIMEOUT_S = 10  # record.py waits at most 5 s for stdin
LOG_MAX_BYTES = 64 * 1024 * 1024  # a long day of hooks with big tool responses
LOG_MAX_LINES = 100_000
# One line, and the record a (agent, version) group becomes, at most what every reader of
# evidence accepts (limits.EVIDENCE_MAX_BYTES): a bigger one would be written and then refused.
LINE_MAX_BYTES = EVIDENCE_MAX_BYTES
# A time as record.py writes it (2026-01-05T10:20:30.123Z), any fraction, Z or an offset: the
# record's file name is made from it, so nothing else (a NUL, `/`, a newline) may pass.
STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})", re.ASCII)
VERSION_DIR = re.compile(r"[0-9][0-9A-Za-z.+-]{0,60}", re.ASCII)  # a version as a directory name
RECORDED = "_recorded"  # results/<agent>/_recorded/<version>/<name>.json: `_` keeps matrix and tables off it


def native_events(agent: Agent) -> dict[str, str]:
    """native event -> canonical, for every canonical event the agent has a name for."""
    out: dict[str, str] = {}
    for c in CANONICAL_EVENTS:
        native = agent.native_event(c)
        if native is not None:
            out.setdefault(native, c)
    return out


def command(agent: Agent, event: str, python: str) -> str:
    """The hook's command line: run from the workspace root, the path relative to it."""
    return f"{python} {FOLDER}/{SCRIPT} {agent.name} {event}"


def readme(agent: Agent, files: list[str], python: str) -> str:
    config = "\n".join(f"    {f}" for f in files)
    return f"""probe recorder for {agent.name}: logs every hook event {agent.name} sends, and answers nothing.

1. Copy everything in this folder (hidden folders too) into the root of a workspace you
   open in {agent.name}:
{config}
    {FOLDER}/{SCRIPT}
   If the workspace already has one of these files, merge the "hooks" entries by hand.
   The hooks run `{python}`: it must be on PATH (on Windows, run `probe recorder` with
   --python py, or edit the command in the config).
2. Use {agent.name} as you usually do: chat in agent mode, let it run tools. Every hook
   event appends one line to {FOLDER}/{LOG} in that workspace.
3. Bring back the {FOLDER} folder (or the whole workspace) and run
       probe import FOLDER_OR_WORKSPACE
   Then delete the hook config from the workspace.

The log holds the hook payloads as the agent sent them (prompts, tool input and output,
paths) and the environment's variable NAMES, never their values. Read it before you share
it; `probe import` redacts credential-shaped strings in what it writes.
"""


def write_recorder(agent: Agent, target: Path, python: str = "python3") -> list[Path]:
    """The recorder in `target` (absent or empty): the agent's own hook config registering
    record.py for every native event, the script, README.txt. Returns the files written."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(f"{target}: exists and is not an empty directory; name a new one")
    if not python.strip() or any(c in python for c in "\n\r\0"):
        raise InputError(f"--python {python!r}: name the interpreter's command, e.g. python3 or py")
    events = sorted(native_events(agent))
    registrations = [Registration(f"record-{e}", e, command(agent, e, python), TIMEOUT_S, None) for e in events]
    try:
        target.mkdir(parents=True, exist_ok=True)
        written = agent.config_locations[NATIVE](ConfigTarget(workspace=target, home=target), registrations).files
        renamed = []
        for path in written:  # a name of its own in a person's workspace
            if path.name in agent.recorder_names:
                path = path.rename(path.with_name(agent.recorder_names[path.name]))
            renamed.append(path)
        (target / FOLDER).mkdir(exist_ok=True)
        shutil.copy(RUNNER_DIR / SCRIPT, target / FOLDER / SCRIPT)
        files = [p.relative_to(target).as_posix() for p in renamed]
        (target / "README.txt").write_text(readme(agent, files, python), encoding="utf-8")
    except OSError as e:
        raise InputError(f"{target}: cannot write the recorder ({e.strerror})") from None
    return [*renamed, target / FOLDER / SCRIPT, target / "README.txt"]


# ---------------------------------------------------------------- probe import


class LogLine(BaseModel):
    """One line of record.py's log, as `probe import` accepts it."""

    model_config = ConfigDict(extra="ignore")

    recorder: int
    agent: str
    event: str
    argv: list[str]
    cwd: str
    cwd_relative: str
    workspace: str
    home: str
    pid: int
    started_at: str
    ended_at: str
    duration_s: float
    platform: dict[str, str]
    env_names: list[str]
    env_versions: dict[str, str]
    product: dict[str, str]
    payload: Any = None
    stdin_raw: str | None = None
    stdin_eof: bool
    stdin_truncated: bool = False


def find_log(directory: Path) -> Path:
    for path in (directory / FOLDER / LOG, directory / LOG):
        if path.exists() or path.is_symlink():
            return path
    raise InputError(f"{directory}: no {FOLDER}/{LOG} (nor {LOG}); name the folder `probe recorder` wrote or the workspace")


def read_log(path: Path) -> tuple[list[LogLine], str]:
    """Every line of the log, checked, and the log's sha256; or one line naming the file and line."""
    try:
        data = read_bounded(path, LOG_MAX_BYTES, follow=False)
        text = decode(data)
    except BadFile as e:
        raise InputError(f"{path}: not a recorder log ({e})") from None
    lines: list[LogLine] = []
    for n, raw in enumerate(text.split("\n"), 1):  # not splitlines: U+2028 may stand in a JSON string
        if not raw.strip():
            continue
        if len(lines) >= LOG_MAX_LINES:
            raise InputError(f"{path}:{n}: more than {LOG_MAX_LINES} lines; split the log")
        size = len(raw) if len(raw) > LINE_MAX_BYTES else len(raw.encode("utf-8", "surrogatepass"))
        if size > LINE_MAX_BYTES:
            raise InputError(f"{path}:{n}: a line of {size} bytes, over the limit of {LINE_MAX_BYTES} (what a record may hold)")
        try:
            line = LogLine.model_validate(parse_json(raw.encode()))
            for stamp in (line.started_at, line.ended_at):
                seconds(stamp)
            lines.append(line)
        except BadFile as e:
            raise InputError(f"{path}:{n}: not a recorder log line ({e})") from None
        except ValidationError as e:
            err = e.errors()[0]
            raise InputError(
                f"{path}:{n}: not a recorder log line ({'.'.join(map(str, err['loc'])) or 'line'}: {err['msg']})"
            ) from None
    if not lines:
        raise InputError(f"{path}: empty; use the agent with the recorder's hooks in the workspace first")
    return lines, hashlib.sha256(data).hexdigest()


def moment(stamp: str) -> datetime:
    """An ISO 8601 time with its zone, as record.py writes it, or BadFile."""
    if STAMP.fullmatch(stamp):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC)
        except (ValueError, OverflowError):
            pass
    raise BadFile(f"{stamp[:40]!r} is not an ISO 8601 time with a zone, such as 2026-01-05T10:20:30.123Z")


def seconds(stamp: str) -> float:
    """An ISO 8601 time as epoch seconds, or BadFile."""
    return moment(stamp).timestamp()


def record_name(stamp: str) -> str:
    """The record's name, from its first time (checked by read_log): recorded-YYYYMMDDTHHMMSSZ, UTC."""
    return "recorded-" + moment(stamp).strftime("%Y%m%dT%H%M%SZ")


def version_of(line: LogLine) -> tuple[str, str]:
    """(version, where the log said it): VS Code's package.json, else a VSCODE_*VERSION* variable."""
    if "vs_code" in line.product:
        app, chat = line.product["vs_code"], line.product.get("copilot_chat", "unknown")
        return app, f"recorded: the install's package.json (VS Code {app}, Copilot Chat {chat})"
    for name in sorted(n for n in line.env_versions if n.startswith("VSCODE_")):  # not another program's version
        return line.env_versions[name], f"recorded: environment variable {name}"
    return "unknown", "recorded: the log names no version"


def names(value: Any, paths: list[tuple[str, str]]) -> Any:
    """Per-person paths as stable names ($WORKSPACE, ~)."""
    if isinstance(value, str):
        for path, name in paths:
            value = value.replace(path, name)
        return value
    if isinstance(value, list):
        return [names(x, paths) for x in value]
    if isinstance(value, dict):
        return {names(k, paths): names(x, paths) for k, x in value.items()}
    return value


def scrub(value: Any, paths: list[tuple[str, str]], secrets: set[str]) -> Any:
    """Per-person paths as stable names, then redacted as a driven run's session is
    (redact.py): token shapes, the caller's secret values, values under secret names."""
    return redact(names(value, paths), secrets)


def scrub_env(env: dict[str, str], paths: list[tuple[str, str]], secrets: set[str]) -> dict[str, str]:
    """An environment as a driven run's invocations' are (collect.scrub): a secret-named
    variable in any case is `<redacted>`."""
    return redact_env(names(env, paths), secrets)


def evidence_of(agent: Agent, lines: list[LogLine], version: str, source: str, digest: str) -> dict[str, Any]:
    """The group's record, redacted as a driven run's (run.py, collect.py): the secrets are
    those of the caller's environment (secret-named variables' values, encoded too)."""
    secrets = known_secrets(os.environ)

    canonical = native_events(agent)
    first = lines[0]
    paths = sorted(
        {(line.workspace, "$WORKSPACE") for line in lines} | {(line.home, "~") for line in lines}, key=lambda p: -len(p[0])
    )
    paths = [(p, n) for p, n in paths if len(p) > 1]

    at = seconds  # every time was checked by read_log
    t0 = at(first.started_at)
    invocations = [
        Invocation(
            event=line.event,
            canonical_event=canonical.get(line.event, line.event),
            payload=scrub(line.payload, paths, secrets),
            stdin_raw=scrub(line.stdin_raw, paths, secrets),
            stdin_eof=line.stdin_eof,
            argv=scrub(line.argv, paths, secrets),
            cwd=scrub(line.cwd, paths, secrets),
            cwd_relative=scrub(line.cwd_relative, paths, secrets),
            config_index=None,
            env=scrub_env(line.env_versions, paths, secrets),  # record.py keeps only version-shaped *VERSION* values
            env_names=sorted(line.env_names),
            pid=line.pid,
            started_at=line.started_at,
            start_offset_s=round(at(line.started_at) - t0, 3),
            ended_at=line.ended_at,
            gone_offset_s=None,
            duration_s=line.duration_s,
            exit_code=None,  # the recorder exits 0, but nothing saw it exit
            killed_by_signal=None,
            killed_by=None,
            signals_received=[],
            first_signal_offset_s=None,
            output=None,
            stderr=None,
        )
        for line in lines
    ]
    by_event: dict[str, int] = {}
    fields: dict[str, list[str]] = {}
    for inv in invocations:
        by_event[inv.event] = by_event.get(inv.event, 0) + 1
        if isinstance(inv.payload, dict):
            fields[inv.event] = sorted(set(fields.get(inv.event, [])) | set(inv.payload))
    env_names = sorted({n for line in lines for n in line.env_names})
    name = record_name(first.started_at)
    plat = first.platform
    ev = Evidence(
        agent=agent.name,
        requested_version="recorded",
        executed_version=version,
        executed_version_source=source,
        version_mismatch=False,
        recipe=name,
        question=f"which hook events {agent.name} sent, with what, on a person's own machine",
        control=None,
        control_of=None,
        backend="person",
        network="unknown",
        harness_version=provenance.version(),
        harness_commit=provenance.commit(),
        started_at=first.started_at,
        run_id=f"log-sha256-{digest[:16]}",
        platform=f"{plat.get('system', 'unknown')}-{plat.get('machine', 'unknown')}",
        subject=None,
        outcome="recorded",
        observations={
            "event_order": [inv.event for inv in invocations[:50]],
            "events": by_event,
            "fields_by_event": fields,
            "env_names": env_names,
            "env_versions": scrub_env({k: v for line in lines for k, v in line.env_versions.items()}, paths, secrets),
            "product": {k: v for line in lines for k, v in line.product.items()},
            "platform": plat,
            "log": {"lines": len(lines), "sha256": digest, "recorder": sorted({line.recorder for line in lines})},
            "stdin_truncated": sum(line.stdin_truncated for line in lines),
        },
        claims=[],
        hooks=[
            {"canonical": canonical.get(e, e), "native": e, "timeout_s": TIMEOUT_S, "matcher": None, "behavior": {"record": True}}
            for e in sorted(canonical)
        ],
        invocations=invocations,
        invocation_count=len(invocations),
        invocations_by_event=by_event,
        model_requests=[],
        model_request_count=0,
        side_effects=[],
        cli=CliRun(
            argv=[],
            exit_code=None,
            exit_signal=None,
            wall_s=round(at(lines[-1].ended_at) - t0, 3),
            timed_out=False,
            budget_s=0.0,
            stdout_tail="",
            stderr_tail="",
        ),
        cli_cwd=".",
        cleanup={},
        mode="recorded",
        provenance=PROVENANCE,
    )
    record: dict[str, Any] = redact(ev.model_dump(mode="json"), secrets)  # the whole record, as run.py does
    return record


def import_log(directory: Path, results: Path) -> list[Path]:
    """The log under `directory` as evidence records, one per (agent, version) it holds;
    checked whole before anything is written."""
    path = find_log(directory)
    lines, digest = read_log(path)
    groups: dict[tuple[str, str, str], list[LogLine]] = {}
    for n, line in enumerate(lines, 1):
        try:
            get(line.agent)
        except InputError:
            raise InputError(f"{path}: line {n} names agent {line.agent[:40]!r}, which probe does not know") from None
        groups.setdefault((line.agent, *version_of(line)), []).append(line)
    out: list[tuple[Path, str]] = []
    for (agent, version, source), group in groups.items():
        record = evidence_of(get(agent), group, version, source, digest)
        safe = version if VERSION_DIR.fullmatch(version) else "unknown"
        target = results / agent / RECORDED / safe / f"{record['recipe']}.json"
        name, n = record["recipe"], 1
        while target in (t for t, _ in out):  # two groups starting in one second: each its own file
            n += 1
            record["recipe"] = f"{name}-{n}"
            target = target.with_name(f"{record['recipe']}.json")
        text = json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (a cut emoji in a tool's output): escaped
                text = json.dumps(record, indent=2, sort_keys=True) + "\n"
        problem = evidence_problem(target, text)
        if problem:
            split = "; split the log" if "that readers accept" in problem else ""
            raise InputError(f"{path}: the record of {agent} {safe} ({len(group)} lines) would be unreadable: {problem}{split}")
        out.append((target, text))
    for target, text in out:
        write_atomic(target, text, "recorded evidence", "check --results")
    return [t for t, _ in out]
