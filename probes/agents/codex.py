"""Codex CLI (`@openai/codex`): the OpenAI Responses API against the scripted model.

The npm package is a Node launcher; the CLI itself is a native (Rust, static musl) binary in a
platform package, `@openai/codex-linux-x64` from 0.1xx (earlier: `vendor/` of the main
package). Its directory is named by a musl target triple, which slimming would drop on a glibc
host, so `binary_path` names the native binary: the directory holding it is always kept.
Sessions run through the launcher (`node_modules/.bin/codex`), as a user's `codex` does.

Offline: a model provider in `$CODEX_HOME/config.toml` can only name its base URL there or
in `-c` overrides, so the port reaches it through `-c` in the argv ("{port}", as in env).
Hooks: `<repo>/.codex/hooks.json` (Claude Code's shape), loaded only in a trusted project
(a `[projects."<workspace>"]` trust entry) and run only once each hook is trusted by hash, or
with `--dangerously-bypass-hook-trust` (since 0.131.0; 0.130.0 gates hooks on trust and has
no way around it in `exec`). A recipe with `setup: {permissions: none}` runs Codex as a user's plain
`codex exec` does: no approvals bypass, sandboxed, and no hook-trust bypass either.
`permissions: trusted-hash` pre-approves the tools but trusts the hooks as a person's review
does instead of bypassing it: Codex's own app-server (`hooks/list`) gives each hook's key and
current hash, written as `[hooks.state."<key>"] trusted_hash` into $CODEX_HOME/config.toml.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import platform
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
import tomllib
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
from probes.errors import HarnessError, InputError
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

ROLLOUT_HEAD = 1024 * 1024  # a rollout's first line, session_meta, holds the version
UA_RE = re.compile(r"codex_(?:exec|cli_rs|tui)/(\d+\.\d+\.\d+\S*)")
TRIPLES = {"x86_64": "x86_64-unknown-linux-musl", "aarch64": "aarch64-unknown-linux-musl", "arm64": "aarch64-unknown-linux-musl"}
PLATFORM_PACKAGES = {"x86_64": "codex-linux-x64", "aarch64": "codex-linux-arm64", "arm64": "codex-linux-arm64"}
# Codex's hook events named as Claude Code's (developers.openai.com/codex/hooks), and its own.
CODEX_EVENTS = (
    "pre_tool",
    "post_tool",
    "session_start",
    "session_end",
    "prompt_submit",
    "stop",
    "subagent_start",
    "subagent_stop",
    "pre_compact",
    "permission_request",
)
CODEX_OWN = {"post_compact": "PostCompact", "interrupt": "Interrupt"}
TOOL_NAMES = {"shell": ["shell", "exec_command"], "edit_file": ["apply_patch"], "subagent": ["spawn_agent"]}
BYPASS_HOOK_TRUST_SINCE = (0, 131, 0)  # --dangerously-bypass-hook-trust (openai/codex#21768)
# Hook review, and hooks/list's currentHash (0.128.0's hooks/list has no hash; it needs none).
HOOK_TRUST_SINCE = (0, 129, 0)
TRUSTED_HASH = "trusted-hash"  # the permission setup whose hooks are trusted by hash, not bypassed
APP_SERVER_TIMEOUT_S = 30.0  # `codex app-server` answering initialize and hooks/list (0.5 s measured)
APP_SERVER_MAX_BYTES = 4 << 20  # what its stdout may hold before an answer: a bound, not a guess
CONFIG_MAX = 1024 * 1024  # the config.toml session_env wrote: the harness's own, small


# A repository's own hooks as Codex reads them (probe check): .codex/hooks.json in Claude Code's
# shape, a timeout in whole seconds. Codex runs them only in a trusted project once each is
# trusted by hash; the check, like every probe, passes --dangerously-bypass-hook-trust.
# A hook without "type" makes the whole file unread (0.171.0: "failed to parse hooks config:
# missing field `type`", a warning on stderr; no hook runs).
HOOK_SOURCES = (HookSource(".codex/hooks.json", "claude", ("command",), "timeout", type_required=True),)


def hooks_file(registrations: Sequence[Registration]) -> dict[str, Any]:
    """A hooks.json: Claude Code's shape, the matcher left out when the recipe gives none."""

    def entry(r: Registration) -> dict[str, Any]:
        command: dict[str, Any] = {"type": "command", "command": r.command}
        if r.timeout_s is not None:  # whole seconds: a fraction makes the whole file unreadable
            command["timeout"] = math.ceil(r.timeout_s)
        return {**({"matcher": r.matcher} if r.matcher is not None else {}), "hooks": [command]}

    return {"hooks": native_hooks(registrations, entry)}


