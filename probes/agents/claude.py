"""Claude Code (`@anthropic-ai/claude-code`): Anthropic messages against the scripted model."""

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
from probes.agents.events import CLAUDE_EVENTS, PASCAL_EVENTS

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

UA_RE = re.compile(r"claude-cli/(\d+\.\d+\.\d+\S*)")
AI_AGENT_RE = re.compile(r"claude-code_(\d+)-(\d+)-(\d+)")


# A repository's own hooks as Claude Code reads them (probe check).
CLAUDE_SETTINGS = HookSource(".claude/settings.json", "claude", ("command",), "timeout")
HOOK_SOURCES = (CLAUDE_SETTINGS, HookSource(".claude/settings.local.json", "claude", ("command",), "timeout"))
USER_SETTINGS = ".claude/settings.json"  # under HOME


def settings_hooks(registrations: Sequence[Registration]) -> dict[str, list[Any]]:
    """The "hooks" of a Claude Code settings file (and a plugin's hooks/hooks.json): per
    native event a list of {matcher, hooks: [...]}, "*" when the recipe gives no matcher."""

    def entry(r: Registration) -> dict[str, Any]:
        command: dict[str, Any]
        if r.handler_type == "command":
            command = {"type": "command", "command": r.command}
        elif r.handler_type == "http":
            command = {"type": "http", "url": r.url}
        elif r.handler_type == "mcp_tool":  # server, tool and input are in its fields (plan.register_hooks)
            command = {"type": "mcp_tool"}
        else:
            command = {"type": r.handler_type, "prompt": r.prompt}
        command.update(r.fields)
        if r.timeout_s is not None:
            command["timeout"] = r.timeout_s
        return {"matcher": r.matcher if r.matcher is not None else "*", "hooks": [command]}

    return native_hooks(registrations, entry)


def write_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The repository's .claude/settings.json (Copilot reads it too)."""
    path = target.workspace / ".claude" / "settings.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


def write_local_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The repository's .claude/settings.local.json (a person's own, not committed)."""
    path = target.workspace / ".claude" / "settings.local.json"
    write_json(path, {"hooks": settings_hooks(registrations)})
    return Written([path])


def write_user_settings(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's ~/.claude/settings.json, merged into (prepare_interactive writes it too)."""
    return Written([merge_json(target.home, USER_SETTINGS, {"hooks": settings_hooks(registrations)})])


# The permission rules a setup can write (catalog/setup.py `rules`): settings' "permissions".
RULES: Mapping[str, Mapping[str, list[str]]] = {
    "allow-bash": {"allow": ["Bash"]},
    "ask-bash": {"ask": ["Bash"]},
    "deny-bash": {"deny": ["Bash"]},  # the whole tool: it is not offered to the model at all
    "ask-bash-echo": {"ask": ["Bash(echo:*)"]},  # the commands the scripted model runs (echo ran > ...)
    "deny-bash-echo": {"deny": ["Bash(echo:*)"]},
}
# The settings file the rules go to under each config location (root "home" or "workspace",
# the path under it): the hooks' own, or the project's where that file holds no settings (a plugin).
RULE_FILES: Mapping[str, tuple[str, str]] = {
    NATIVE: ("workspace", ".claude/settings.json"),
    "project-local": ("workspace", ".claude/settings.local.json"),
    "user": ("home", USER_SETTINGS),
    "plugin": ("workspace", ".claude/settings.json"),
}


PLUGIN_DIR = "probe-plugin"  # under HOME


