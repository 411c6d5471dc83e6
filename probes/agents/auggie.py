"""Auggie (`@augmentcode/auggie`), Augment Code's CLI: one bundled Node script whose hooks take
Claude Code's shape. Augment's own API against the scripted model (runner/augment.py): the
tenant URL and a placeholder token in AUGMENT_SESSION_AUTH, `auggie --print PROMPT`; hooks in
the project's .augment/settings.json or .augment/settings.local.json, or the user's
~/.augment/settings.json (its docs also name /etc/augment/settings.json, outside a run's reach).

Measured on 0.36.0: every hook waits on the tenant's `feature_flags.enable_hooks` (get-models),
which the scripted model serves true; seven events, PreToolUse, PostToolUse, Stop, SessionStart,
SessionEnd, Notification and PromptSubmit (not UserPromptSubmit); a matcher is a regular
expression (`*` is refused, "Some plugin hooks use unsupported configuration"); a hook's timeout
is in milliseconds ("Hook execution timed out after 10ms" for `"timeout": 10`), SIGTERM then
SIGKILL 5 s later; hooks get AUGMENT_PROJECT_DIR, AUGMENT_CONVERSATION_ID, AUGMENT_HOOK_EVENT,
AUGMENT_TOOL_NAME and the session's AUGMENT_SESSION_AUTH itself."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes.agents.base import (
    NATIVE,
    Agent,
    ConfigTarget,
    ConfigWriter,
    ExtensionSurface,
    Registration,
    Tty,
    Written,
    version_from_user_agent,
)
from probes.agents.config import HookSource, merge_json, native_hooks, write_json
from probes.agents.events import PASCAL_EVENTS

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

# augment.cli/0.36.0 (commit 7c61e5bb)/noninteractive: the CLI's version, on every API call
UA_RE = re.compile(r"augment\.cli/(\d+\.\d+\.\d+[^\s(/]*)")

USER_SETTINGS = ".augment/settings.json"  # under HOME

# The bundle's hook events (0.36.0: "PreToolUse","PostToolUse","Stop","SessionStart",
# "SessionEnd","Notification","PromptSubmit"): Claude Code's names but the prompt's.
EVENTS = {
    k: v
    for k, v in PASCAL_EVENTS.items()
    if k in ("pre_tool", "post_tool", "stop", "session_start", "session_end", "notification")
}
EVENTS["prompt_submit"] = "PromptSubmit"
# Matchers are regular expressions, and only tool events take one.
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})


def settings_hooks(registrations: Sequence[Registration]) -> dict[str, list[Any]]:
    """The "hooks" of an Augment settings file: Claude Code's shape, per native event a list of
    {matcher, hooks: [...]}; a tool event without the recipe's matcher gets ".*" (Augment's
    default, a regular expression), the others none; the timeout in milliseconds."""

    def entry(r: Registration) -> dict[str, Any]:
        command: dict[str, Any] = {"type": "command", "command": r.command}
        command.update(r.fields)
        if r.timeout_s is not None:
            timeout = r.timeout_s * 1000
            command["timeout"] = round(timeout) if timeout == round(timeout) else timeout
        out: dict[str, Any] = {"hooks": [command]}
        if r.matcher is not None or r.native in TOOL_EVENTS:
            out = {"matcher": r.matcher if r.matcher is not None else ".*", **out}
        return out

    return native_hooks(registrations, entry)


def write_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .augment/settings.json."""
    path = target.workspace / ".augment" / "settings.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


def write_local_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .augment/settings.local.json (its docs: personal overrides, not committed)."""
    path = target.workspace / ".augment" / "settings.local.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


def write_user_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's ~/.augment/settings.json, merged into."""
    return Written([merge_json(target.home, USER_SETTINGS, {"hooks": settings_hooks(registrations)})])


# A repository's own hooks as Auggie reads them (probe check): the project's settings and its
# local settings (its bundle reads both, 0.36.0), Claude Code's shape; the timeout in
# milliseconds and matchers found anywhere in the tool name (measured); a hook without
# "type": "command" fails its schema (0.36.0). It runs `bash -c COMMAND` only for a command
# starting with `~` or holding one of |&;<>$ or a backquote, and no `args`; another it splits
# into words and starts itself (its bundle, 0.36.0; measured: `touch x` ran, no shell saw it).
HOOK_SOURCES = tuple(
    HookSource(
        f".augment/{name}",
        "claude",
        ("command",),
        "timeout",
        timeout_unit_s=0.001,
        matchers="search",
        type_required=True,
        shell_re=r"^~|[|&;<>$`]",
    )
    for name in ("settings.json", "settings.local.json")
)


class Auggie(Agent):
    name = "auggie"
    package = "@augmentcode/auggie"
    events = EVENTS
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_settings,
        "local": write_local_settings,
        "user": write_user_settings,
    }
    hook_sources = HOOK_SOURCES
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["launch-process"],
        "create_file": ["save-file"],
        "edit_file": ["str-replace-editor"],
        "view_file": ["view"],
    }
    tool_kinds = frozenset({"shell", "create_file", "edit_file", "view_file"})
    # Its hooks get AUGMENT_PROJECT_DIR (0.36.0); a marker added here is a new key in every
    # committed env record of every agent (as Qwen's).
    hook_env_markers = ()
    project_dir_vars = ("AUGMENT_PROJECT_DIR",)
    extension: ExtensionSurface | None = None
    # About 1 s to its first model request on 2 cores, idle.
    startup_s = 10.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "auggie"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        pass

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        # The tenant is the scripted model; the token a placeholder (0.36.0 wants accessToken,
        # tenantURL and scopes, and says "No auth provided" without scopes).
        auth = {"accessToken": "probe-offline-placeholder", "tenantURL": "http://127.0.0.1:{port}/", "scopes": ["email"]}
        return {"AUGMENT_SESSION_AUTH": json.dumps(auth, separators=(",", ":"))}

    # preapproved: --print runs every tool without asking (0.36.0), so the two are one argv.
    permission_setups = ("preapproved", "none")

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "--print", prompt]

    # Interactive sessions are not driven yet: no markers measured.
    sessions = ("print",)
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "1", "no": "\x1b"},
        "exit": "/exit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix))]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        return None, "no request to the scripted model named the version"


AGENT: Agent = Auggie()  # mypy checks the module against the protocol
