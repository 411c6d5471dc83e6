"""Qwen Code (`@qwen-code/qwen-code`): a fork of Gemini CLI whose hooks take Claude Code's
shape. OpenAI chat completions, streamed, against the scripted model (OPENAI_BASE_URL,
`--auth-type openai`), a placeholder key, hooks in the project's or the user's
.qwen/settings.json."""

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
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

# QwenCode/0.24.4 (linux; x64): the CLI's version, on every model request
UA_RE = re.compile(r"QwenCode/(\d+\.\d+\.\d+[^\s(]*)")

USER_SETTINGS = ".qwen/settings.json"  # under HOME
PACKAGE_JSON = "node_modules/@qwen-code/qwen-code/package.json"  # under the install's prefix

# Releases whose hooks are off unless `hooksConfig.enabled` says otherwise (Gemini CLI's switch,
# which it kept): measured 0.12.0 fires no hook without it. Later releases have no such key.
HOOKS_SWITCH_BEFORE = (0, 15, 0)


def settings_hooks(registrations: Sequence[Registration], unit_s: float = 0.001) -> dict[str, list[Any]]:
    """The "hooks" of a Qwen Code settings file, Claude Code's shape: per native event a list
    of {matcher, hooks: [...]}, "*" when the recipe gives no matcher. The timeout is written in
    milliseconds: releases before 0.24 read it so (Gemini CLI's unit), and 0.24 reads a value of
    1000 or more as the old milliseconds (seconds below it), so one number means the same
    timeout on every release (FINDINGS: a Claude-shaped timeout in seconds does not). `unit_s`:
    the unit written (1: seconds, as Claude Code's docs and Qwen Code 0.24's write it)."""

    def entry(r: Registration) -> dict[str, Any]:
        command: dict[str, Any] = {"type": "command", "command": r.command, "name": r.key}
        command.update(r.fields)
        if r.timeout_s is not None:
            timeout = r.timeout_s / unit_s
            command["timeout"] = round(timeout) if timeout == round(timeout) else timeout
        return {"matcher": r.matcher if r.matcher is not None else "*", "hooks": [command]}

    return native_hooks(registrations, entry)


def write_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .qwen/settings.json."""
    path = target.workspace / ".qwen" / "settings.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


def write_settings_seconds(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's .qwen/settings.json with each timeout in seconds, as a Claude Code user
    writes it (config=project-seconds): what releases that read milliseconds make of that."""
    path = target.workspace / ".qwen" / "settings.json"
    write_json(path, {"hooks": settings_hooks(registrations, unit_s=1.0)})
    return Written([path])


def write_user_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's ~/.qwen/settings.json, merged into (session_env writes it too)."""
    return Written([merge_json(target.home, USER_SETTINGS, {"hooks": settings_hooks(registrations)})])


def installed_version(prefix: Path) -> tuple[int, ...] | None:
    """The installed package's version as numbers (None: unreadable), to pick a release's switches."""
    try:
        version = json.loads(untrusted.text(prefix, PACKAGE_JSON, 1024 * 1024))["version"]
        return tuple(int(p) for p in re.findall(r"\d+", str(version).split("-")[0])[:3])
    except (OSError, untrusted.Refused, ValueError, KeyError, TypeError):
        return None


# A repository's own hooks as Qwen Code reads them (probe check): the project's settings in
# Claude Code's shape; matchers found anywhere in the tool name (measured, docs/qwen.md); under
# `hooks`, `enabled`, `disabled` and `notifications` are switches, not events, and a hook without
# "type" is discarded (its bundle's HOOKS_CONFIG_FIELDS and validateHookConfig, 0.24.4). The
# timeout is read in milliseconds, as releases to 0.15.6 read it and 0.24.4 reads 1000 and up
# (0.24.4 reads a value below 1000 as seconds: the check reports it 1000 times too short).
HOOK_SOURCES = (
    HookSource(
        ".qwen/settings.json",
        "claude",
        ("command",),
        "timeout",
        timeout_unit_s=0.001,
        matchers="search",
        not_events=("enabled", "disabled", "notifications"),
        type_required=True,
    ),
)


class Qwen(Agent):
    name = "qwen"
    package = "@qwen-code/qwen-code"
    # Claude Code's names (its bundle's HookEventName), those the harness has canonical events for.
    events = {k: v for k, v in PASCAL_EVENTS.items()}
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_settings,
        "user": write_user_settings,
        "project-seconds": write_settings_seconds,
    }
    hook_sources = HOOK_SOURCES
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["run_shell_command"],
        "create_file": ["write_file"],
        "edit_file": ["edit", "replace"],
        "view_file": ["read_file"],
    }
    tool_kinds = frozenset({"shell", "create_file", "edit_file", "view_file"})
    absolute_paths = True  # "File path must be absolute: probe-created-1.txt" (0.24.4), before any hook
    # Its hooks get QWEN_PROJECT_DIR and QWEN_CODE_STARTUP_VERSION (0.24.4), but a marker added
    # here is a new key in every committed env record of every agent: left for a reclassify.
    hook_env_markers = ()
    project_dir_vars = ("QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")
    expanded_vars = ("QWEN_PROJECT_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")  # replaced in the command (0.24.4)
    extension: ExtensionSurface | None = None
    model = "probe-model"
    # To its first model request: 5.7 to 8.7 s at load 7 on 2 cores; an always-blocking Stop
    # hook's 8 rounds on 0.23.1 ran out a 25 s budget there.
    startup_s = 15.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "qwen"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        pass

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        # The user settings: no telemetry, usage statistics, update checks or nags; on releases
        # that gate hooks, hooks on. `disableAllHooks` is left alone (a recipe may set it).
        # Merged into: the user's hooks may be there already (config=user).
        settings: dict[str, Any] = {
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
        }
        version = installed_version(prefix)
        if version is not None and version < HOOKS_SWITCH_BEFORE:
            settings["hooksConfig"] = {"enabled": True}
        merge_json(home, USER_SETTINGS, settings)
        return {
            "OPENAI_BASE_URL": "http://127.0.0.1:{port}/v1",
            "OPENAI_API_KEY": "probe-offline-placeholder",
            "OPENAI_MODEL": self.model,
        }

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "-p", prompt, *self.common(permissions)]

    def common(self, permissions: str) -> list[str]:
        return ["--auth-type", "openai", "-m", self.model, *self.approval(permissions)]

    # Interactive sessions are not driven yet: no markers measured.
    sessions = ("print",)
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "1", "no": "\x1b"},
        "exit": "/quit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), *self.common(permissions)]

    permission_setups = ("preapproved", "none", "auto-edit", "plan")

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
        for inv in invocations:  # 0.24.4 gives its hooks the version it started as
            if version := inv.env.get("QWEN_CODE_STARTUP_VERSION"):
                return version, "hook env QWEN_CODE_STARTUP_VERSION"
        return None, "neither a model request nor a hook named the version"


AGENT: Agent = Qwen()  # mypy checks the module against the protocol
