"""VS Code's Copilot Chat agent (`code-server`, which bundles VS Code and Copilot Chat), driven
headless: code-server and headless chromium on loopback, a driver extension that opens the
chat in agent mode with the prompt, the scripted model as a custom-endpoint chat model (OpenAI
chat completions). The CLI the runner starts is probes/runner/vscode_session.py (stdlib), which
starts both, waits for the turn's result and stops both. The version is code-server's; the VS
Code and Copilot Chat versions it bundles are read back from the run (docs/vscode.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
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
from probes.agents.claude import write_settings
from probes.agents.config import HookSource, write_github_hooks
from probes.errors import HarnessError, InputError
from probes.runner import untrusted
from probes.runner.vscode_session import BROWSERS
from probes.versions import node
from probes.versions.prefixes import installed_versions, prefix_for
from probes.versions.spec import Published, is_prerelease, npm, semver_key

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

NODE_MAJOR = 24  # code-server 4.1xx needs Node 24 (its postinstall checks)
CHAT_UA_RE = re.compile(r"GitHubCopilotChat/(\d+\.\d+\.\d+\S*)")
LOG_HEAD = 1024 * 1024  # code-server says its version in its log's first lines; turn.json is small
CS_LOG_RE = re.compile(r"code-server (\d+\.\d+\.\d+\S*)")
SESSION_FILES = ("vscode_session.py", "vscode_driver.js")
SETUP_TIMEOUT_S = 600
# Which VS Code and Copilot Chat each code-server release bundles, as read from installs here
# (lib/vscode/package.json, extensions/copilot/package.json): what resolves `vscode@1.N.P`
# without an install. Installed releases are read too; the run reads the versions back.
BUNDLES = {
    "4.135.0": {"vscode": "1.135.0", "copilot_chat": "0.63.0"},
    "4.139.1": {"vscode": "1.139.1", "copilot_chat": "0.67.0"},
}
# Hook events as VS Code's chat documents them (PascalCase, the Claude Code names).
EVENTS = {
    "pre_tool": "PreToolUse",
    "post_tool": "PostToolUse",
    "session_start": "SessionStart",
    "prompt_submit": "UserPromptSubmit",
    "stop": "Stop",
    "subagent_start": "SubagentStart",
    "subagent_stop": "SubagentStop",
    "pre_compact": "PreCompact",
}


# A repository's own hooks as VS Code's chat reads them (probe check): .github/hooks/*.json, each
# entry flat ({"type": "command", "command": ...}; Copilot CLI's `bash` read too) or a Claude
# Code group ({matcher, hooks: [...]}), and .claude/settings.json (measured:
# claude-settings-pretool). Matchers are parsed and ignored (measured on 4.135.0 and 4.139.1):
# a hook on an event fires for every tool.
HOOK_SOURCES = (
    HookSource(".github/hooks/*.json", "either", ("linux", "command", "bash"), "timeout", matchers="ignored"),
    HookSource(".claude/settings.json", "claude", ("command",), "timeout", matchers="ignored"),
)


def write_hooks_json(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The workspace's .github/hooks/*.json, in the flat shape VS Code documents."""
    return write_github_hooks(target.workspace, registrations, command="command", timeout="timeout", header={})


