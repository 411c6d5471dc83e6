"""A session as the classifiers read it: the parts of the evidence record named in
SESSION_KEYS, as plain JSON data (what a probe collected, or a committed record read back),
and the helpers every family of classifiers reads it with."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict

SENTINEL_RE = re.compile(r"PROBE-[A-Z0-9-]+")
GATED = ("pre_tool", "permission_request")  # events whose answer decides whether a tool runs
AFTER_TOOL = ("post_tool", "post_tool_failure", "stop", "session_end", "subagent_stop")  # fire after the tool ran


class Behavior(TypedDict, total=False):
    """What a registered hook was told to do (recipes.Behavior, as recorded); what it prints
    and the process it leaves behind are read here."""

    stdout: str | dict[str, object] | None
    stderr: str | None
    grandchild: str | None  # "session", "group" or "stdout" (holding the hook's stdout open)


class HookSpec(TypedDict):
    """One registered hook entry."""

    canonical: str
    native: str
    timeout_s: float | None
    matcher: str | None
    raw: dict[str, object] | None
    behavior: Behavior | None
    handler: NotRequired[dict[str, object]]  # a handler other than the instrumented command, as written
    answer: NotRequired[dict[str, object]]  # a prompt hook's scripted verdict


class Grandchild(TypedDict):
    pid: int
    alive_at_cli_exit: bool
    died_offset_s: float | None
    killed_by: str | None


class Invocation(TypedDict):
    """One hook invocation (evidence.Invocation as JSON). Records older than extension hooks
    lack surface, extension_result and error."""

    event: str
    canonical_event: str
    payload: object  # JSON: an object when the CLI sent one
    stdin_raw: str | None
    stdin_eof: bool | None
    argv: list[str]
    cwd: str
    cwd_relative: str
    config_index: int | None
    env: dict[str, str]
    pid: int
    started_at: str
    start_offset_s: float
    ended_at: str | None
    gone_offset_s: float | None
    duration_s: float | None
    exit_code: int | None
    killed_by_signal: str | None
    killed_by: str | None
    signals_received: list[str]
    first_signal_offset_s: float | None
    output: str | None
    stderr: str | None
    grandchild: Grandchild | None
    surface: NotRequired[str]
    extension_result: NotRequired[str | None]
    error: NotRequired[str | None]
    handler_type: NotRequired[str]  # absent: a command (a process)
    http: NotRequired[dict[str, object] | None]  # an http hook's delivery: the status answered, the headers sent


class Seen(TypedDict):
    """Where one sentinel word was in a model request."""

    roles: list[str]
    verbatim: bool
    snippet: str | None


class Reply(TypedDict, total=False):
    """What the scripted model answered: a tool call or a text."""

    turn: int
    tool: str
    kind: str
    arguments: object
    text: str
    subagent: bool
    missing_tool: str
    hook: str  # a prompt hook's evaluation, answered for this hook's key


class ModelRequest(TypedDict):
    seq: int
    offset_s: float
    method: str
    path: str
    model: str | None
    user_agent: str
    tools: list[str]
    sentinels: dict[str, Seen]
    message_count: int
    messages: list[dict[str, object]]
    reply: Reply | None


class SideEffect(TypedDict):
    """A file a scripted tool step (or a watched path) left, and when."""

    step: int | None
    kind: str
    path: str
    offset_s: float


class CliRecord(TypedDict):
    """evidence.CliRun as JSON; env_names and secrets_given are absent from records older
    than them."""

    argv: list[str]
    exit_code: int | None
    exit_signal: str | None
    wall_s: float
    timed_out: bool
    budget_s: float
    stdout_tail: str
    stderr_tail: str
    env_names: NotRequired[list[str] | None]
    secrets_given: NotRequired[list[str] | None]  # the credentials among them (absent from older records)


class Step(TypedDict):
    """One step of an interactive session's transcript."""

    do: str
    text: str | None
    offset_s: float
    took_s: float
    ok: bool
    state: str
    screen: str


