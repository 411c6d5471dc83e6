"""opencode (`opencode-ai`): a Bun-compiled coding agent with no command hooks, only JavaScript
plugins (`.opencode/plugins/*.js`, `~/.config/opencode/plugins/`): an object of hooks such as
`tool.execute.before` (a thrown Error stops the tool, its `output.args` may be changed in
place), `tool.execute.after`, `chat.message`, `permission.ask`, and an `event` hook for its
bus events (session.created, session.idle, ...). The probe's own plugin,
`probes/runner/opencode_relay.mjs`, relays each hooked name to the instrumented hook as a CLI
runs a command hook and applies its answer, read in Claude Code's JSON shape, through that API
(the shared part, `relay_core.mjs`, is written beside it). OpenAI chat completions, streamed,
against the scripted model: a provider `probe` in the user's ~/.config/opencode/opencode.json,
picked with `opencode run -m probe/probe-model` (docs/opencode.md).

opencode installs its plugin package (`@opencode-ai/plugin` at its own version) into every
config folder it reads (.opencode/, ~/.config/opencode/) at start, unless the folder's
package-lock.json already lists each dependency its package.json declares and node_modules/
exists; offline that install fails after 35-70 s a folder (1.18.33). So each folder gets those
three, the dependency declared and nothing installed: the relay imports nothing but Node's."""

from __future__ import annotations

import json
import mmap
import os
import re
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
    version_from_user_agent,
)
from probes.agents.config import merge_json, write_json
from probes.errors import InputError
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

# opencode/1.18.33 ai-sdk/provider-utils/4.0.23 runtime/bun/1.3.14: on every model request
UA_RE = re.compile(r"\bopencode/(\d+\.\d+\.\d+[^\s(]*)")

RELAY_SOURCE = RUNNER_DIR / "opencode_relay.mjs"
CORE_SOURCE = RUNNER_DIR / "relay_core.mjs"
RELAY_NAME = "probe-relay.js"  # opencode loads {plugin,plugins}/*.{js,ts} of each config folder
CORE_NAME = "probe-relay-core.mjs"  # beside plugins/, where opencode loads nothing as a plugin
CONFIG_LINE = "// PROBE-RELAY-CONFIG"  # ends the source's line that holds the relay's config
USER_DIR = ".config/opencode"  # under HOME (XDG_CONFIG_HOME is HOME/.config in every run)
USER_CONFIG = f"{USER_DIR}/opencode.json"  # the scripted model as a provider
VERSION_FILE = ".local/share/probe-relay.json"  # under HOME: the running binary's package version, as the relay read it
# under HOME: the installed package's version, written before the session, read back only when
# the run names none (opencode 1.0 exits at its config check, before any plugin or request)
INSTALLED_FILE = ".local/share/probe-installed.json"
PACKAGE_JSON = "node_modules/opencode-ai/package.json"  # under the install's prefix
COST_LOG = ".local/share/probe-relay-cost.jsonl"  # under HOME: the relay's own time per relayed event
PROVIDER, MODEL = "probe", "probe-model"
PLUGIN_PACKAGE = "@opencode-ai/plugin"
VERSION_MAX = 4096
DEFAULT_TIMEOUT_S = 600  # Claude Code's default for a command hook without one, the relay's too

# canonical -> opencode's plugin hook, or bus event type (delivered to the `event` hook).
EVENTS = {
    "pre_tool": "tool.execute.before",
    "post_tool": "tool.execute.after",
    "prompt_submit": "chat.message",
    "permission_request": "permission.ask",
    "pre_compact": "experimental.session.compacting",
    "before_model": "chat.params",
    "session_start": "session.created",
    "stop": "session.idle",
    "error": "session.error",
    "post_compact": "session.compacted",
}


def relay_config(target: ConfigTarget, registrations: Sequence[Registration]) -> dict[str, Any]:
    """What the relay is told: each hook (opencode's name for it, its command, timeout,
    matcher), the shell it starts them with, where it reports the version and its own cost."""
    hooks = []
    for r in registrations:
        if r.raw is not None or r.handler_type != "command":
            what = f"hook {r.key}: {r.handler_type}, raw={r.raw is not None}"
            raise InputError(f"opencode's relay runs command hooks only ({what})")
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


def write_deps(folder: Path, version: str = "*") -> list[Path]:
    """What makes opencode skip installing its plugin package into a config folder: the
    dependency declared, locked, and node_modules/ there."""
    deps = {PLUGIN_PACKAGE: version}
    package, lock = folder / "package.json", folder / "package-lock.json"
    write_json(package, {"dependencies": deps})
    write_json(lock, {"name": "probe", "lockfileVersion": 3, "requires": True, "packages": {"": {"dependencies": deps}}})
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    return [package, lock]


