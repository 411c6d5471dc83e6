"""GitHub Copilot CLI (`@github/copilot`): BYOK offline mode against the scripted model."""

from __future__ import annotations

import platform
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from probes.agents.base import (
    NATIVE,
    RUNNER_DIR,
    Agent,
    ConfigTarget,
    ConfigWriter,
    ExtensionSurface,
    Registration,
    Tty,
    Written,
)
from probes.agents.claude import CLAUDE_SETTINGS, write_settings
from probes.agents.config import HookSource, github_hooks, write_github_hooks, write_json
from probes.agents.events import PASCAL_EVENTS
from probes.errors import HarnessError, InputError
from probes.runner import untrusted
from probes.versions import node

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

LOG_HEAD = 1024 * 1024  # the version is said in the log's first lines
LOG_VERSION_RE = re.compile(r"Starting Copilot CLI: (\d+\.\d+\.\d+\S*)")


LOADER_NODE = re.compile(rb"requires Node\.js v(\d+)")  # the launcher's words when it falls back to JavaScript
LOADER_MAX_BYTES = 64 * 1024  # the launcher is 1.5 KB
COPILOT_DIR = ".copilot"  # its COPILOT_HOME, under HOME


def write_hooks_json(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The repository's .github/hooks/*.json."""
    return write_github_hooks(target.workspace, registrations, command="bash", timeout="timeoutSec", header={"version": 1})


def write_user_hooks(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's hooks folder, $COPILOT_HOME/hooks/*.json (~/.copilot/hooks/ by default; the
    docs' hooks reference), in the repository's shape: a file of its own, nothing to merge."""
    path = target.home / COPILOT_DIR / "hooks" / "probe.json"
    write_json(path, github_hooks(registrations, command="bash", timeout="timeoutSec", header={"version": 1}))
    return Written([path])


class Copilot(Agent):
    name = "copilot"
    package = "@github/copilot"
    # canonical -> native camelCase key; PascalCase aliases with `casing: pascal`
    events = {
        "pre_tool": "preToolUse",
        "post_tool": "postToolUse",
        "post_tool_failure": "postToolUseFailure",
        "session_start": "sessionStart",
        "session_end": "sessionEnd",
        "prompt_submit": "userPromptSubmitted",
        "stop": "agentStop",
        "subagent_start": "subagentStart",
        "subagent_stop": "subagentStop",
        "pre_compact": "preCompact",
        "permission_request": "permissionRequest",
        "notification": "notification",
        "error": "errorOccurred",
        "prompt_transformed": "userPromptTransformed",
        "pre_mcp_tool": "preMcpToolCall",  # before an MCP tool request is sent (1.0.51)
    }
    # Its tools per kind (powershell: on Windows; str_replace_editor: older releases).
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["bash", "powershell"],
        "create_file": ["create"],
        "edit_file": ["edit", "str_replace_editor"],
        "view_file": ["view"],
        "subagent": ["task", "agent"],
        "mcp": ["probe-probe_tool"],  # the probe MCP server's tool: Copilot names it SERVER-TOOL
    }
    hook_env_markers = ("COPILOT_CLI", "COPILOT_CLI_BINARY_VERSION", "COPILOT_PROJECT_DIR", "COPILOT_PLUGIN_ROOT", "COPILOT_HOME")
    project_dir_vars = ("COPILOT_PROJECT_DIR",)
    pascal_events = PASCAL_EVENTS
    # Its own .github/hooks, the repository's .claude/settings.json (PascalCase keys), and the
    # user's hooks folder ($COPILOT_HOME/hooks), which loads in -p where the repository's did
    # not (measured on 1.0.44; github/copilot-cli#3345, fixed in 1.0.49).
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_hooks_json,
        "claude-settings": write_settings,
        "user": write_user_hooks,
    }
    # A prompt hook (sessionStart only) is text the CLI submits as if typed, in a new
    # interactive session (the CLI hooks reference; changelog 0.0.422): not a question it asks.
    # An http hook to a loopback URL needs COPILOT_HOOK_ALLOW_LOCALHOST=1 (its runtime's own message).
    handler_types = frozenset({"command", "prompt", "http"})
    prompt_hooks = "submitted"
    interactive_only_types = frozenset({"prompt"})  # "only in interactive sessions" (its hooks reference)
    recorder_names: Mapping[str, str] = {"probe.json": "probe-recorder.json"}  # .github/hooks/: a name of its own
    # The same two files, as `probe check` reads a repository's own.
    hook_sources = (
        HookSource(".github/hooks/*.json", "github", ("bash", "command"), "timeoutSec"),
        replace(CLAUDE_SETTINGS, matcher_names=(("bash", "Bash"),)),
    )
    # Measured on 1.0.71, 1.0.80 and 1.0.92: extensions load only behind the EXTENSIONS
    # feature flag (off by default). In -p mode the user's extensions load with it; the
    # project's (.github/extensions) also need GITHUB_COPILOT_PROMPT_MODE_EXTENSIONS=true and
    # add two tools to the model's list, so the harness uses the user's.
    extension: ExtensionSurface | None = ExtensionSurface(
        # canonical -> the SDK extension's handler (joinSession({hooks})); newer SDKs add handlers
        events={
            "pre_tool": "onPreToolUse",
            "post_tool": "onPostToolUse",
            "post_tool_failure": "onPostToolUseFailure",
            "prompt_submit": "onUserPromptSubmitted",
            "prompt_transformed": "onUserPromptTransformed",
            "session_start": "onSessionStart",
            "session_end": "onSessionEnd",
            "error": "onErrorOccurred",
            "stop": "onAgentStop",
            "subagent_start": "onSubagentStart",
            "subagent_stop": "onSubagentStop",
        },
        source=RUNNER_DIR / "extension.mjs",  # imports the SDK the CLI bundles
        folder=".copilot/extensions/probe",  # $COPILOT_HOME/extensions/probe
        env={"COPILOT_CLI_ENABLED_FEATURE_FLAGS": "EXTENSIONS"},
        route="user extension ($COPILOT_HOME/extensions/probe) + COPILOT_CLI_ENABLED_FEATURE_FLAGS=EXTENSIONS",
    )

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "copilot"

    def seed_command(self, prefix: Path) -> list[str]:
        """Let the launcher unpack its package once into a seed HOME. Runs then link their
        ~/.cache/copilot/pkg to it: no 190 MB unpack per run, and the only package the
        launcher can find is this version's (it runs the newest one it finds)."""
        home = prefix / "seed-home"
        return [
            "env",
            f"HOME={home}",
            f"XDG_CACHE_HOME={home / '.cache'}",
            "COPILOT_AUTO_UPDATE=false",
            str(self.binary_path(prefix)),
            "--version",
        ]

    def node_wanted(self, prefix: Path) -> str:
        """Its launcher runs the platform's native package, else the JavaScript build, on the Node
        the launcher asks for (`requires Node.js v24` in 1.0.56's): the registry here serves no
        native package for many releases (1.0.56, 1.0.58, ...), whose installs then need it."""
        if (prefix / "node_modules" / "@github" / f"copilot-linux-{node.ARCH.get(platform.machine().lower(), '')}").is_dir():
            return ""
        try:
            with open(self.binary_path(prefix), "rb") as f:
                m = LOADER_NODE.search(f.read(LOADER_MAX_BYTES))
        except OSError:
            return ""
        return f">={int(m.group(1))}" if m else ""

    def prepare_install(self, prefix: Path) -> None:
        (prefix / "seed-home").mkdir()
        try:
            subprocess.run(self.seed_command(prefix), capture_output=True, timeout=120, check=True, env=node.env_with(prefix))
        except subprocess.CalledProcessError as e:  # its own words say why (e.g. the Node.js it needs)
            said = [line.strip() for line in (e.stderr or e.stdout or b"").decode(errors="replace").splitlines() if line.strip()]
            why = said[-1][:200] if said else f"exit {e.returncode}"
            raise HarnessError(f"copilot did not start after install: {why}") from None
        except (OSError, subprocess.SubprocessError) as e:
            raise HarnessError(f"copilot did not start after install ({e})") from None

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        table = self.pascal_events if casing == "pascal" else self.events
        return table.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        link = home / ".cache" / "copilot" / "pkg"  # the seed made at install (or image build)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(prefix / "seed-home" / ".cache" / "copilot" / "pkg")
        return {
            "COPILOT_HOME": str(home / COPILOT_DIR),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:{port}/v1",
            "COPILOT_PROVIDER_API_KEY": "probe-offline-placeholder",
            "COPILOT_MODEL": "probe-model",
            "COPILOT_ALLOW_ALL": "true",  # exactly "true": also trusts the folder, so repo hooks load
            "COPILOT_AUTO_UPDATE": "false",
        }

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        # -p needs --allow-all-tools: no pre-approval is a terminal session's (interactive)
        if permissions != "preapproved":
            raise InputError("copilot -p needs --allow-all-tools: permissions=none runs with session=interactive")
        return [str(self.binary_path(prefix)), "-p", prompt, "--allow-all-tools", "--no-auto-update"]

    def mcp_argv(self, config: Path, tools: Sequence[str]) -> tuple[str, ...]:
        """The probe's MCP server added to the user's (--additional-mcp-config @FILE, an
        mcpServers file); -p's --allow-all-tools already allows its tools."""
        return ("--additional-mcp-config", f"@{config}")

    # Interactive sessions (measured on 1.0.80 and 1.0.92): markers on the rendered screen, keys.
    tty: Tty = {
        "markers": {
            # empty box, idle footer; up to 1.0.2x (measured on 1.0.10, 1.0.24) the box's placeholder,
            # the mode hint, and the model on the status line (1.0.0-1.0.7, which ask to sign in, show none)
            "ready": r"─\n❯[ \xa0]*\n─+\n[^\n]*/ commands · \? help"
            r"|probe-model\n─+\n❯[ \xa0]+Type @ to mention files[^\n]*\n─+\n shift\+tab switch mode",
            "busy": r"Working|esc (interrupt|edit prompt)",
            "approval": r"Do you want to allow this tool call\?|Do you want to run this command\?",
            # 1.0.0-1.0.7 in a terminal ask for a GitHub login (its provider variables serve -p only)
            "stuck": r"Please use /login to sign in",
        },
        "keys": {"yes": "1", "no": "\x1b"},
        "exit": "/exit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        allow = ["--allow-all-tools"] if permissions == "preapproved" else []
        return [str(self.binary_path(prefix)), "--no-auto-update", *allow]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        """Trust the workspace (no trust dialog; repo hooks load only in a trusted folder)
        without COPILOT_ALLOW_ALL, which would also approve every tool."""
        write_json(home / ".copilot" / "config.json", {"trustedFolders": [cwd]})
        return {"COPILOT_ALLOW_ALL": None}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        for inv in invocations:
            v = inv.env.get("COPILOT_CLI_BINARY_VERSION")
            if v:
                return v, "hook env COPILOT_CLI_BINARY_VERSION"
        for name in untrusted.names(home, ".copilot/logs"):  # the session's: read as untrusted
            try:
                m = LOG_VERSION_RE.search(untrusted.text(home, f".copilot/logs/{name}", LOG_HEAD, "head"))
            except untrusted.Refused:
                continue
            if m and name.endswith(".log"):
                return m.group(1), "CLI log: Starting Copilot CLI"
        return None, "neither a hook nor the CLI's log reported the version"


AGENT: Agent = Copilot()  # mypy checks the module against the protocol
