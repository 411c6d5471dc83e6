"""What an agent is: everything the harness needs from one CLI, as one Protocol. A module in
this package that defines `AGENT` (an object with these members), listed in the registry
(__init__.py), is an agent; nothing outside probes/agents/ names one. What an agent can do
beyond command hooks in its own config is declared as data (`extension`, `config_locations`,
`hook_sources`), never probed for."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict

from probes.versions import node

if TYPE_CHECKING:
    from probes.agents.config import HookSource
    from probes.evidence.model import Invocation, ModelRequest
    from probes.runner.contract import Markers
    from probes.versions.spec import Published

NATIVE = "project"  # the config location every agent has: its own project hook config


@dataclass(frozen=True)
class Registration:
    """One hook entry in the agent's native config."""

    key: str  # names the entry in the instrumented hook's sidecar
    native: str  # native event key, e.g. preToolUse, PreToolUse
    command: str
    timeout_s: float | None
    matcher: str | None
    raw: dict[str, Any] | None = None  # an entry written as given instead of the instrumented hook
    handler_type: str = "command"  # prompt: `prompt` is what the CLI asks its model
    prompt: str | None = None
    url: str | None = None  # http: where the CLI delivers it ("{port}": the run's receiver, the scripted model)
    fields: Mapping[str, Any] = field(default_factory=dict)  # the handler's other keys, as the config spells them


@dataclass(frozen=True)
class ConfigTarget:
    """Where a config writer may write: the run's workspace (the project) and its HOME (the
    user's config, a plugin)."""

    workspace: Path
    home: Path


@dataclass(frozen=True)
class Written:
    """What a config writer wrote, and the arguments that make the CLI load it (a plugin's
    directory), appended to the session's argv."""

    files: list[Path]
    argv: tuple[str, ...] = ()
    route: str | None = None  # how hooks reach a CLI that has no command hooks (pi: a relay extension), for the evidence


ConfigWriter = Callable[[ConfigTarget, Sequence[Registration]], Written]
"""Writes command hooks into a config file under the workspace or HOME. A file under HOME
that the agent's session_env or prepare_interactive also writes is merged into (its "hooks"
key set), never overwritten; they merge the same way."""


class Tty(TypedDict):
    """How an interactive session is driven: screen markers, and the keys a person presses."""

    markers: Markers
    keys: dict[str, str]  # an approval's answer ("yes", "no") -> the keys that give it
    exit: str  # typed to quit
    resume: list[str]  # added to the argv to start the last session again


RUNNER_DIR = Path(__file__).parent.parent / "runner"  # the instrumented hook and extension


@dataclass(frozen=True)
class ExtensionSurface:
    """A second hook surface: handlers of an SDK extension, instrumented like the hook."""

    events: Mapping[str, str]  # canonical event -> handler name
    source: Path  # the instrumented extension (it reads probe-ext.json beside it; see plan.py)
    folder: str  # where the extension is installed, relative to HOME
    env: Mapping[str, str]  # what makes the CLI load it
    route: str  # how it is loaded, for the evidence


