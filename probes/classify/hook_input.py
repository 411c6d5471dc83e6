"""What a hook is given (payload fields and their types, tool names, environment,
working directory) and which hooks fire at all."""

from __future__ import annotations

from typing import TypedDict

from probes.agents import AGENTS
from probes.classify.registry import Observations, classifier, hook_words
from probes.classify.session import CliRecord, SessionRecord, count, first, of_event, payload_field, payload_of, tool_ran
from probes.pipeline.redact import secret_name

# Where a payload names the tool: Copilot, Claude and the others; opencode's relay (the plugin
# hook's input, {"tool": ...}).
TOOL_NAME = ("toolName", "tool_name", "input.tool")


def value_type(value: object) -> str | None:
    if value is None:
        return None
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return names.get(type(value), type(value).__name__)


class PayloadObs(TypedDict):
    tool_ran: bool
    fields: list[str]
    field_types: dict[str, str | None]
    tool_name: object
    tool_args_field: str | None
    tool_args_type: str | None
    timestamp_type: str | None
    traceparent: bool
    fields_by_event: dict[str, list[str]]
    event_order: list[str]


def listed(value: object, none: str = "none", most: int = 4) -> str:
    """A list in words: its first `most` items, and how many more."""
    if not isinstance(value, list) or not value:
        return none
    more = f" and {len(value) - most} more" if len(value) > most else ""
    return ", ".join(map(str, value[:most])) + more


def say_payload(outcome: str, obs: Observations, event: str | None) -> str:
    hook, fields = hook_words(event), obs.get("fields")
    if outcome == "recorded":
        args = (
            f"; its tool arguments ({obs.get('tool_args_field')}) are a JSON {obs.get('tool_args_type')}"
            if obs.get("tool_args_field")
            else ""
        )
        return f"{hook}'s payload has {len(fields) if isinstance(fields, list) else 0} fields{args}"
    return f"{hook} was given no payload" if outcome == "not-recorded" else ""


def say_fired(outcome: str, obs: Observations, event: str | None) -> str:
    hook, n = hook_words(event), obs.get("invocations")
    return {"fired": f"{hook} ran ({n} time{'s' if n != 1 else ''})", "not-fired": f"{hook} never ran"}.get(outcome, "")


def say_inventory(outcome: str, obs: Observations, event: str | None) -> str:
    counts = obs.get("counts")
    total = len(counts) if isinstance(counts, dict) else 0
    fired = obs.get("fired")
    n = len(fired) if isinstance(fired, list) else 0
    return f"{n} of the {total} events hooked fired; never fired: {listed(obs.get('never_fired'))}"


def say_env(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event)
    if outcome != "recorded":
        return f"{hook} never ran" if outcome == "no-hook" else ""
    names = obs.get("env_names")
    return (
        f"{hook} was given {len(names) if isinstance(names, list) else 0} environment variables; "
        f"of the credentials the CLI was given, the hook got: {listed(obs.get('secrets_passed'))}"
    )