def write_hooks_json_timeout_sec(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The same file with the timeout spelled `timeoutSec`: VS Code's hooks page says `timeout`
    in its table and `timeoutSec` in a usage example (seeds/002)."""
    return write_github_hooks(target.workspace, registrations, command="command", timeout="timeoutSec", header={})


# What the host gives npm's build of code-server's native modules (node-gyp: a C/C++ toolchain,
# make, Python; the kerberos module includes gssapi/gssapi.h) and the session (its web client).
GSSAPI_H = ("/usr/include/gssapi/gssapi.h", "/usr/local/include/gssapi/gssapi.h")


def missing_prerequisites() -> dict[str, str]:
    """What the host lacks to install and run code-server: each thing -> its Debian package."""
    have = {
        ("a C/C++ compiler", "build-essential"): all(any(map(shutil.which, c)) for c in (("cc", "gcc"), ("c++", "g++"))),
        ("make", "build-essential"): bool(shutil.which("make")),
        ("python3", "python3"): bool(shutil.which("python3")),
        ("Kerberos headers (gssapi/gssapi.h)", "libkrb5-dev"): any(Path(h).exists() for h in GSSAPI_H),
        ("chromium", "chromium"): any(map(shutil.which, BROWSERS)),
    }
    return {what: package for (what, package), ok in have.items() if not ok}


def debian_npm() -> bool:
    """npm from Debian's package: its node-gyp links native modules against Debian's own Node
    (libnode.so.108), and code-server's Node 24 crashes loading them (`free(): invalid pointer`
    from @vscode/native-watchdog, measured on a fresh bookworm)."""
    found = shutil.which("npm")
    return found is not None and os.path.realpath(found).startswith("/usr/share/nodejs/")


def _run(cmd: list[str], cwd: Path, env: Mapping[str, str], what: str) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=SETUP_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as e:
        raise HarnessError(f"vscode install: {what} failed ({e})") from None
    if proc.returncode != 0:
        said = [line.strip() for line in (proc.stderr or proc.stdout).splitlines() if line.strip()]
        raise HarnessError(f"vscode install: {what} failed ({said[-1][:200] if said else f'exit {proc.returncode}'})")


class VSCode(Agent):
    name = "vscode"
    package = "code-server"
    events = EVENTS
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_hooks_json,
        "claude-settings": write_settings,
        "timeout-sec": write_hooks_json_timeout_sec,
    }
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["run_in_terminal"],
        "create_file": ["create_file"],
        "edit_file": ["replace_string_in_file"],
        "view_file": ["read_file"],
        "subagent": ["runSubagent"],
    }
    recorder_names: Mapping[str, str] = {"probe.json": "probe-recorder.json"}  # .github/hooks/: a name of its own
    hook_sources = HOOK_SOURCES
    extension: ExtensionSurface | None = None
    backends = frozenset({"local"})  # the docker image has no chromium, nor Node 24 for the postinstall
    startup_s = 120.0  # added to a recipe's budget: code-server, chromium and the chat start first (73 s seen at load 29)

    def binary_path(self, prefix: Path) -> Path:
        return prefix / "node_modules" / "code-server" / "lib" / "vscode" / "extensions" / "copilot" / "package.json"

    def seed_command(self, prefix: Path) -> None:
        return None

    def preflight(self) -> None:
        """Before npm: without these its build of the native modules fails minutes in (`npm
        error code 1`), and a session without chromium has no web client to run the chat."""
        missing = missing_prerequisites()
        what, fixes = list(missing), []
        if missing:
            fixes.append(f"apt-get install {' '.join(dict.fromkeys(missing.values()))} (Debian/Ubuntu)")
        if debian_npm():
            what.append("an npm other than Debian's package (its node-gyp builds for Debian's Node, not Node 24)")
            fixes.append("npm install -g npm@10 (npm's own, in /usr/local/bin)")
        if what:
            raise InputError(
                f"vscode needs {', '.join(what)} to install code-server (npm compiles its native modules) "
                f"and run it: {'; '.join(fixes)}"
            )

    def node(self, staging: Path) -> Path:
        """Node 24 (from npm: its headers included) unpacked into the prefix, once."""
        if not node.own_node(staging):
            try:
                node.install(staging, NODE_MAJOR, npm())
            except node.NodeError as e:
                raise HarnessError(f"vscode install: {e}") from None
        return staging / node.NODE_DIR

    def install_env(self, staging: Path) -> dict[str, str]:
        """npm's environment for installing code-server: Node 24 first on PATH, its headers
        for native modules (the postinstall checks the Node version npm reports)."""
        node_dir = self.node(staging)
        return {
            **os.environ,
            "PATH": f"{node_dir / 'bin'}:{os.environ.get('PATH', '')}",
            "npm_config_nodedir": str(node_dir),
        }

    def prepare_install(self, prefix: Path) -> None:
        """npm 11 may skip code-server's postinstall (which installs VS Code's own modules):
        run it by hand when it did not run."""
        cs = prefix / "node_modules" / "code-server"
        if (cs / "lib" / "vscode" / "node_modules").is_dir():
            return
        env = self.install_env(prefix)
        version = subprocess.run(
            [str(prefix / "node" / "bin" / "node"), "--version"], capture_output=True, text=True
        ).stdout.strip()
        env.update(
            {"npm_config_dangerously_allow_all_scripts": "true", "npm_config_user_agent": f"npm/11 node/{version} linux x64"}
        )
        _run(["sh", "./postinstall.sh"], cs, env, "code-server's postinstall")

    def translate_version(self, asked: str, pub: Published | None) -> str | None:
        """A VS Code version (1.N.P) as the code-server release that bundles it; None for
        anything else (a code-server version is used as it is). Known pairings first (BUNDLES,
        then the installs in the cache), offline; otherwise, with the registry's list, the
        newest served code-server 4.N.x not known to bundle another VS Code (code-server's
        minor follows VS Code's); the run reads back which VS Code ran."""
        if not asked.startswith("1."):
            return None
        known = {**BUNDLES, **installed_bundles()}
        exact = [cs for cs, b in known.items() if b.get("vscode") == asked and (pub is None or cs in pub.versions)]
        if exact:
            return max(exact, key=semver_key)
        if pub is None:
            return None
        minor = asked.split(".")[1]
        same = [v for v in pub.versions if v.startswith(f"4.{minor}.") and not is_prerelease(v)]
        fits = [v for v in same if known.get(v, {}).get("vscode", asked) == asked]
        if not fits:
            said = ", ".join(f"{v} (VS Code {known[v]['vscode']})" if v in known else v for v in same) or "none"
            raise InputError(
                f"vscode {asked}: no served code-server release bundles VS Code {asked}; code-server 4.{minor}.x served: {said}"
            )
        return max(fits, key=semver_key)

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        """`casing: camel` is Copilot CLI's spelling (preToolUse), which VS Code also reads."""
        native = self.events.get(canonical)
        return native[:1].lower() + native[1:] if native and casing == "camel" else native

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        bin_dir = home / ".vscode-probe" / "bin"
        bin_dir.mkdir(parents=True, exist_ok=True)
        for name in SESSION_FILES:
            shutil.copy(RUNNER_DIR / name, bin_dir / name)
        return {"PROBE_MODEL_URL": "http://127.0.0.1:{port}/v1/chat/completions", "SHELL": "/bin/bash"}

    permission_setups = ("preapproved",)  # without it the turn waits for a person to approve
    sessions = ("print",)  # the chat it drives (no terminal session)

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        session = 'exec python3 -S -E -s "$HOME/.vscode-probe/bin/vscode_session.py" "$@"'
        return ["/bin/sh", "-c", session, "vscode-session", str(prefix), prompt]

    # No terminal sessions: markers that never match, no keys.
    tty: Tty = {
        "markers": {"ready": "(?!)", "busy": "(?!)", "approval": "(?!)"},
        "keys": {"yes": "", "no": ""},
        "exit": "",
        "resume": [],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        raise HarnessError("vscode has no interactive terminal sessions")

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        raise HarnessError("vscode has no interactive terminal sessions")

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        """code-server's version from its log; the VS Code and Copilot Chat versions that ran
        said in the source: from the extension host (the driver's vscode.version and the
        chat extension's package.json) and the chat's model-request User-Agent."""
        try:  # the session's files: read as untrusted (never through a link, bounded)
            cs = CS_LOG_RE.search(untrusted.text(home, ".vscode-probe/logs/code-server.log", LOG_HEAD, "head"))
        except untrusted.Refused:
            cs = None
        ran: dict[str, str] = {}
        for name in ("turn.json", "turn.json.started"):  # the second is there when a turn was cut short
            try:
                found = json.loads(untrusted.read(home, f".vscode-probe/{name}", LOG_HEAD)).get("versions")
                ran = ran or (found if isinstance(found, dict) else {})
            except (untrusted.Refused, ValueError, AttributeError):
                pass
        ua = next((m.group(1) for r in requests if (m := CHAT_UA_RE.search(r.user_agent or ""))), None)
        said = (
            f"VS Code {ran.get('vscode', 'unknown')}, Copilot Chat {ran.get('chat', 'unknown')} "
            f"(extension host), User-Agent GitHubCopilotChat/{ua or 'unknown'}"
        )
        if cs is None:
            return None, f"the code-server log did not say its version; {said}"
        return cs.group(1), f"code-server log; {said}"


def bundled(prefix: Path) -> dict[str, str]:
    """The VS Code and Copilot Chat versions an install bundles (from their package.json)."""
    vscode = prefix / "node_modules" / "code-server" / "lib" / "vscode"
    out = {}
    for key, path in (("vscode", vscode / "package.json"), ("copilot_chat", vscode / "extensions" / "copilot" / "package.json")):
        if path.exists():
            out[key] = str(json.loads(path.read_text()).get("version", ""))
    return out


def installed_bundles() -> dict[str, dict[str, str]]:
    """code-server version -> what it bundles, for every install in the cache."""
    return {v: b for v in installed_versions(AGENT) if (b := bundled(prefix_for(AGENT, v)))}


AGENT: Agent = VSCode()  # mypy checks the module against the protocol