class Agent(Protocol):
    """Each agent class subclasses this, so the members with a default need no code in it."""

    name: str  # as in AGENT@VERSION and recipes' `agents:`
    package: str  # the npm package
    startup_s: float = 0.0  # added to every recipe's budget (an agent slow to start)
    backends: frozenset[str] | None = None  # the backends it runs with (None: all)
    # The names its tools have for each kind the scripted model plays, most likely first (a
    # release may rename one): the plan hands them to the runner, which calls the first the CLI
    # offers; none offered is a finding (the reply's missing_tool).
    tool_names: Mapping[str, Sequence[str]]
    # The tool kinds the scripted model can call on it (None: all); `probe check` refuses a
    # scenario that needs another.
    tool_kinds: frozenset[str] | None = None
    # Its file tools refuse a relative path (Qwen Code: "File path must be absolute"): the
    # scripted model's paths are then given against the session's working directory.
    absolute_paths: bool = False
    # The name a hook is told for a tool the model calls by another (Codex: exec_command is Bash).
    hook_tool_names: Mapping[str, str] = MappingProxyType({})
    # The environment variables it gives its hooks that say which CLI runs them (the env
    # classifier reports which of every agent's a hook got).
    hook_env_markers: tuple[str, ...] = ()
    # The variables a hook's command may name the project's directory by, and those it replaces
    # in the command itself (Gemini CLI: the command it runs is not the one configured).
    project_dir_vars: tuple[str, ...] = ()
    expanded_vars: tuple[str, ...] = ()
    # The exit codes its docs give a hook to block with (any other non-zero exit is an error).
    block_exit_codes: frozenset[int] = frozenset({2})
    # Where command hooks can be written: NATIVE (its own config), and other CLIs' config
    # files it also reads, each with the writer of that file.
    config_locations: Mapping[str, ConfigWriter]
    extension: ExtensionSurface | None  # None: command hooks only
    # The handler types a recipe's hook may have on it (catalog/parts.py Handler), and the
    # handler fields its config writer writes (beside type, command and timeout).
    handler_types: frozenset[str] = frozenset({"command"})
    # Handler types it runs only in interactive sessions: probe check (-p sessions) says so per hook.
    interactive_only_types: frozenset[str] = frozenset()
    handler_fields: frozenset[str] = frozenset()
    # A prompt hook's text is a question the CLI asks its model ("asked": Claude Code) or input
    # it submits to the conversation as a person would ("submitted": Copilot CLI).
    prompt_hooks: Literal["asked", "submitted"] = "asked"
    # The permission setups it can run under (catalog/setup.py), its default first: preapproved
    # (the tools allowed up front), none (no such flag: the agent's own default), its modes.
    permission_setups: tuple[str, ...] = ("preapproved", "none")
    sessions: tuple[str, ...] = ("print", "interactive")  # how it can be driven: -p, a terminal
    # The permission rules it can be given in the settings its hooks are written to
    # (catalog/setup.py `rules`): none (no rule, the default), or those write_rules writes.
    rule_setups: tuple[str, ...] = ("none",)
    # Files its native config writer names as the harness's own, as `probe recorder` names them
    # in a person's workspace instead (written name -> name there).
    recorder_names: Mapping[str, str] = MappingProxyType({})
    # Files under HOME that session_env writes with "{port}" in them, filled in with the
    # scripted model's port when the run starts (a CLI that takes its model's URL only from a
    # settings file: droid's customModels[].baseUrl).
    port_files: tuple[str, ...] = ()
    # Where `probe check` finds a repository's own hooks (empty: it cannot check this agent).
    hook_sources: tuple[HookSource, ...] = ()
    # For an agent whose hooks are code (plugins): where `probe check` finds a repository's own
    # plugin files (globs), how a plugin gives its handlers ("returned": an object of them, as
    # opencode's; "registered": with on(), as pi's; check/plugins.py), and the plugin package a
    # plugin folder must declare for the CLI not to install it at start (None: none).
    plugin_sources: tuple[str, ...] = ()
    plugin_api: str | None = None
    plugin_package: str | None = None
    # the package.json key under which a plugin folder declares its plugins, which the CLI loads
    # instead of an index (pi: {"pi": {"extensions": [...]}}); None: no such manifest
    plugin_manifest: str | None = None
    tty: Tty

    def binary_path(self, prefix: Path) -> Path: ...

    def seed_command(self, prefix: Path) -> list[str] | None:
        """A command run once after install (in an image build too), or None."""
        return None

    def prepare_install(self, prefix: Path) -> None:
        """What the install needs after npm's (in the staging prefix). Most agents: nothing."""
        return None

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        """The native config key of a canonical event (None: the agent has no such event)."""
        ...

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        """The CLI's isolation: its own HOME-relative state, offline, the scripted model
        ("{port}"), no auto-update. May prepare files under `home`."""
        ...

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        """A prompt-mode (-p) session."""
        ...

    def prepare_permissions(self, prefix: Path, home: Path, permissions: str) -> list[Path]:
        """What a permission setup needs besides the argv, written once the hooks and
        session_env's files are (Codex trusted-hash: its hooks trusted by hash); the files
        written. Most setups: nothing."""
        return []

    def mcp_argv(self, config: Path, tools: Sequence[str]) -> tuple[str, ...]:
        """What makes a session start the probe's MCP server from `config` (an mcpServers
        file) and allow its `tools`, after its argv (empty: it cannot)."""
        return ()

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]: ...

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        """Skip the first-run screens of an interactive session; environment changes (None
        unsets)."""
        ...

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        """The version that actually ran, read back from the run, and where it was read."""
        ...

    def write_rules(self, target: ConfigTarget, rules: str, config: str) -> list[Path]:
        """The permission rules `rules` names (one of rule_setups) merged into the settings the
        hooks were written to under `config` (after its writer, keeping the hooks); the files
        written. none: nothing."""
        return []

    def preflight(self) -> None:
        """What installing it needs from the host besides Node and npm, checked before anything
        is written: InputError naming what is missing and how to get it. Most agents: nothing."""
        return None

    def node_wanted(self, prefix: Path) -> str:
        """The Node.js versions the CLI installed in `prefix` runs on (npm's range syntax; ""
        for any): a newer one than the host's is installed with it (versions/node.py). Most
        agents: their package's engines.node, when Node runs their entry point."""
        return node.package_wants(prefix, self.package, self.binary_path(prefix))

    def install_env(self, staging: Path) -> dict[str, str] | None:
        """npm's environment for installing it (its own Node, say); None: npm's own."""
        return None

    def translate_version(self, asked: str, pub: Published | None) -> str | None:
        """A version in the agent's own scheme as its package's version (VS Code 1.139.1 is
        code-server 4.139.1); None where the version is the package's. With no registry list
        (None) it answers only what it knows offline."""
        return None


def version_from_user_agent(requests: Sequence[ModelRequest], pattern: re.Pattern[str]) -> str | None:
    """The version the first model request's User-Agent names (`pattern`'s first group)."""
    for req in requests:
        m = pattern.search(req.user_agent or "")
        if m:
            return m.group(1)
    return None