class SessionRecord(TypedDict):
    """The parts of a run's evidence record a classifier reads (a fresh run's, or a committed one's)."""

    subject: str | None  # the canonical event under test
    cli_cwd: str
    hooks: list[HookSpec]
    invocations: list[Invocation]  # all, or a sample of a runaway session
    invocations_by_event: dict[str, int]  # exact counts
    model_requests: list[ModelRequest]
    model_request_count: int
    side_effects: list[SideEffect]
    cli: CliRecord
    transcript: list[Step] | None  # interactive sessions only


# The parts of a session a classifier may say it reads (SessionRecord's keys).
Part = Literal[
    "subject",
    "cli_cwd",
    "hooks",
    "invocations",
    "invocations_by_event",
    "model_requests",
    "model_request_count",
    "side_effects",
    "cli",
    "transcript",
]


class Found(TypedDict):
    reached: bool  # every word was in some request
    where: dict[str, list[str]]  # word -> the roles it was seen in
    verbatim: bool  # every word was part of the hook's whole phrase


# ---------------------------------------------------------------- reading a session


def count(session: SessionRecord, canonical: str | None) -> int:
    """Invocations of a canonical event: exact even when the evidence keeps only a sample."""
    natives = {h["native"] for h in session["hooks"] if h["canonical"] == canonical}
    return sum(n for event, n in session["invocations_by_event"].items() if event in natives)


def of_event(session: SessionRecord, canonical: str | None) -> list[Invocation]:
    return [i for i in session["invocations"] if i["canonical_event"] == canonical]


def first(session: SessionRecord, canonical: str | None) -> Invocation | None:
    return next(iter(of_event(session, canonical)), None)


def hook_spec(session: SessionRecord, canonical: str | None) -> HookSpec | None:
    return next((h for h in session["hooks"] if h["canonical"] == canonical), None)


def payload_of(inv: Invocation | None) -> dict[str, object]:
    """The payload a hook received, when it was a JSON object; else empty."""
    pl = inv["payload"] if inv else None
    return pl if isinstance(pl, dict) else {}


def payload_field(inv: Invocation | None, *names: str) -> object:
    """The first of `names` the payload has (agents spell fields differently: toolName,
    tool_name), or None. A dotted name is a field of an object field, where the payload has no
    field of that whole name (opencode's relay: input.tool, the plugin hook's input)."""
    pl = payload_of(inv)
    for n in names:
        head, _, rest = n.partition(".")
        inner = pl.get(head)
        if n in pl:
            return pl[n]
        if rest and isinstance(inner, dict) and rest in inner:
            return inner[rest]
    return None


def side_effect_at(session: SessionRecord, step: int | None = 0, path: str | None = None) -> float | None:
    """When a scripted step's tool (or a watched file) left its file, in seconds after the CLI
    started; None if it never did."""
    return next(
        (
            m["offset_s"]
            for m in session["side_effects"]
            if (path is None and m["step"] == step) or (path is not None and m["path"] == path)
        ),
        None,
    )


def tool_ran(session: SessionRecord) -> bool:
    return side_effect_at(session) is not None


def tools_ran(session: SessionRecord) -> int:
    """How many of the scripted tool steps ran (each left its file)."""
    return len({m["step"] for m in session["side_effects"] if m["step"] is not None})


def tool_delay(inv: Invocation | None, t: float | None) -> float | None:
    """Seconds from the hook's start until the tool ran at `t`: defined only for a hook that
    comes before the tool (not post-tool, stop or session-end hooks), and only when the tool
    did not run before the hook started; else None, never a negative number."""
    if inv is None or t is None or inv["canonical_event"] in AFTER_TOOL or t < inv["start_offset_s"]:
        return None
    return since(inv, t)


def since(inv: Invocation | None, t: float | None) -> float | None:
    """Seconds from the hook's start to `t`, or None when either is missing."""
    return round(t - inv["start_offset_s"], 3) if inv and t is not None else None


