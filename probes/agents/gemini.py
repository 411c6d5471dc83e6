"""Gemini CLI (`@google/gemini-cli`): the Gemini API against the scripted model
(GOOGLE_GEMINI_BASE_URL), an API key that is a placeholder, hooks in the project's
.gemini/settings.json."""

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

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

# GeminiCLI/0.45.2/probe-model (linux; x64), GeminiCLI-tui/0.61.0/...: the CLI's version
UA_RE = re.compile(r"GeminiCLI(?:-[\w-]+)?/(\d+\.\d+\.\d+[^/\s]*)")


def settings_hooks(registrations: Sequence[Registration]) -> dict[str, list[Any]]:
    """The "hooks" of a settings file: per native event a list of {matcher, hooks}; a timeout
    in milliseconds; no matcher means every tool."""

    def entry(r: Registration) -> dict[str, Any]:
        command: dict[str, Any] = {"type": "command", "command": r.command, "name": r.key}
        if r.timeout_s is not None:
            command["timeout"] = round(r.timeout_s * 1000)
        group: dict[str, Any] = {"hooks": [command]}
        if r.matcher is not None:
            group["matcher"] = r.matcher
        return group

    return native_hooks(registrations, entry)


def write_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .gemini/settings.json."""
    path = target.workspace / ".gemini" / "settings.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


USER_SETTINGS = ".gemini/settings.json"  # under HOME


def write_user_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's ~/.gemini/settings.json, merged into (session_env writes it too)."""
    return Written([merge_json(target.home, USER_SETTINGS, {"hooks": settings_hooks(registrations)})])


# A repository's own hooks as Gemini CLI reads them (probe check): the project's settings, each
# event a list of {matcher, hooks: [...]}, a timeout in milliseconds, matchers regular
# expressions found anywhere in the tool name (unanchored, measured on 0.45.2 and 0.61.0).
# Older releases kept the hooks' switches under `hooks` (since moved to `hooksConfig`).
# A hook without "type" is discarded (0.61.0 says so on stderr).
HOOK_SOURCES = (
    HookSource(
        ".gemini/settings.json",
        "claude",
        ("command",),
        "timeout",
        timeout_unit_s=0.001,
        matchers="search",
        not_events=("enabled", "disabled", "notifications"),
        type_required=True,  # 0.61.0: "Invalid hook BeforeTool from project type: undefined", discarded
    ),
)


class Gemini(Agent):
    name = "gemini"
    package = "@google/gemini-cli"
    events = {
        "pre_tool": "BeforeTool",
        "post_tool": "AfterTool",
        "session_start": "SessionStart",
        "session_end": "SessionEnd",
        "prompt_submit": "BeforeAgent",
        "stop": "AfterAgent",
        "pre_compact": "PreCompress",
        "notification": "Notification",
        "before_model": "BeforeModel",
        "after_model": "AfterModel",
        "tool_selection": "BeforeToolSelection",
    }
    config_locations: Mapping[str, ConfigWriter] = {NATIVE: write_settings, "user": write_user_settings}
    hook_sources = HOOK_SOURCES
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["run_shell_command"],
        "create_file": ["write_file"],
        "edit_file": ["replace"],
        "view_file": ["read_file"],
    }
    project_dir_vars = ("GEMINI_PROJECT_DIR",)
    expanded_vars = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")  # replaced in a hook's command before it runs
    tool_kinds = frozenset({"shell", "create_file", "edit_file", "view_file"})  # no subagent tool the scripted model knows
    extension: ExtensionSurface | None = None
    model = "probe-model"  # named on the command line: no model-routing request first
    startup_s = 20.0  # to its first model request: 8 s at load 10 on 2 cores, 19 s at load 30

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "gemini"

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        # The user settings: API-key auth (else "Invalid auth method selected", exit 41), no
        # telemetry, usage statistics, update checks or nags; hooks on (older releases gate them).
        # Merged into: the user's hooks may be there already (config=user).
        merge_json(
            home,
            USER_SETTINGS,
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "hooksConfig": {"enabled": True},
            },
        )
        return {
            "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:{port}",
            "GEMINI_API_KEY": "probe-offline-placeholder",
            "GEMINI_CLI_TRUST_WORKSPACE": "true",  # project hooks load only in a trusted folder
            "GEMINI_TELEMETRY_ENABLED": "false",
        }

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "-p", prompt, "-m", self.model, *self.approval(permissions)]

    # Interactive sessions (measured on 0.45.2 and 0.61.0): no first-run screen once the
    # settings say API-key auth and the env trusts the folder (session_env).
    sessions = ("print", "interactive")
    tty: Tty = {
        "markers": {
            "ready": r"Type your message or @path/to/file",  # the empty input box's placeholder
            "busy": r"esc to cancel",  # "(esc to cancel, 2s)" while the model responds
            "approval": r"Allow execution of|Allow once",  # "Allow execution of [Shell]?", "1. Allow once"
        },
        "keys": {"yes": "1", "no": "\x1b"},  # Esc (no not measured)
        "exit": "/quit",
        "resume": ["--resume", "latest"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "-m", self.model, *self.approval(permissions)]

    permission_setups = ("preapproved", "none", "auto_edit")

    def approval(self, permissions: str) -> list[str]:
        if permissions == "preapproved":
            return ["--yolo"]
        return [] if permissions == "none" else ["--approval-mode", permissions]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        return None, "no model request named the version"


AGENT: Agent = Gemini()  # mypy checks the module against the protocol