def write_plugin(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """A plugin directory, $HOME/probe-plugin: its manifest (.claude-plugin/plugin.json) and
    hooks/hooks.json in the settings' shape, loaded for the session by --plugin-dir (in the
    --help of 2.1.84, 2.1.296 and 2.1.332). Its hooks get CLAUDE_PLUGIN_ROOT, this directory
    (measured on 2.1.332: env-pretool@config=plugin)."""
    root = target.home / PLUGIN_DIR
    manifest, hooks = root / ".claude-plugin" / "plugin.json", root / "hooks" / "hooks.json"
    write_json(manifest, {"name": "probe", "version": "0.0.0"})
    write_json(hooks, {"hooks": settings_hooks(registrations)})
    return Written([manifest, hooks], ("--plugin-dir", str(root)))


class Claude(Agent):
    name = "claude"
    package = "@anthropic-ai/claude-code"
    events = {**PASCAL_EVENTS, **CLAUDE_EVENTS}
    # Its tools per kind (Task: the subagent tool of releases before Agent).
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["Bash"],
        "create_file": ["Write"],
        "edit_file": ["Edit"],
        "view_file": ["Read"],
        "subagent": ["Task", "Agent"],
        "mcp": ["mcp__probe__probe_tool"],  # the probe MCP server's tool (runner/mcp_server.py)
        # Offered up front with ENABLE_TOOL_SEARCH=false (else deferred: loaded by ToolSearch);
        # the task tools also need CLAUDE_CODE_ENABLE_TODO_TOOLS=1 under a model they do not know
        "task_create": ["TaskCreate"],
        "task_update": ["TaskUpdate"],
        "enter_worktree": ["EnterWorktree"],
        "exit_worktree": ["ExitWorktree"],
    }
    hook_env_markers = ("CLAUDE_PROJECT_DIR", "CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_PLUGIN_ROOT")
    project_dir_vars = ("CLAUDE_PROJECT_DIR",)
    # The project's settings, a person's local ones, the user's, and a plugin (--plugin-dir).
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_settings,
        "project-local": write_local_settings,
        "user": write_user_settings,
        "plugin": write_plugin,
    }
    extension: ExtensionSurface | None = None
    handler_types = frozenset({"command", "prompt", "agent", "http", "mcp_tool"})
    handler_fields = frozenset(
        {
            "if",
            "async",
            "asyncRewake",
            "shell",
            "statusMessage",
            "onFailure",
            "model",
            "headers",
            "allowedEnvVars",
            "server",
            "tool",
            "input",
        }
    )
    hook_sources = HOOK_SOURCES

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "claude"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        pass

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": "probe-offline-placeholder",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }

    # preapproved: the tools allowed by name; none: no flag (the default mode); else a
    # --permission-mode (an older release that lacks one refuses it: the run says so)
    permission_setups = ("preapproved", "none", "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto")

    rule_setups = ("none", *RULES)

    def write_rules(self, target: ConfigTarget, rules: str, config: str) -> list[Path]:
        """Its settings' `permissions.allow|ask|deny`, merged into the file the hooks went to."""
        if rules == "none":
            return []
        where, rel = RULE_FILES[config]
        root = target.home if where == "home" else target.workspace
        return [merge_json(root, rel, {"permissions": dict(RULES[rules])}, deep=True)]

    def allowed(self, permissions: str) -> list[str]:
        if permissions == "preapproved":
            return ["--allowedTools", "Bash,Write,Edit,Read,Agent"]
        return [] if permissions == "none" else ["--permission-mode", permissions]

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "-p", prompt, *self.allowed(permissions)]

    def mcp_argv(self, config: Path, tools: Sequence[str]) -> tuple[str, ...]:
        """Its MCP servers from that file only (--mcp-config, --strict-mcp-config: in the
        --help of 2.1.118 and 2.1.332); the server's tools allowed (--allowedTools adds up)."""
        return ("--mcp-config", str(config), "--strict-mcp-config", "--allowedTools", ",".join(tools))

    # Interactive sessions (measured on 2.1.328): markers on the rendered screen, keys.
    tty: Tty = {
        "markers": {
            # an empty input box between two rules; after a turn that ended on an API error it
            # shows a placeholder (2.1.332: "Resend your message to try again"), before 2.1.5x a
            # suggestion (2.1.48: Try "fix lint errors"); before 2.1 its prompt is ">" (2.0.76)
            "ready": r"─\n[❯>][ \xa0]*(Resend your message to try again|Try \"[^\"\n]*\")?[ \xa0]*\n─",
            "busy": r"esc to interrupt",
            "approval": r"Do you want to proceed\?",
            # a hook event or value it does not know (2.1.150: Unknown hook event
            # "DirectoryAdded" was ignored), "1. Continue" chosen
            "notice": r"Settings Warning[\s\S]*Continue[\s\S]*Enter to confirm",
        },
        "keys": {"yes": "1", "no": "\x1b"},  # "2" is not always No: Esc is
        "exit": "/exit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), *self.allowed(permissions)]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        """Skip every first-run screen: onboarding (which exits when offline), the API-key
        approval, folder trust, the auto-mode nudge; start in the manual permission mode."""
        key = env["ANTHROPIC_API_KEY"] or ""
        write_json(
            home / ".claude.json",
            {
                "hasCompletedOnboarding": True,
                "hasSeenAutoDefaultNudge": True,
                "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
                "projects": {cwd: {"hasTrustDialogAccepted": True}},
            },
        )
        merge_json(home, USER_SETTINGS, {"permissions": {"defaultMode": "default"}}, deep=True)  # keeps user hooks, rules
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        for inv in invocations:
            m = AI_AGENT_RE.search(inv.env.get("AI_AGENT", ""))
            if m:
                return ".".join(m.groups()), "hook env AI_AGENT"
        return None, "neither a model request nor a hook reported the version"


AGENT: Agent = Claude()  # mypy checks the module against the protocol
