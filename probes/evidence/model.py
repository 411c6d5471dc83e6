"""The evidence record (docs/evidence.md): models, and the one atomic way it is written."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError, WithJsonSchema

from probes.errors import HarnessError, InputError
from probes.evidence.implied import put_back
from probes.evidence.keep import measured_only
from probes.evidence.store import Blobs, resolve, save
from probes.evidence.store import check_writable as check_writable  # where results are written: store.py
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, parse_json, read_bounded
from probes.pipeline.normalise import hook_python, known_values, normalise

if TYPE_CHECKING:
    from probes.classify import SessionRecord

# 2: values that repeat across records may be stored once per agent version and referred to
# ({"ref": "sha256:..."}, store.py); per-run values are written as stable names (normalise.py);
# harness_commit. `upgrade` brings a version 1 record to 2 (probe reclassify).
# 3: a record states its setup (setup, setup_key; setup_read when the run read it back);
# probe reclassify fills a version 2 record's from its recipe (reclassify.with_setup).
SCHEMA_VERSION = 3

# The on-disk schema of the places a ref may stand (store.SLOTS); in memory a record is always
# resolved, so the Python types are the values' own.
REF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "the value, stored once in its agent's _blobs/<hex>.txt (older: beside the record; store.py)",
    "properties": {"ref": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}},
    "required": ["ref"],
    "additionalProperties": False,
}
STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
Env = Annotated[
    dict[str, str], WithJsonSchema({"anyOf": [{"type": "object", "additionalProperties": {"type": "string"}}, REF_SCHEMA]})
]
Tools = Annotated[list[str], WithJsonSchema({"anyOf": [STRINGS, REF_SCHEMA]})]
EnvNames = Annotated[list[str] | None, WithJsonSchema({"anyOf": [STRINGS, REF_SCHEMA, {"type": "null"}]})]
Messages = Annotated[
    list[dict[str, Any]],
    WithJsonSchema(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "role": {"type": "string"},
                    "chars": {"type": "integer"},
                    "text": {"anyOf": [{"type": "string"}, REF_SCHEMA]},
                },
            },
        }
    ),
]
Transcript = Annotated[
    list[dict[str, Any]] | None,
    WithJsonSchema(
        {
            "anyOf": [
                {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"screen": {"anyOf": [{"type": "string"}, {"type": "null"}, REF_SCHEMA]}},
                    },
                },
                {"type": "null"},
            ]
        }
    ),
]


def iso(t: float | None) -> str | None:
    """A time (seconds since the epoch) as records write it: UTC, milliseconds, `Z`."""
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Invocation(Record):
    event: str  # the native key the hook was registered under
    canonical_event: str
    payload: Any = None
    stdin_raw: str | None = None
    stdin_eof: bool | None = None
    argv: list[str]
    cwd: str
    cwd_relative: str  # to the workspace root: "." is the project root
    config_index: int | None  # which of the recipe's hooks this was
    env: Env
    pid: int
    started_at: str
    start_offset_s: float  # seconds after the CLI started
    ended_at: str | None  # null when it never ended on its own
    gone_offset_s: float | None  # when the process was seen gone, however it ended
    duration_s: float | None
    exit_code: int | None
    killed_by_signal: str | None
    killed_by: str | None  # "self", "cli" or "harness" when killed
    signals_received: list[str]
    first_signal_offset_s: float | None
    output: str | None
    stderr: str | None
    grandchild: dict[str, Any] | None = None  # a process the hook left behind, and its fate
    surface: str = "command"  # or "extension": a handler call in the SDK extension's process
    extension_result: str | None = None  # extension: returned, threw, exited; null: never answered
    error: str | None = None  # extension: the error a handler threw
    # recorded by a person (probes/recorder.py): the names only; env holds no other value. Left out
    # of a driven record, so records made before it existed are stored byte for byte as they were.
    env_names: list[str] | None = Field(default=None, exclude_if=lambda v: v is None)
    # what started it: {"exe": as /proc showed it, "is": the shell it was (by inode), else the
    # exe's name}; absent in records made before it was read
    parent: dict[str, str] | None = Field(default=None, exclude_if=lambda v: v is None)
    # how the CLI ran it: "command" (a process: every field above), or "prompt" (a question to
    # its model: no process; `output` is the verdict the scripted model gave, `ended_at` when
    # it was given); left out for a command, so older records keep their bytes
    handler_type: str = Field(default="command", exclude_if=lambda v: v == "command")
    http: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)  # http: status answered, headers sent


class ModelRequest(Record):
    seq: int
    offset_s: float
    method: str
    path: str
    model: str | None
    user_agent: str
    tools: Tools
    sentinels: dict[str, dict[str, Any]]  # PROBE-... word -> {"roles", "verbatim", "snippet"}, from the full text
    message_count: int
    messages: Messages  # [{"role", "chars", "text"}]: the first and last few, each bounded
    reply: dict[str, Any] | None


class CliRun(Record):
    argv: list[str]
    exit_code: int | None
    exit_signal: str | None
    wall_s: float
    timed_out: bool
    budget_s: float
    stdout_tail: str
    stderr_tail: str
    env_names: EnvNames = None  # the environment the CLI was started with (names only)
    secrets_given: list[str] | None = None  # which of them the harness gave as credentials (fake canaries)
    # the CLI's start to its first model request (its start-up); None: it made none, or older
    first_model_request_s: float | None = Field(default=None, exclude_if=lambda v: v is None)


class HarnessTimes(Record):
    """Where a probe's wall time went, in seconds, so the harness's own cost shows beside the
    CLI's (`cli_s`) and a regression shows in the records."""

    startup_s: float  # the probe process's start (or the previous probe's end) to this probe
    prepare_s: float  # resolve, recipe, workspace, hooks, runner plan
    launch_s: float  # the backend and runner starting, until the CLI is started
    spawn_s: float  # of launch_s: until the runner's code ran (namespaces, interpreter)
    cli_s: float  # the CLI's session (cli.wall_s)
    teardown_s: float  # the CLI's exit until the backend returns: sweep, model server, runner
    record_s: float  # collect, classify, build the record
    total_s: float  # all of it: what the harness adds is total_s - cli_s
    # of prepare_s: installing the CLI version (0.0: it was cached; absent in older records)
    install_s: float | None = Field(default=None, exclude_if=lambda v: v is None)