def write_relay(folder: Path, where: str, target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    path, core = folder / "plugins" / RELAY_NAME, folder / CORE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(relay_source(relay_config(target, registrations)))
    core.write_text(CORE_SOURCE.read_text())
    route = f"relay plugin {where}plugins/{RELAY_NAME} (probes/runner/opencode_relay.mjs) running each hook as a command"
    return Written([path, core, *write_deps(folder)], route=route)


def write_project(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's plugin folder, .opencode/plugins/ (loaded with no question asked)."""
    return write_relay(target.workspace / ".opencode", ".opencode/", target, registrations)


def write_user(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's plugin folder, ~/.config/opencode/plugins/."""
    return write_relay(target.home / USER_DIR, "~/.config/opencode/", target, registrations)


def binaries(prefix: Path) -> list[Path]:
    """The installed opencode binaries: the platform package's, and the copy opencode-ai's
    postinstall makes (1.18: bin/opencode.exe; 1.14: bin/.opencode beside a Node launcher)."""
    modules = prefix / "node_modules"
    found = [*sorted(modules.glob("opencode-linux-*/bin/opencode")), modules / "opencode-ai" / "bin" / "opencode.exe"]
    return [p for p in found if p.is_file() and not p.is_symlink()]


def declares(prefix: Path, needle: bytes) -> bool:
    """Whether the installed binary's bundled JavaScript holds `needle`."""
    for path in binaries(prefix)[:1]:
        with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(needle) >= 0
    return False


class Opencode(Agent):
    name = "opencode"
    package = "opencode-ai"
    events = EVENTS
    config_locations: Mapping[str, ConfigWriter] = {NATIVE: write_project, "user": write_user}
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["bash"],
        "create_file": ["write"],
        "edit_file": ["edit"],
        "view_file": ["read"],
    }
    tool_kinds = frozenset({"shell", "create_file", "edit_file", "view_file"})
    absolute_paths = True  # its read, write and edit: "The absolute path to the file"
    hook_env_markers = ()  # a marker added here is a new key in every committed env record
    extension: ExtensionSurface | None = None  # its plugins are the hooks' route (the relay), not a second surface
    port_files = (USER_CONFIG,)  # the provider's baseURL, in the user's opencode.json
    # A repository's own plugins, as its loader globs them: {plugin,plugins}/*.{ts,js} (1.18.33)
    plugin_sources = tuple(f".opencode/{d}/*.{x}" for d in ("plugins", "plugin") for x in ("js", "ts"))
    plugin_api = "returned"  # each exported function returns an object of hooks
    plugin_package = PLUGIN_PACKAGE
    # To its first model request: 4-9 s on 2 cores under load (a Bun binary of 140-180 MB).
    startup_s = 15.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "opencode"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        # 1.0's postinstall links bin/opencode to the platform binary by the absolute path of
        # the install being built, which is renamed into place after: made relative.
        link = prefix / "node_modules" / "opencode-ai" / "bin" / "opencode"
        if link.is_symlink() and (target := Path(os.readlink(link))).is_absolute():
            link.unlink()
            link.symlink_to(os.path.relpath(target, link.parent))

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        provider = {
            "npm": "@ai-sdk/openai-compatible",  # bundled: nothing is installed for it
            "name": "Probe",
            "options": {"baseURL": "http://127.0.0.1:{port}/v1", "apiKey": "probe-offline-placeholder"},
            "models": {MODEL: {"name": "Probe"}},
        }
        # Merged into: the user's plugin folder may be written already (config=user).
        config = {"provider": {PROVIDER: provider}, "model": f"{PROVIDER}/{MODEL}", "autoupdate": False, "share": "disabled"}
        merge_json(home, USER_CONFIG, config)
        write_deps(home / USER_DIR)  # opencode creates this folder and installs into it, as into .opencode/
        try:
            installed = json.loads(untrusted.text(prefix, PACKAGE_JSON, VERSION_MAX)).get("version")
        except (untrusted.Refused, ValueError, AttributeError):
            installed = None
        write_json(home / INSTALLED_FILE, {"version": installed})
        return {
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",  # models.dev's catalogue
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            # its built-in provider-auth plugins (Copilot, Anthropic, Codex logins): not ours to probe
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        }

    def approval(self, prefix: Path, permissions: str) -> list[str]:
        if permissions == "none":
            return []
        # --auto (1.18: "auto-approve permissions that are not explicitly denied"); before it,
        # --dangerously-skip-permissions (1.14), which 1.18 keeps as a hidden alias; 1.0 has
        # neither (its run refuses an unknown flag), and its default asks nothing.
        if declares(prefix, b'.option("auto",'):
            return ["--auto"]
        if declares(prefix, b'.option("dangerously-skip-permissions",'):
            return ["--dangerously-skip-permissions"]
        return []

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        # Its log at WARN on stderr: a plugin's failure, a failed install, are said there.
        logs = ["--print-logs", "--log-level", "WARN"]
        model = ["-m", f"{PROVIDER}/{MODEL}"]
        return [str(self.binary_path(prefix)), "run", *self.approval(prefix, permissions), *model, *logs, prompt]

    # Interactive sessions are not driven yet: no markers measured.
    sessions = ("print",)
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "\r", "no": "\x1b"},
        "exit": "/exit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), "-m", f"{PROVIDER}/{MODEL}"]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        relay = said_version(home, VERSION_FILE)
        if relay[0]:
            return relay[0], f"relay plugin: {relay[1]}"
        installed = said_version(home, INSTALLED_FILE)[0]
        if installed:
            return installed, "the installed opencode-ai package.json: no model request, and the relay plugin was not loaded"
        return None, "no model request, and the relay plugin reported no version (not loaded?)"


def said_version(home: Path, rel: str) -> tuple[str | None, str | None]:
    """The version a file under the run's HOME holds, and its source (read as untrusted)."""
    try:
        said = json.loads(untrusted.text(home, rel, VERSION_MAX))
    except (untrusted.Refused, ValueError):
        return None, None
    version, source = (said.get("version"), said.get("source")) if isinstance(said, dict) else (None, None)
    return (version if isinstance(version, str) and version else None), (source if isinstance(source, str) else None)


AGENT: Agent = Opencode()  # mypy checks the module against the protocol
