"""pi (`@mariozechner/pi-coding-agent`): a coding agent with no command hooks, only TypeScript
extensions (`pi.on(EVENT, handler)`; a `tool_call` handler can block the call or rewrite its
input). The probe's own extension, `probes/runner/pi_relay.mjs`, written into the workspace's
`.pi/extensions/` (or the user's `~/.pi/agent/extensions/`), relays each hooked event to the
instrumented hook as a CLI runs a command hook and applies its answer, read in Claude Code's
JSON shape, through the extension API (docs/pi.md). OpenAI chat completions, streamed, against
the scripted model: a provider `probe` in the user's ~/.pi/agent/models.json, picked with
`--provider probe --model probe-model`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from probes.agents.config import write_json
from probes.errors import InputError
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

RELAY_SOURCE = RUNNER_DIR / "pi_relay.mjs"
CORE_SOURCE = RUNNER_DIR / "relay_core.mjs"  # shared with opencode's relay; pi loads only *.ts and *.js as extensions
RELAY_NAME = "probe-relay.ts"  # pi discovers *.ts (and *.js) in an extensions folder and loads it with jiti
CONFIG_LINE = "// PROBE-RELAY-CONFIG"  # ends the source's line that holds the relay's config
MODELS = ".pi/agent/models.json"  # under HOME: the scripted model as a provider
USER_EXTENSIONS = ".pi/agent/extensions"  # under HOME
REPORTER_NAME = "probe-version.ts"  # the relay with no hooks: reports the version (session_env)
VERSION_FILE = ".pi/probe-relay.json"  # under HOME: what the relay read of the running pi's version
COST_LOG = ".pi/probe-relay-cost.jsonl"  # under HOME: the relay's own time per relayed event
PROVIDER, MODEL = "probe", "probe-model"
VERSION_MAX = 4096
# Claude Code's default for a command hook with no timeout: the relay's, so a recipe's
# hook without one waits as long as a Claude hook would.
DEFAULT_TIMEOUT_S = 600

# canonical -> pi's extension event (its docs/extensions.md). A prompt is `input` (it can be
# handled, kept from the agent); its context goes in by before_agent_start. Stop is
# agent_end, once per prompt; session end is session_shutdown.
EVENTS = {
    "pre_tool": "tool_call",
    "post_tool": "tool_result",
    "session_start": "session_start",
    "session_end": "session_shutdown",
    "prompt_submit": "input",
    "stop": "agent_end",
    "pre_compact": "session_before_compact",
    "before_model": "before_provider_request",
    "after_model": "after_provider_response",
}


def relay_config(target: ConfigTarget, registrations: Sequence[Registration]) -> dict[str, Any]:
    """What the relay is told: each hook (pi's event, its command, timeout, matcher), the shell
    it starts them with, where it reports pi's version and its own cost."""
    hooks = []
    for r in registrations:
        if r.raw is not None or r.handler_type != "command":
            raise InputError(f"pi's relay runs command hooks only (hook {r.key}: {r.handler_type}, raw={r.raw is not None})")
        hooks.append({"key": r.key, "event": r.native, "command": r.command, "timeout_s": r.timeout_s, "matcher": r.matcher})
    return {
        "hooks": hooks,
        "shell": "/bin/sh",  # as a CLI starts a command hook (the run's jail binds the setup's shell there)
        "default_timeout_s": DEFAULT_TIMEOUT_S,
        "version_file": str(target.home / VERSION_FILE),
        "cost_log": str(target.home / COST_LOG),
    }


def relay_source(config: Mapping[str, Any]) -> str:
    """The relay with its config in place of the source's default."""
    lines = RELAY_SOURCE.read_text().splitlines(keepends=True)
    (i,) = [n for n, line in enumerate(lines) if line.rstrip().endswith(CONFIG_LINE)]
    lines[i] = f"const CONFIG = {json.dumps(config)}; {CONFIG_LINE}\n"
    return "".join(lines)


def write_relay(
    folder: Path, where: str, target: ConfigTarget, registrations: Sequence[Registration], name: str = RELAY_NAME
) -> Written:
    path, core = folder / name, folder / CORE_SOURCE.name  # the relay imports the core beside it
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(relay_source(relay_config(target, registrations)))
    core.write_text(CORE_SOURCE.read_text())
    route = f"relay extension {where}{RELAY_NAME} (probes/runner/pi_relay.mjs) running each hook as a command"
    return Written([path, core], route=route)


def write_project(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's extensions folder, .pi/extensions/ (loaded with no question asked)."""
    return write_relay(target.workspace / ".pi" / "extensions", ".pi/extensions/", target, registrations)


def write_user(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's extensions folder, ~/.pi/agent/extensions/."""
    return write_relay(target.home / USER_EXTENSIONS, "~/.pi/agent/extensions/", target, registrations)


class Pi(Agent):
    name = "pi"
    package = "@mariozechner/pi-coding-agent"
    events = EVENTS
    config_locations: Mapping[str, ConfigWriter] = {NATIVE: write_project, "user": write_user}
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["bash"],
        "create_file": ["write"],
        "edit_file": ["edit"],
        "view_file": ["read"],
    }
    tool_kinds = frozenset({"shell", "create_file", "edit_file", "view_file"})
    hook_env_markers = ()  # pi gives a child process no variable of its own
    extension: ExtensionSurface | None = None  # its extensions are the hooks' route (the relay), not a second surface
    # No permission system ("No permission popups", its README): every tool runs unasked.
    permission_setups = ("preapproved",)
    port_files = (MODELS,)  # the provider's baseUrl is read from models.json only
    # A repository's own extensions, as pi discovers them (core/extensions/loader.js, 0.73.1):
    # .pi/extensions/*.{ts,js}, and a folder's index.ts (else index.js) one level down
    plugin_sources = tuple(f".pi/extensions/{f}" for f in ("*.ts", "*.js", "*/index.ts", "*/index.js"))
    plugin_api = "registered"  # the default export registers handlers with pi.on
    plugin_manifest = "pi"  # readPiManifest: package.json's pi.extensions
    startup_s = 10.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "pi"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        pass

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        provider = {
            "baseUrl": "http://127.0.0.1:{port}/v1",
            "api": "openai-completions",
            "apiKey": "probe-offline-placeholder",
            "models": [
                {"id": MODEL, "name": "Probe", "reasoning": False, "input": ["text"], "contextWindow": 128000, "maxTokens": 4096}
            ],
        }
        write_json(home / MODELS, {"providers": {PROVIDER: provider}})
        # The relay with no hooks, in the user's extensions folder: it reports the running pi's
        # version even when pi loads no project extension (a session started in a subdirectory).
        write_relay(home / USER_EXTENSIONS, "", ConfigTarget(workspace=home, home=home), [], REPORTER_NAME)
        return {
            "PI_OFFLINE": "1",  # no update check, package check or install ping (0.73.1's docs)
            "PI_SKIP_VERSION_CHECK": "1",  # the older releases' only switch
            "PI_TELEMETRY": "0",
        }

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        if permissions != "preapproved":
            raise InputError("pi has no permission setups: every tool runs unasked (permissions=preapproved)")
        return [str(self.binary_path(prefix)), "-p", "--provider", PROVIDER, "--model", MODEL, prompt]

    # Interactive sessions are not driven yet: no markers measured.
    sessions = ("print",)
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "y", "no": "\x1b"},
        "exit": "/quit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "--provider", PROVIDER, "--model", MODEL]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        """pi says its version on no request; the relay, loaded into the running pi, wrote what
        that pi says of itself (its VERSION export, what `pi --version` prints)."""
        try:  # the session's file: read as untrusted
            said = json.loads(untrusted.text(home, VERSION_FILE, VERSION_MAX))
        except (untrusted.Refused, ValueError):
            return None, "the relay extension reported no version (not loaded?)"
        version, source = (said.get("version"), said.get("source")) if isinstance(said, dict) else (None, None)
        if not isinstance(version, str) or not version:
            return None, f"the relay extension read no version ({source})"
        return version, f"relay extension: {source}"


AGENT: Agent = Pi()  # mypy checks the module against the protocol