class Compacted(Record):
    """A compact record (evidence/compaction.py): it repeated its neighbours' label and
    observations, so it is stored without its session's bulk; this says what was left out and
    what the record was."""

    dropped: list[str]  # the keys no longer stored, each left empty (lean.DROPPED; "cli.argv": a key of `cli`)
    full_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")  # `probe cite`'s sha256 of the record as it was: file, then blobs
    full_bytes: int = Field(ge=0)  # the bytes so hashed
    neighbours: list[str]  # the versions whose records it repeated, the older first


class Collected(Record):
    """What a session left, collected and scrubbed (probes/pipeline/collect.py): the parts of the
    evidence record a classifier reads (classify.SessionRecord), with every invocation and model
    request (the record keeps a sample of a runaway session's)."""

    subject: str | None
    cli_cwd: str
    hooks: list[dict[str, Any]]
    cli: CliRun
    invocations: list[Invocation]
    invocations_by_event: dict[str, int]
    model_requests: list[ModelRequest]
    model_request_count: int
    side_effects: list[dict[str, Any]]
    transcript: Transcript
    # what the session did to the run itself (records made unreadable, the disk cap filled)
    error: str | None = Field(default=None, exclude_if=lambda v: v is None)

    def classifiable(self) -> SessionRecord:
        """As a classifier reads it: the same JSON as the committed record's parts."""
        return cast("SessionRecord", self.model_dump(mode="json"))  # these fields are SessionRecord's keys


