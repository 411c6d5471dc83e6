"""Kilo Code CLI (`@kilocode/cli`): a fork of opencode, a Bun-compiled binary with opencode's
plugin API and no command hooks. So the hooks go through opencode's relay plugin
(`probes/runner/opencode_relay.mjs` and its core, written by probes/agents/opencode.py's
functions), into Kilo's own folders: the project's `.kilo/plugins/`, the user's
`~/.config/kilo/plugins/`. What differs from opencode is named here (docs/kilo.md):

- the package is a Node launcher, `@kilocode/cli`, whose optional dependency
  `@kilocode/cli-linux-x64` holds the binary, at the launcher's version;
- its config is `kilo.json` (it reads opencode.json too), the scripted model a provider there;
- its plugin package is `@kilocode/plugin`, installed into each config folder at start as
  opencode installs its own, unless the folder has it declared, locked and node_modules/;
- `kilo run --auto` (no `--dangerously-skip-permissions` in 7.x), its env `KILO_*`, and
  `KILO_NO_DAEMON` (else `run` looks for a background server of its own first);
- its model requests say `Kilo-Code/VERSION` (no opencode/ token)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from probes.agents.base import NATIVE, Agent, ConfigTarget, ConfigWriter, Registration, Written, version_from_user_agent
from probes.agents.config import merge_json, write_json
from probes.agents.opencode import CORE_NAME, CORE_SOURCE, RELAY_NAME, Opencode, relay_config, relay_source

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

# User-Agent: Kilo-Code/7.7.7 on every model request (its provider headers: HTTP-Referer
# https://kilocode.ai, X-Title Kilo Code).
UA_RE = re.compile(r"\bKilo-Code/(\d+\.\d+\.\d+[^\s(]*)")

USER_DIR = ".config/kilo"  # under HOME (XDG_CONFIG_HOME is HOME/.config in every run)
USER_CONFIG = f"{USER_DIR}/kilo.json"
PROJECT_DIR = ".kilo"  # it also reads .kilocode/, the older name
PLUGIN_PACKAGE = "@kilocode/plugin"
PROVIDER, MODEL = "probe", "probe-model"


def write_deps(folder: Path) -> list[Path]:
    """What makes Kilo skip installing @kilocode/plugin into a config folder (opencode's rule,
    its own package): the dependency declared, locked, and node_modules/ there."""
    deps = {PLUGIN_PACKAGE: "*"}
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
    route = f"opencode's relay plugin as {where}plugins/{RELAY_NAME} (probes/runner/opencode_relay.mjs), hooks run as commands"
    return Written([path, core, *write_deps(folder)], route=route)


def write_project(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The project's plugin folder, .kilo/plugins/."""
    return write_relay(target.workspace / PROJECT_DIR, f"{PROJECT_DIR}/", target, registrations)


def write_user(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's plugin folder, ~/.config/kilo/plugins/."""
    return write_relay(target.home / USER_DIR, "~/.config/kilo/", target, registrations)


class Kilo(Opencode):
    name = "kilo"
    package = "@kilocode/cli"
    config_locations: Mapping[str, ConfigWriter] = {NATIVE: write_project, "user": write_user}
    port_files = (USER_CONFIG,)  # the provider's baseURL, in the user's kilo.json
    # opencode's plugin loader, in Kilo's folders (.kilocode/: the older name)
    plugin_sources = tuple(
        f"{p}/{d}/*.{x}" for p in (PROJECT_DIR, ".kilocode") for d in ("plugins", "plugin") for x in ("js", "ts")
    )
    plugin_package = PLUGIN_PACKAGE
    startup_s = 15.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "kilo"

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        provider = {
            "npm": "@ai-sdk/openai-compatible",  # bundled: nothing is installed for it
            "name": "Probe",
            "options": {"baseURL": "http://127.0.0.1:{port}/v1", "apiKey": "probe-offline-placeholder"},
            "models": {MODEL: {"name": "Probe"}},
        }
        # Only the scripted model: Kilo fetches its own gateway's model list (provider kilo) before
        # the first turn, which offline waits 16-17 s for a network error (7.7.7).
        config = {
            "provider": {PROVIDER: provider},
            "enabled_providers": [PROVIDER],
            "model": f"{PROVIDER}/{MODEL}",
            "autoupdate": False,
            "share": "disabled",
        }
        merge_json(home, USER_CONFIG, config)  # merged into: config=user may have written the folder
        write_deps(home / USER_DIR)
        return {
            "KILO_NO_DAEMON": "1",  # run in-process, not through a background server
            "KILO_DISABLE_AUTOUPDATE": "1",
            "KILO_DISABLE_SHARE": "1",
            "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_DISABLE_LSP_DOWNLOAD": "1",
            "KILO_DISABLE_DEFAULT_PLUGINS": "1",
            "KILO_DISABLE_SESSION_INGEST": "1",
            "KILO_DISABLE_PRESENCE": "1",
            "KILO_DISABLE_CODEBASE_INDEXING": "1",
            "KILO_TELEMETRY_LEVEL": "off",
        }

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        auto = [] if permissions == "none" else ["--auto"]
        model = ["-m", f"{PROVIDER}/{MODEL}"]
        logs = ["--print-logs", "--log-level", "WARN"]
        return [str(self.binary_path(prefix)), "run", *auto, *model, *logs, prompt]

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        return super().executed_version(invocations, requests, home)  # the relay's report


AGENT: Agent = Kilo()