def hook_end(inv: Invocation | None) -> str | None:
    """How a hook process ended: "exit N", a signal name, or None if it never ended."""
    if inv is None:
        return None
    if inv.get("handler_type") in ("prompt", "agent"):  # no process: the verdict the model gave, if it did
        return verdict_words(inv["output"]) if inv["ended_at"] else None
    if inv.get("handler_type") == "http":  # the status the receiver answered, if it did
        return f"status {(inv.get('http') or {}).get('status')}" if inv["ended_at"] else None
    if inv.get("handler_type") == "mcp_tool":  # the MCP tool's answer: a result, or an error result
        return ("answered" if inv["exit_code"] == 0 else "error") if inv["ended_at"] else None
    if inv["killed_by_signal"]:
        return inv["killed_by_signal"]
    if inv.get("extension_result") == "threw":
        return "threw"
    return None if inv["exit_code"] is None else f"exit {inv['exit_code']}"


def verdict_words(answer: str | None) -> str:
    """A prompt hook's answer in a word or two: "ok", "not ok" or "not JSON"."""
    try:
        value = json.loads(answer or "")
    except ValueError:
        return "not JSON"
    if not isinstance(value, dict) or not isinstance(value.get("ok"), bool):
        return "not JSON"
    return "ok" if value["ok"] else "not ok"


def hook_failed(inv: Invocation) -> bool:
    if inv.get("handler_type") in ("prompt", "agent"):  # its evaluation failed: no answer, or none that parses
        return hook_end(inv) in (None, "not JSON")
    if inv.get("handler_type") == "http":  # no answer, or not a 2xx
        return not (hook_end(inv) or "").startswith("status 2")
    if inv.get("handler_type") == "mcp_tool":
        return hook_end(inv) != "answered"
    return inv["killed_by"] is not None or inv["exit_code"] not in (0, None) or inv.get("extension_result") == "threw"


def sentinels(hook: HookSpec | None) -> list[str]:
    """Sentinel words (PROBE-...) a hook prints, to look for in later model requests."""
    return sorted(set(SENTINEL_RE.findall(" ".join(hook_texts(hook)))))


def hook_texts(hook: Mapping[str, object] | None) -> list[str]:
    """Every string a hook prints: its stdout text or the strings inside its JSON, its stderr."""
    b = (hook or {}).get("behavior") or {}
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    if isinstance(b, dict):
        walk(b.get("stdout"))
        walk(b.get("stderr"))
    walk((hook or {}).get("answer"))  # a prompt hook's reason
    return out


def find_in_requests(session: SessionRecord, words: list[str], after: float | None) -> Found:
    """Did model requests made after `after` contain each word; where (by role); verbatim?"""
    roles: dict[str, set[str]] = {w: set() for w in words}
    verbatim = {w: False for w in words}
    for req in session["model_requests"]:
        if after is not None and req["offset_s"] < after:
            continue
        for w in words:
            seen = req["sentinels"].get(w)
            if seen:
                roles[w].update(seen["roles"])
                verbatim[w] = verbatim[w] or seen["verbatim"]
    found = {w: sorted(r) for w, r in roles.items()}
    return {"reached": bool(words) and all(found.values()), "where": found, "verbatim": bool(words) and all(verbatim.values())}


def in_cli_output(session: SessionRecord, words: list[str]) -> bool:
    text = session["cli"].get("stdout_tail", "") + session["cli"].get("stderr_tail", "")
    return bool(words) and all(w in text for w in words)


def requests_after(session: SessionRecord, t: float, main_only: bool = True) -> list[ModelRequest]:
    return [
        r for r in session["model_requests"] if r["offset_s"] >= t and (not main_only or (r["tools"] and not main_excluded(r)))
    ]


def main_excluded(r: ModelRequest) -> bool:
    """Not the main conversation: a subagent's turn, or a hook's own evaluation."""
    reply = r.get("reply") or {}
    return bool(reply.get("subagent") or reply.get("hook"))


def ended_by_itself(session: SessionRecord) -> bool:
    return not session["cli"]["timed_out"]