def write_hooks(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The repository's .codex/hooks.json."""
    path = target.workspace / ".codex" / "hooks.json"
    write_json(path, hooks_file(registrations))
    return Written([path])


CODEX_DIR = ".codex"  # its CODEX_HOME, under HOME


def write_user_hooks(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """The user's $CODEX_HOME/hooks.json (~/.codex/hooks.json by default), loaded in any
    project, trusted or not; merged into."""
    return Written([merge_json(target.home, f"{CODEX_DIR}/hooks.json", hooks_file(registrations))])


def trust_entries(listed: Mapping[str, Any]) -> dict[str, str]:
    """Each non-managed hook in a hooks/list answer by its key, with the hash Codex reports
    for it now (`currentHash`): what a person's "Trust" in /hooks stores. A hook without a
    hash (before 0.129.0) is an error, never trusted by a hash of ours."""
    out: dict[str, str] = {}
    for entry in listed.get("data") or []:
        for hook in entry.get("hooks") or []:
            if hook.get("isManaged"):
                continue
            key, digest = hook.get("key"), hook.get("currentHash")
            if not isinstance(key, str) or not isinstance(digest, str) or not digest:
                raise HarnessError(f"codex hooks/list gave no key and currentHash for a hook: {json.dumps(hook)[:200]}")
            out[key] = digest
    return out


def merge_trust(codex_home: Path, trusted: Mapping[str, str]) -> Path:
    """$CODEX_HOME/config.toml with a `[hooks.state."<key>"] trusted_hash = "<hash>"` table per
    hook added, its other tables kept (appended to, never rewritten); read back to check."""
    path = codex_home / "config.toml"
    text = untrusted.text(codex_home, "config.toml", CONFIG_MAX) if untrusted.exists(codex_home, "config.toml") else ""
    try:
        state = tomllib.loads(text).get("hooks", {}).get("state", {})
    except (tomllib.TOMLDecodeError, AttributeError) as e:
        raise HarnessError(f"{path}: cannot merge hook trust into it ({e})") from None
    added = "".join(
        f"[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(digest)}\n"
        for key, digest in trusted.items()
        if key not in state
    )
    if any(state[k].get("trusted_hash") != d for k, d in trusted.items() if k in state):
        raise HarnessError(f"{path}: holds another trust for one of the hooks")
    merged = text + ("\n" if text and not text.endswith("\n") else "") + added
    check = tomllib.loads(merged).get("hooks", {}).get("state", {})
    if any(check.get(k, {}).get("trusted_hash") != d for k, d in trusted.items()):
        raise HarnessError(f"{path}: the hook trust written does not read back")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(merged)
    return path


@functools.cache
def offline() -> tuple[str, ...]:
    """`unshare` giving a private network namespace (loopback only), as the local backend's
    runner has, or () where this host cannot make one."""
    unshare = shutil.which("unshare")
    if not unshare:
        return ()
    cmd = [unshare, "--net", *([] if os.geteuid() == 0 else ["--map-root-user"])]
    try:
        ok = subprocess.run([*cmd, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return tuple(cmd) if ok else ()


def _answer(proc: subprocess.Popen[bytes], want: int, deadline: float, buf: bytearray) -> dict[str, Any]:
    """The JSON-RPC answer with id `want` on the app-server's stdout (notifications skipped)."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            while b"\n" in buf:
                line, _, rest = bytes(buf).partition(b"\n")
                buf[:] = rest
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("id") == want:
                    if "error" in msg:
                        raise HarnessError(f"codex app-server: {json.dumps(msg['error'])[:300]}")
                    return msg.get("result") or {}
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(left):
                raise HarnessError(f"codex app-server: no answer to request {want} in {APP_SERVER_TIMEOUT_S:.0f} s")
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                raise HarnessError(f"codex app-server ended before answering request {want}")
            buf += chunk
            if len(buf) > APP_SERVER_MAX_BYTES:
                raise HarnessError(f"codex app-server: over {APP_SERVER_MAX_BYTES >> 20} MiB without answering request {want}")


def list_hooks(binary: Path, home: Path, cwd: Path, isolation: Sequence[str] = ()) -> dict[str, Any]:
    """Codex's own account of the hooks a session in `cwd` loads (app-server `hooks/list`:
    key, currentHash, trustStatus), as the TUI's /hooks reads it, run with the session's HOME
    and CODEX_HOME (inside `isolation`: no network). What the app-server leaves in HOME (its
    databases, bundled skills) is removed, so the session starts as it would have."""
    codex_home = home / CODEX_DIR
    before = untrusted.walk(home, skip=frozenset())
    tops = {".": set(untrusted.names(home)), CODEX_DIR: set(untrusted.names(codex_home))}
    with tempfile.TemporaryDirectory(prefix="probe-codex-") as tmp:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(codex_home), "TMPDIR": tmp}
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(
                [*isolation, str(binary), "app-server"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
            assert proc.stdin is not None
            deadline, buf, result = time.monotonic() + APP_SERVER_TIMEOUT_S, bytearray(), {}
            try:
                requests: list[tuple[int | None, dict[str, Any]]] = [
                    (1, {"method": "initialize", "params": {"clientInfo": {"name": "probe", "version": "0"}}}),
                    (None, {"method": "initialized"}),
                    (2, {"method": "hooks/list", "params": {"cwds": [str(cwd)]}}),
                ]
                for request_id, message in requests:
                    sent = message if request_id is None else {"id": request_id, **message}
                    proc.stdin.write((json.dumps(sent) + "\n").encode())
                    proc.stdin.flush()
                    if request_id is not None:
                        result = _answer(proc, request_id, deadline, buf)
            except OSError as e:
                err.seek(max(0, os.fstat(err.fileno()).st_size - 300))  # its last words only
                raise HarnessError(f"codex app-server: {e}; {err.read(300).decode(errors='replace')}") from None
            finally:
                proc.stdin.close()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5)
                with contextlib.suppress(ProcessLookupError):  # its whole session: nothing it started outlives it
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    for rel, names in tops.items():
        for name in set(untrusted.names(home / rel)) - names:
            entry = untrusted.lstat(home / rel, name)
            if entry is not None and entry.kind == "dir":
                shutil.rmtree(home / rel / name)
            else:
                (home / rel / name).unlink(missing_ok=True)
    if untrusted.walk(home, skip=frozenset()) != before:
        raise HarnessError("codex app-server changed the session's HOME beyond its new top-level entries")
    return result


def _version(prefix: Path) -> tuple[int, ...]:
    """The installed version: its package.json, else the prefix's name (the cache's
    cli/codex/VERSION); an image's prefix (/opt/cli) is not readable from the host, and is
    taken as a current version."""
    try:
        text = json.loads((prefix / "node_modules" / "@openai" / "codex" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError, TypeError):
        text = prefix.name
    parts = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)(?:-.*)?", str(text))
    return tuple(int(p) for p in parts.groups()) if parts else (999,)


class Codex(Agent):
    name = "codex"
    package = "@openai/codex"
    events = {k: v for k, v in PASCAL_EVENTS.items() if k in CODEX_EVENTS} | CODEX_OWN
    config_locations: Mapping[str, ConfigWriter] = {NATIVE: write_hooks, "user": write_user_hooks}
    hook_sources = HOOK_SOURCES
    # shell, apply_patch: older releases' tools; the scripted model's here: exec_command, spawn_agent (0.171.0)
    tool_names = TOOL_NAMES
    tool_kinds = frozenset({"shell", "subagent"})
    hook_tool_names: Mapping[str, str] = {"exec_command": "Bash"}  # its hooks' tool_name (measured on 0.171.0)
    extension: ExtensionSurface | None = None

    def binary_path(self, prefix: Path) -> Path:
        """The native binary: in the platform package (`vendor/<triple>/bin/codex`; through
        0.128.0 `vendor/<triple>/codex/codex`), or vendored in the main package."""
        machine = platform.machine().lower()
        triple = TRIPLES.get(machine, f"{machine}-unknown-linux-musl")
        modules = prefix / "node_modules" / "@openai"
        packages = (modules / PLATFORM_PACKAGES.get(machine, "codex-linux-x64"), modules / "codex")
        candidates = [pkg / "vendor" / triple / sub / "codex" for pkg in packages for sub in ("bin", "codex")]
        return next((c for c in candidates if c.exists()), candidates[0])

    def launcher(self, prefix: Path) -> Path:
        return prefix / "node_modules" / ".bin" / "codex"

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        """A release whose npm package brings no native binary for this platform cannot run:
        one line now, not a launcher's stack trace in every run."""
        if not self.binary_path(prefix).exists():
            raise HarnessError(
                f"codex: this release installs no native binary for {platform.machine()} "
                f"(no {self.binary_path(prefix).relative_to(prefix)}): choose another version"
            )

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return self.events.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        """Its own CODEX_HOME with a config: no update check, no analytics or feedback, the
        scripted model as a custom provider (its URL in the argv), the workspace trusted so
        that its .codex/ layer (the hooks) loads."""
        codex_home = home / CODEX_DIR
        codex_home.mkdir(parents=True, exist_ok=True)
        workspace = home.parent / "workspace"  # the run directory's layout (rundirs.py)
        (codex_home / "config.toml").write_text(
            'model = "probe-model"\n'
            'model_provider = "probe"\n'
            "check_for_update_on_startup = false\n"
            "[analytics]\nenabled = false\n"
            "[feedback]\nenabled = false\n"
            '[model_providers.probe]\nname = "probe"\nwire_api = "responses"\nenv_key = "PROBE_MODEL_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
            f'[projects.{json.dumps(str(workspace))}]\ntrust_level = "trusted"\n'
        )
        return {
            "CODEX_HOME": str(codex_home),
            "PROBE_MODEL_KEY": "probe-offline-placeholder",
        }

    def prepare_permissions(self, prefix: Path, home: Path, permissions: str) -> list[Path]:
        """trusted-hash: every hook the session loads trusted by the hash Codex reports for it
        (list_hooks), in $CODEX_HOME/config.toml; the other setups: nothing."""
        if permissions != TRUSTED_HASH:
            return []
        if _version(prefix) < HOOK_TRUST_SINCE:
            raise InputError(f"codex: permissions={TRUSTED_HASH}: this release has no hook trust (from 0.129.0)")
        binary = self.binary_path(prefix)
        if not binary.exists():
            raise InputError(f"codex: permissions={TRUSTED_HASH} asks the installed CLI for its hooks' hashes: --backend local")
        workspace = home.parent / "workspace"  # the run directory's layout (rundirs.py)
        trusted = trust_entries(list_hooks(binary, home, workspace, offline()))
        return [merge_trust(home / CODEX_DIR, trusted)]

    def _flags(self, prefix: Path, permissions: str) -> list[str]:
        flags = ["-c", 'model_providers.probe.base_url="http://127.0.0.1:{port}/v1"']
        # Tools run unasked and unsandboxed (the run's namespaces are the sandbox).
        if permissions in ("preapproved", TRUSTED_HASH):
            flags.append("--dangerously-bypass-approvals-and-sandbox")
        # The recipe's hooks, not reviewed by hand (trusted-hash trusts them in config.toml instead).
        if permissions == "preapproved" and _version(prefix) >= BYPASS_HOOK_TRUST_SINCE:
            flags.append("--dangerously-bypass-hook-trust")
        return flags

    sessions = ("print",)  # its terminal UI is not driven yet
    # trusted-hash: tools pre-approved, hooks trusted by hash in config.toml (no hook-trust bypass).
    permission_setups = ("preapproved", "none", TRUSTED_HASH)

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.launcher(prefix)), "exec", *self._flags(prefix, permissions), prompt]

    # Interactive sessions: not measured yet (the TUI is not driven).
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "y", "no": "\x1b"},
        "exit": "/quit",
        "resume": ["resume", "--last"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.launcher(prefix)), *self._flags(prefix, permissions)]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        if version := version_from_user_agent(requests, UA_RE):
            return version, "model request User-Agent"
        sessions = untrusted.walk(home, ".codex/sessions")  # no request reached the model; the session's files
        for rel in sorted(r for r in sessions if r.rsplit("/", 1)[-1].startswith("rollout-") and r.endswith(".jsonl")):
            try:
                meta = json.loads(untrusted.text(home, f".codex/sessions/{rel}", ROLLOUT_HEAD, "head").split("\n", 1)[0])
            except (untrusted.Refused, ValueError):
                continue
            version = (meta.get("payload") or {}).get("cli_version") if isinstance(meta, dict) else None
            if isinstance(version, str) and version:
                return version, "session rollout session_meta cli_version"
        return None, "neither a model request nor the session's rollout reported the version"


AGENT: Agent = Codex()  # mypy checks the module against the protocol