class Evidence(Record):
    schema_version: int = SCHEMA_VERSION
    agent: str
    requested_version: str
    executed_version: str | None
    executed_version_source: str
    version_mismatch: bool
    recipe: str
    question: str
    control: str | None
    control_of: str | None
    backend: str
    image: str | None = None  # the docker backend's image id
    # the Node.js installed with the CLI and run for it (its engines.node newer than the host's:
    # versions/node.py); absent: the host's, or a native binary (docker: the image's)
    node: str | None = Field(default=None, exclude_if=lambda v: v is None)
    network: str
    isolation: dict[str, str] | None = None  # {"network", "filesystem", "user"}: what the run was jailed by
    harness_version: str
    harness_commit: str | None = None  # the git commit the harness was built from (provenance.py); null: unknown
    started_at: str
    run_id: str
    platform: str
    subject: str | None  # the canonical event under test
    outcome: str
    observations: dict[str, Any]
    claims: list[dict[str, Any]]  # what docs and changelogs say, and whether this run agrees
    hooks: list[dict[str, Any]]  # what was registered: canonical, native, timeout, behaviour
    invocations: list[Invocation]  # all, or a sample (first and last) of a runaway session
    invocation_count: int
    invocations_by_event: dict[str, int]
    model_requests: list[ModelRequest]
    model_request_count: int
    side_effects: list[dict[str, Any]]  # files the scripted tool steps left: {"step", "kind", "path", "offset_s"}
    cli: CliRun
    cli_cwd: str  # where the CLI started, relative to the workspace
    cleanup: dict[str, Any]
    surface: str = "command"  # which hook surface the recipe probes: command or extension
    route: str | None = None  # how the harness made the CLI load the extension
    mode: str = "prompt"  # prompt (-p) or interactive (a terminal session driven step by step)
    transcript: Transcript = None  # interactive: each step, when, how it ended, the screen after
    repeats: dict[str, Any] | None = None  # with --repeat N: {"runs": N, "outcomes": {label: count}}
    harness: HarnessTimes | None = None  # the probe's phases (absent in records made before they were timed)
    # "recorded-by-person": imported from a recorder's log (docs/recorder.md); absent: driven
    provenance: str | None = Field(default=None, exclude_if=lambda v: v is None)
    # what the session did to the run itself: "records unreadable: ...", "disk full: ..."
    error: str | None = Field(default=None, exclude_if=lambda v: v is None)
    # The setup it was measured under (catalog/setup.py: config, session, permissions, rules, sh;
    # a record made before `rules` lacks it: none), and what of it differs from its recipe's
    # default (its file name's @suffix; "" when nothing).
    setup: dict[str, str] | None = Field(default=None, exclude_if=lambda v: v is None)
    setup_key: str | None = Field(default=None, exclude_if=lambda v: v is None)
    # What the run itself showed of its setup: {"sh": the shell at /bin/sh inside the run,
    # "hook_parents": {what started the hooks: count}}
    setup_read: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    # Stored compact (compaction.py): what was left out, and the full record's digest; absent: whole
    compacted: Compacted | None = Field(default=None, exclude_if=lambda v: v is None)

    def to_json(self) -> str:
        """The whole record as one JSON text, refs resolved (what `probe run --json` prints)."""
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def evidence_path(results: Path, ev: Evidence) -> Path:
    version = ev.executed_version or f"unknown-{ev.requested_version}"
    suffix = f"@{ev.setup_key}" if ev.setup_key else ""
    return results / ev.agent / version / f"{ev.recipe}{suffix}.json"


def save_evidence(path: Path, ev: Evidence) -> None:
    """Write a record where it belongs, compact: its blobs first, then the record (store.py)."""
    save(path, ev.model_dump(mode="json"), write_atomic)