def say_cwd(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event)
    return {
        "cli-at-root": f"{hook} ran in the project root, where the CLI was started",
        "session-cwd": f"{hook} ran in the session's working directory ({obs.get('hook_cwd')}), not the project root",
        "project-root": f"{hook} ran in the project root, not the session's working directory ({obs.get('cli_cwd')})",
        "other": f"{hook} ran in {obs.get('hook_cwd')}, neither the project root nor the session's directory",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


def say_tool_names(outcome: str, obs: Observations, event: str | None) -> str:
    kinds, hooked = obs.get("tool_by_kind"), obs.get("kinds_hooked")
    total = len(kinds) if isinstance(kinds, dict) else 0
    return f"pre-tool hooks saw {len(hooked) if isinstance(hooked, list) else 0} of the {total} kinds of tool the model called"


def say_subagent(outcome: str, obs: Observations, event: str | None) -> str:
    if outcome == "no-subagent":
        return "no subagent hook fired"
    return f"a subagent's hooks fired: {outcome.replace('+', ', ')}"


def say_casing(outcome: str, obs: Observations, event: str | None) -> str:
    if outcome == "not-recorded":  # Copilot 1.0.0-1.0.7 and 1.0.40-1.0.48 in -p: no repository hook ran
        return f"{hook_words(event)} did not run, so no payload was recorded"
    return f"{hook_words(event)}'s payload fields are {outcome}" if outcome in ("camelCase", "snake_case") else ""


@classifier("payload", key="tool_args_type", reads=("subject", "invocations", "side_effects"), says=say_payload)
def classify_payload(session: SessionRecord) -> tuple[str, PayloadObs]:
    """Record the payload the subject event's hook receives, and every other hooked event's."""
    inv = first(session, session["subject"])
    by_event: dict[str, list[str]] = {}
    for i in session["invocations"]:
        if isinstance(i["payload"], dict):
            by_event.setdefault(i["event"], sorted(i["payload"]))
    pl = payload_of(inv)
    args_key = next((k for k in ("toolArgs", "tool_input", "toolInput") if k in pl), None)
    obs: PayloadObs = {
        "tool_ran": tool_ran(session),
        "fields": sorted(pl),
        "field_types": {k: value_type(v) for k, v in sorted(pl.items())},
        "tool_name": payload_field(inv, *TOOL_NAME),
        "tool_args_field": args_key,
        "tool_args_type": value_type(pl.get(args_key)) if args_key else None,
        "timestamp_type": value_type(pl.get("timestamp")),
        "traceparent": "traceparent" in pl or any("traceparent" in str(k).lower() for k in pl),
        "fields_by_event": by_event,
        "event_order": [i["event"] for i in session["invocations"]],
    }
    return ("recorded" if pl else "not-recorded"), obs


def casing(pl: dict[str, object]) -> str:
    keys = [k for k in pl if any(c.isupper() for c in k) or "_" in k]
    snake = sum("_" in k for k in keys)
    camel = sum(any(c.isupper() for c in k) for k in keys)
    return "snake_case" if snake and not camel else "camelCase" if camel and not snake else "mixed"


class CasingObs(TypedDict):
    hook_fired: bool
    registered_as: str | None
    fields: list[str]
    tool_name: object
    timestamp_type: str | None


@classifier("payload-casing", reads=("subject", "invocations"), says=say_casing)
def payload_casing(session: SessionRecord) -> tuple[str, CasingObs]:
    """Which casing do the subject hook's payload fields use?"""
    inv = first(session, session["subject"])
    pl = payload_of(inv)
    obs: CasingObs = {
        "hook_fired": inv is not None,
        "registered_as": inv["event"] if inv else None,
        "fields": sorted(pl),
        "tool_name": payload_field(inv, *TOOL_NAME),
        "timestamp_type": value_type(pl.get("timestamp")),
    }
    if not (inv and isinstance(inv["payload"], dict)):
        return "not-recorded", obs
    return casing(pl), obs


class ToolNamesObs(TypedDict):
    tool_by_kind: dict[str, str]
    pre_tool_names: list[object]
    kinds_hooked: list[str]
    missing_kinds: list[str]


@classifier("tool-names", reads=("invocations", "model_requests"), says=say_tool_names)
def tool_names(session: SessionRecord) -> tuple[str, ToolNamesObs]:
    """Which tool names reach pre-tool hooks for each scripted tool kind?"""
    kinds: dict[str, str] = {}
    for r in session["model_requests"]:
        reply = r.get("reply") or {}
        if reply.get("tool"):
            kinds.setdefault(reply["kind"], reply["tool"])
    hooked = [payload_field(i, *TOOL_NAME) for i in of_event(session, "pre_tool") if isinstance(i["payload"], dict)]
    missing = {(r.get("reply") or {}).get("missing_tool") for r in session["model_requests"]}
    obs: ToolNamesObs = {
        "tool_by_kind": kinds,
        "pre_tool_names": hooked,
        "kinds_hooked": sorted(k for k, name in kinds.items() if name in hooked),
        "missing_kinds": sorted(k for k in missing if k is not None),
    }
    return f"{len(obs['kinds_hooked'])}-of-{len(kinds)}-hooked", obs


class FiredObs(TypedDict):
    invocations: int
    tool_ran: bool
    hooks_registered: list[str]
    cli_mentions_hooks: list[str]
    other_events_fired: list[str]


@classifier("fired", reads=("subject", "hooks", "invocations", "invocations_by_event", "side_effects", "cli"), says=say_fired)
def classify_fired(session: SessionRecord) -> tuple[str, FiredObs]:
    """Is the subject hook invoked at all (matchers, config keys, config files, trust)?"""
    subject = session["subject"]
    invs = of_event(session, subject)
    output = session["cli"].get("stderr_tail", "") + session["cli"].get("stdout_tail", "")
    obs: FiredObs = {
        "invocations": count(session, subject),
        "tool_ran": tool_ran(session),
        "hooks_registered": [h["native"] for h in session["hooks"]],
        "cli_mentions_hooks": sorted({ln.strip()[:200] for ln in output.splitlines() if "hook" in ln.lower()})[:5],
        "other_events_fired": sorted({i["event"] for i in session["invocations"] if i["canonical_event"] != subject}),
    }
    return ("fired" if invs else "not-fired"), obs


class InventoryObs(TypedDict):
    counts: dict[str, int]
    fired: list[str]
    never_fired: list[str]
    order: list[str]
    tool_ran: bool


@classifier("inventory", reads=("hooks", "invocations", "invocations_by_event", "side_effects"), says=say_inventory)
def inventory(session: SessionRecord) -> tuple[str, InventoryObs]:
    """Every event an agent version knows, hooked: how often each fired, in what order."""
    registered = sorted({h["native"] for h in session["hooks"]})
    counts = {e: session["invocations_by_event"].get(e, 0) for e in registered}
    fired = sorted(e for e, n in counts.items() if n)
    obs: InventoryObs = {
        "counts": counts,
        "fired": fired,
        "never_fired": sorted(e for e, n in counts.items() if not n),
        "order": [i["event"] for i in session["invocations"]],
        "tool_ran": tool_ran(session),
    }
    return f"{len(fired)}-of-{len(registered)}-fired", obs


# Environment variables that mark a hook's host (every agent's own, and the shared ones); the
# env classifier reports which of them a hook was given.
MARKER_VARS = (
    *dict.fromkeys(v for agent in AGENTS.values() for v in agent.hook_env_markers),
    "AI_AGENT",
    "PLUGIN_ROOT",
    "TRACEPARENT",
    "HOME",
)


class EnvObs(TypedDict):
    hook_fired: bool
    env_names: list[str]
    markers: dict[str, bool]
    secrets_passed: list[str]
    traceparent_in_env: bool
    stripped: list[str] | None
    added: list[str] | None


def secrets_given(cli: CliRecord) -> list[str]:
    """The credentials the harness gave the CLI (fake canary values): the record says which;
    a record older than `secrets_given` has only the names it started the CLI with, of which
    the harness's credentials are the secret-named ones (redact.SECRET_NAME)."""
    given = cli.get("secrets_given")
    if given is not None:
        return given
    return [k for k in cli.get("env_names") or [] if secret_name(k)]


@classifier("env", reads=("subject", "invocations", "cli"), says=say_env)
def classify_env(session: SessionRecord) -> tuple[str, EnvObs]:
    """The environment a hook is given: names, project and version markers, which of the
    credentials the harness gave the CLI it passed on (variables the CLI makes itself, secret
    or not, are `added`, never `secrets_passed`), the trace context, and against the CLI's
    own environment, the names it lacks (stripped) and gained (added)."""
    inv = first(session, session["subject"])
    e = inv["env"] if inv else {}
    cli_env = session["cli"].get("env_names")  # absent from evidence older than this field
    obs: EnvObs = {
        "hook_fired": inv is not None,
        "env_names": sorted(e),
        "markers": {k: (k in e) for k in MARKER_VARS},
        "secrets_passed": sorted(k for k in secrets_given(session["cli"]) if k in e),
        "traceparent_in_env": any("traceparent" in k.lower() for k in e),
        "stripped": sorted(set(cli_env) - set(e)) if cli_env is not None and inv else None,
        "added": sorted(set(e) - set(cli_env)) if cli_env is not None and inv else None,
    }
    return ("recorded" if inv else "no-hook"), obs


class CwdObs(TypedDict):
    hook_cwd: str | None
    cli_cwd: str
    payload_cwd: object


@classifier("cwd", key="hook_cwd", reads=("subject", "cli_cwd", "invocations"), says=say_cwd)
def classify_cwd(session: SessionRecord) -> tuple[str, CwdObs]:
    """The working directory a hook runs in: the project root, or the session's cwd?"""
    inv = first(session, session["subject"])
    rel = inv["cwd_relative"] if inv else None
    obs: CwdObs = {"hook_cwd": rel, "cli_cwd": session["cli_cwd"], "payload_cwd": payload_field(inv, "cwd")}
    if inv is None:
        return "no-hook", obs
    if session["cli_cwd"] == ".":
        return "cli-at-root", obs  # root and session directory are one: the reference case
    if rel == session["cli_cwd"]:
        return "session-cwd", obs
    return ("project-root" if rel == "." else "other"), obs


class SubagentObs(TypedDict):
    subagent_ran: bool
    subagent_start: int
    subagent_stop: int
    child_pre_tool: int
    subagent_start_fields: list[str]
    subagent_stop_fields: list[str]
    child_pre_tool_fields: list[str]
    subagent_tool: str | None


@classifier("subagent", reads=("invocations", "side_effects", "model_requests"), says=say_subagent)
def subagent(session: SessionRecord) -> tuple[str, SubagentObs]:
    """A session starts a subagent: which hooks fire for the child, with what payload?"""
    child_tools = [i for i in of_event(session, "pre_tool") if "probe-subagent" in str(i["payload"])]
    starts, stops = of_event(session, "subagent_start"), of_event(session, "subagent_stop")
    ran = any(m["kind"] == "watched" for m in session["side_effects"])
    parts = [name for name, hit in (("start", starts), ("stop", stops), ("child-tools", child_tools)) if hit]
    replies = [r.get("reply") or {} for r in session["model_requests"]]
    obs: SubagentObs = {
        "subagent_ran": ran,
        "subagent_start": len(starts),
        "subagent_stop": len(stops),
        "child_pre_tool": len(child_tools),
        "subagent_start_fields": sorted(payload_of(starts[0])) if starts else [],
        "subagent_stop_fields": sorted(payload_of(stops[0])) if stops else [],
        "child_pre_tool_fields": sorted(payload_of(child_tools[0])) if child_tools else [],
        "subagent_tool": next((r["tool"] for r in replies if r.get("kind") == "subagent"), None),
    }
    if not ran and not parts:
        return "no-subagent", obs
    return "+".join(parts) if parts else "no-subagent-hooks", obs
