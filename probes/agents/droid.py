"""Factory droid (`@factory/cli`): a Bun-compiled binary whose hooks take Claude Code's shape.
OpenAI chat completions, streamed, against the scripted model: a custom model
(`customModels[]` in the user's ~/.factory/settings.json, provider
`generic-chat-completion-api`) picked with `droid exec -m custom:Probe-0`; hooks in the
project's or the user's .factory/settings.json, or the project's .factory/hooks.json.

The npm package `@factory/cli` is a shim that runs the binary of an optional dependency,
`@factory/cli-linux-x64` at the shim's own version. The registry snapshot serves the shim at
0.225.1 only and that binary not at all (npm skips the missing optional dependency and the shim
then fails, "Could not find the droid binary for linux-x64"); it serves the binary at 0.99.0 to
0.225.2. So the package installed, and the versions probed, are the binary's: its version is
the one droid reports (`droid --version`, the User-Agent of its model requests)."""

from __future__ import annotations

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
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

# factory-cli/0.225.2: the CLI's version, on every model request (0.99.0 and 0.225.2)
UA_RE = re.compile(r"factory-cli/(\d+\.\d+\.\d+[^\s(]*)")

USER_SETTINGS = ".factory/settings.json"  # under HOME
# Its log, under HOME: each line's tags name the version (0.99.0 and 0.225.2), from start-up on,
# so a session held before its first model request (a hung SessionStart hook) still names it.
LOG = ".factory/logs/droid-log-single.log"
LOG_HEAD = 1024 * 1024
LOG_VERSION_RE = re.compile(r'"clientType":"cli"[^{}]*?"version":"(\d+\.\d+\.\d+[^"]*)"')
# The custom model: droid names it custom:DISPLAYNAME-INDEX (`droid exec --list-tools -m ...`).
DISPLAY_NAME = "Probe"
MODEL_ID = f"custom:{DISPLAY_NAME}-0"

# The nine events its binary lists (0.99.0 and 0.225.2: "PreToolUse","PostToolUse",
# "Notification","UserPromptSubmit","Stop","SubagentStop","PreCompact","SessionStart","SessionEnd").
EVENTS = (
    "pre_tool",
    "post_tool",
    "notification",
    "prompt_submit",
    "stop",
    "subagent_stop",
    "pre_compact",
    "session_start",
    "session_end",
)


def settings_hooks(registrations: Sequence[Registration]) -> dict[str, list[Any]]:
    """The "hooks" of a droid settings file (or hooks.json): Claude Code's shape, per native
    event a list of {matcher, hooks: [...]}, "*" when the recipe gives no matcher; the timeout
    in seconds (its hooks reference)."""

    def entry(r: Registration) -> dict[str, Any]:
        command: dict[str, Any] = {"type": "command", "command": r.command}
        command.update(r.fields)
        if r.timeout_s is not None:
            command["timeout"] = r.timeout_s
        return {"matcher": r.matcher if r.matcher is not None else "*", "hooks": [command]}

    return native_hooks(registrations, entry)


def write_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .factory/settings.json."""
    path = target.workspace / ".factory" / "settings.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


def write_hooks_json(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .factory/hooks.json, where Factory's current docs put hooks (settings.json's
    "hooks" only when it is absent): keyed by event at its top, no "hooks" key (0.225.2 reads no
    hook from a file in settings.json's shape)."""
    path = target.workspace / ".factory" / "hooks.json"
    write_json(path, settings_hooks(registrations))
    return Written([path])


def write_user_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's ~/.factory/settings.json, merged into (session_env writes the model there)."""
    return Written([merge_json(target.home, USER_SETTINGS, {"hooks": settings_hooks(registrations)})])