def save_unless_unchanged(path: Path, ev: Evidence, update: bool = False) -> bool:
    """Write `ev` at `path` unless the record stored there differs only in measured numbers,
    the run's identity and fields it predates (keep.measured_only): then it and its blobs are
    left as they are, so a re-run does not churn committed evidence. `update`: write anyway.
    Decided before anything is written (save writes blobs first). True when written."""
    if not update and path.is_file():
        try:
            if measured_only(load_evidence(path, follow=False), ev.model_dump(mode="json")):
                return False
        except InputError:
            pass  # unreadable: written anew
    save_evidence(path, ev)
    return True


def upgrade(record: dict[str, Any]) -> dict[str, Any]:
    """A record as the current schema_version (a new dict): its session parts (what a
    classifier reads, and the rest a run collects) with per-run values written as stable
    names, as a run now writes them (normalise.py; a record already so is unchanged). The run
    directory, run id and hooks' interpreter are read off the record itself. Classify it
    again afterwards (probe reclassify does)."""
    parts = {k: record[k] for k in Collected.model_fields if k in record}
    known = known_values(None, record.get("run_id"), hook_python(parts))
    return {**record, **normalise(parts, known), "schema_version": max(SCHEMA_VERSION, record.get("schema_version", 1))}


def write_atomic(path: Path, text: str, what: str = "evidence", hint: str = "check --results") -> None:
    """Write via a temporary file in the same directory and rename: readers see the old
    file or the new one, never half of one (a full disk leaves the old one). Every file the
    harness writes goes through here; `what` and `hint` word its one-line error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        raise HarnessError(f"cannot write {what} {path}: {e.strerror}; {hint}") from None


def load_evidence(path: Path, follow: bool = True, blobs: Blobs | None = None) -> dict[str, Any]:
    """The record in `path` as a dict, checked (a regular file of bounded size, UTF-8 JSON of
    bounded depth, its refs resolved from the blobs beside it, the Evidence schema, the claims
    and repeats the tables read), or InputError naming the file."""
    try:
        data = read_bounded(path, EVIDENCE_MAX_BYTES, follow)
    except BadFile as e:
        raise InputError(f"{path}: not an evidence record ({e})") from None
    return parse_evidence(path, data, blobs)


def read_evidence(path: Path, blobs: Blobs | None = None) -> Evidence:
    """load_evidence's record as the model, validated once (what every table reads)."""
    try:
        data = read_bounded(path, EVIDENCE_MAX_BYTES)
    except BadFile as e:
        raise InputError(f"{path}: not an evidence record ({e})") from None
    return checked(path, data, blobs)[1]


def parse_evidence(path: Path, data: bytes, blobs: Blobs | None = None) -> dict[str, Any]:
    """`data` (read from `path`) as a checked record, refs resolved; see load_evidence."""
    return checked(path, data, blobs)[0]


def checked(path: Path, data: bytes, blobs: Blobs | None) -> tuple[dict[str, Any], Evidence]:
    try:
        record = parse_json(data)
        if not isinstance(record, dict):
            raise BadFile(f"a JSON {type(record).__name__}, not an object")
        if isinstance(record.get("schema_version"), int) and record["schema_version"] >= 2:  # version 1 has no refs
            resolve(record, path.parent, blobs)
        put_back(record)  # what storing left out (implied.py), whatever the schema version
        model = Evidence.model_validate(record)
        for c in record["claims"]:
            if not (
                isinstance(c, dict)
                and isinstance(c.get("source"), str)
                and isinstance(c.get("says"), str)
                and c.get("agrees") in (True, False, None)
            ):
                raise BadFile("claims: each needs source, says and agrees")
        runs = record.get("repeats")
        if runs is not None and not (
            isinstance(runs.get("outcomes"), dict) and all(isinstance(n, int) for n in runs["outcomes"].values())
        ):
            raise BadFile("repeats: outcomes must map labels to counts")
    except ValidationError as e:
        err = e.errors()[0]
        why = f"{'.'.join(map(str, err['loc'])) or 'record'}: {err['msg']}"
        raise InputError(f"{path}: not an evidence record ({why})") from None
    except BadFile as e:
        raise InputError(f"{path}: not an evidence record ({e})") from None
    return record, model