# A repository's own hooks as droid reads them (probe check): the project's settings and its
# hooks.json (keyed by event at its top), Claude Code's shape, the timeout in seconds (its hooks
# reference), matchers found anywhere in the tool name (measured: `ecut` fires for `Execute`).
# Measured: 0.225.2 runs none of settings.json's hooks beside a hooks.json; 0.99.0 reads no hooks.json.
HOOK_SOURCES = (
    HookSource(".factory/settings.json", "claude", ("command",), "timeout", matchers="search"),
    HookSource(".factory/hooks.json", "claude", ("command",), "timeout", matchers="search", events_at_top=True),
)


class Droid(Agent):
    name = "droid"
    package = "@factory/cli-linux-x64"  # the binary itself: see the module's docstring
    events = {k: v for k, v in PASCAL_EVENTS.items() if k in EVENTS}
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_settings,
        "user": write_user_settings,
        "hooks-json": write_hooks_json,
    }
    hook_sources = HOOK_SOURCES
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["Execute"],
        "create_file": ["Create"],
        "edit_file": ["Edit"],
        "view_file": ["Read"],
    }
    tool_kinds = frozenset({"shell", "create_file", "edit_file", "view_file"})
    absolute_paths = True  # its Read: "The absolute path to the file to read (must be absolute, not relative)"
    # Its hooks get FACTORY_PROJECT_DIR, DROID_PROJECT_DIR, CLAUDE_PROJECT_DIR (0.225.2); a marker
    # added here is a new key in every committed env record of every agent (as Qwen's).
    hook_env_markers = ()
    project_dir_vars = ("FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
    extension: ExtensionSurface | None = None
    # The model's URL is read from the user settings only (customModels[].baseUrl; `${VAR}` is
    # expanded in apiKey, not in baseUrl: 0.225.2 then fails "Exec failed"), so the port goes
    # into that file when the run starts.
    port_files = (USER_SETTINGS,)
    # A Bun binary of 155-254 MB: about 1 s to its first model request on 2 cores, idle.
    startup_s = 10.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / "@factory" / "cli-linux-x64" / "bin" / "droid"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        pass

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        # The scripted model as its one custom model; merged into: the user's hooks may be
        # there already (config=user).
        model = {
            "model": "probe-model",
            "displayName": DISPLAY_NAME,
            "baseUrl": "http://127.0.0.1:{port}/v1",
            "apiKey": "probe-offline-placeholder",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096,
        }
        merge_json(home, USER_SETTINGS, {"customModels": [model]})
        return {
            # 0.99.0 refuses to start without a Factory key ("Authentication failed. Please log
            # in using /login or set a valid FACTORY_API_KEY"), though it never sends it here.
            "FACTORY_API_KEY": "probe-offline-placeholder",
            "FACTORY_DROID_AUTO_UPDATE_ENABLED": "false",
            "FACTORY_DISABLE_KEYRING": "1",  # credentials on disk, in the run's HOME
        }

    # preapproved: --auto high (every command short of the ones it always blocks); none: no
    # flag, its read-only default; the lower autonomy levels; every permission check skipped.
    permission_setups = ("preapproved", "none", "auto-low", "auto-medium", "skip-permissions-unsafe")

    def approval(self, permissions: str) -> list[str]:
        if permissions == "preapproved":
            return ["--auto", "high"]
        if permissions.startswith("auto-"):
            return ["--auto", permissions.removeprefix("auto-")]
        return [] if permissions == "none" else [f"--{permissions}"]

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "exec", *self.approval(permissions), "-m", MODEL_ID, prompt]

    # Interactive sessions are not driven yet: no markers measured.
    sessions = ("print",)
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "1", "no": "\x1b"},
        "exit": "/quit",
        "resume": ["--resume", "--last"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), *self.approval(permissions)]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        try:  # the session's own file: read as untrusted
            m = LOG_VERSION_RE.search(untrusted.text(home, LOG, LOG_HEAD, "head")) if untrusted.exists(home, LOG) else None
        except untrusted.Refused:
            m = None
        if m:
            return m.group(1), "CLI log: version tag"
        return None, "neither a model request nor the CLI's log named the version"


AGENT: Agent = Droid()  # mypy checks the module against the protocol
