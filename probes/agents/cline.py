"""Cline CLI (`cline`): hooks are files, one per event, named by the event (no extension), each
run with the event's JSON on stdin; its answer is JSON on stdout (`cancel`, `contextModification`,
`errorMessage`). OpenAI chat completions, streamed, against the scripted model.

Two generations share the package and differ in almost everything else:

- 3.x (3.0.57 on): a Bun-compiled binary, the optional dependency `@cline/cli-linux-x64`, built
  on the Cline SDK. `cline PROMPT` runs one task with every tool auto-approved; the model comes
  from ~/.cline/data/settings/providers.json (what `cline auth -p openai-compatible -b URL`
  writes); hook files are read from .clinerules/hooks, .cline/hooks, ~/.cline/hooks and
  ~/Documents/Cline/Hooks (a name may carry .sh, .py, ... too). It leaves its hub daemon
  (`cline --cline-hub-daemon`) running after it exits: the run's sweep kills it (cleanup's
  killed_by_harness counts it) and the PID namespace would.
- 2.x (2.14.0, 2.18.0): a Node bundle (dist/cli.mjs) of the VS Code extension's core, `cline -y
  PROMPT`; the model from ~/.cline/data/globalState.json and secrets.json (what `cline auth -p
  openai -b URL` writes); hook files from .clinerules/hooks and ~/Documents/Cline/Hooks only,
  exactly named. Its OpenAI provider offers tools as functions only to models it knows
  (`nativeToolCallEnabled` and a gpt-5 model id: else it wants XML tool tags in text), and it
  ends a task with its attempt_completion tool (a bare text is a "mistake").

Neither puts its own version on the wire (3.x sends the AI SDK's User-Agent, 2.x `Cline/3.78.0`,
the extension core's): it is read from the session files the run leaves."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes.agents.base import NATIVE, Agent, ConfigTarget, ConfigWriter, ExtensionSurface, Registration, Tty, Written
from probes.agents.config import HookSource, write_json
from probes.errors import InputError
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.evidence.model import Invocation, ModelRequest

BINARY = "node_modules/@cline/cli-linux-x64/bin/cline"  # 3.x, under the install's prefix
BUNDLE = "node_modules/cline/dist/cli.mjs"  # 2.x
PACKAGE_JSON = "node_modules/cline/package.json"
SDK_FROM = (3, 0, 0)  # the SDK-built binary

PROVIDERS = ".cline/data/settings/providers.json"  # 3.x, under HOME
GLOBAL_STATE = ".cline/data/globalState.json"  # 2.x
SECRETS = ".cline/data/secrets.json"
MODEL = "probe-model"
# 2.x offers its tools as functions only for the model families it has native prompts for.
LEGACY_MODEL = "gpt-5-probe"
KEY = "probe-offline-placeholder"

# The hook file names (3.0.65's HookConfigFileName, 2.14.0's list). SessionShutdown and TaskError
# are 3.x's, Notification 2.x's; PreCompact is listed by both, and 3.0.65 maps it to no event.
EVENTS = {
    "pre_tool": "PreToolUse",
    "post_tool": "PostToolUse",
    "session_start": "TaskStart",
    "stop": "TaskComplete",
    "prompt_submit": "UserPromptSubmit",
    "pre_compact": "PreCompact",
    "interrupt": "TaskCancel",
    "error": "TaskError",
    "session_end": "SessionShutdown",
    "notification": "Notification",
}
# One file per event per folder: a second hook of an event gets an extension 3.x also reads
# (2.x reads the bare name only, so there it never runs).
SUFFIXES = ("", ".sh", ".bash", ".zsh")

# `probe check`: a repository's hook files, in the two project folders 3.x reads (2.x reads
# .clinerules/hooks, and the bare names only). 3.0.65 starts a file with its shebang's program
# (`sh FILE` for #!/bin/sh, `python3 FILE` through env), or without one by its suffix (bash for
# a bare name); 2.14.0 as `/bin/sh -c "'FILE'"`, so the kernel reads the shebang (its Node
# spawns with shell: true).
FILE_SUFFIXES = (
    *((s, "bash") for s in SUFFIXES),
    *((s, "node") for s in (".js", ".mjs", ".cjs")),
    *((s, "bun") for s in (".ts", ".mts", ".cts")),
    (".py", "python3"),
    (".ps1", "pwsh"),
)
HOOK_SOURCES = tuple(
    HookSource(
        f"{folder}/*",
        "files",
        (),
        "",
        matchers="ignored",
        file_events=(*EVENTS.values(), "TaskResume"),
        file_suffixes=FILE_SUFFIXES,
    )
    for folder in (".clinerules/hooks", ".cline/hooks")
)


def hook_files(folder: Path, registrations: Sequence[Registration]) -> Written:
    """Each registration as an executable named by its event that execs the hook's command
    (the CLI runs a file by its shebang: `sh FILE` on 3.x, the file itself on 2.x). Cline has
    no matcher and no per-hook timeout: both are left out (3.x kills a tool hook at 120 s,
    2.x any hook at 30 s)."""
    seen: dict[str, int] = {}
    files = []
    for r in registrations:
        if r.raw is not None or r.handler_type != "command":
            raise InputError(f"cline's hooks are executables: {r.key} cannot be written as one")
        n = seen[r.native] = seen.get(r.native, -1) + 1
        if n >= len(SUFFIXES):
            raise InputError(f"cline reads at most {len(SUFFIXES)} hook files of {r.native} per folder")
        path = folder / f"{r.native}{SUFFIXES[n]}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"#!/bin/sh\n# {r.key}\nexec {r.command}\n")
        path.chmod(0o755)
        files.append(path)
    return Written(files)


def write_project(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """.clinerules/hooks: the project folder Cline's docs name, read by 2.x and 3.x."""
    return hook_files(target.workspace / ".clinerules" / "hooks", registrations)


def write_cline_dir(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """.cline/hooks: the project folder 3.x also reads."""
    return hook_files(target.workspace / ".cline" / "hooks", registrations)


def write_user(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """~/.cline/hooks: the user's folder on 3.x (`--hooks-dir`'s default)."""
    return hook_files(target.home / ".cline" / "hooks", registrations)


def write_documents(target: ConfigTarget, registrations: Sequence[Registration]) -> Written:
    """~/Documents/Cline/Hooks: the global folder Cline's docs name, read by 2.x and 3.x."""
    return hook_files(target.home / "Documents" / "Cline" / "Hooks", registrations)


def installed_version(prefix: Path) -> tuple[int, ...] | None:
    """The installed package's version as numbers (None: unreadable)."""
    try:
        version = json.loads(untrusted.text(prefix, PACKAGE_JSON, 1024 * 1024))["version"]
        return tuple(int(p) for p in re.findall(r"\d+", str(version).split("-")[0])[:3])
    except (OSError, untrusted.Refused, ValueError, KeyError, TypeError):
        return None


def sdk_built(prefix: Path) -> bool:
    """3.x (the SDK-built binary); an unreadable package is taken as the current generation."""
    version = installed_version(prefix)
    return version is None or version >= SDK_FROM


def session_version(home: Path) -> tuple[str | None, str]:
    """The version a session file under HOME names: 3.x's session record
    (metadata.sessionHistoryOrigin.version), 2.x's task metadata (environment_history's
    host_version; its cline_version is the extension core's)."""
    for folder, kind in ((".cline/data/sessions", "session"), (".cline/data/tasks", "task")):
        for rel in sorted(untrusted.walk(home, folder)):
            name = rel.rsplit("/", 1)[-1]
            if not (name == "task_metadata.json" if kind == "task" else name.endswith(".json") and ".messages." not in name):
                continue
            try:
                data = json.loads(untrusted.text(home, f"{folder}/{rel}", 1024 * 1024))
            except (untrusted.Refused, ValueError):
                continue
            if kind == "session":
                version = ((data.get("metadata") or {}).get("sessionHistoryOrigin") or {}).get("version")
                source = "session record metadata.sessionHistoryOrigin.version"
            else:
                history = data.get("environment_history") or [{}]
                version, source = history[-1].get("host_version"), "task metadata environment_history host_version"
            if isinstance(version, str) and version:
                return version, source
    return None, "no session record named the version"


class Cline(Agent):
    name = "cline"
    package = "cline"
    config_locations: Mapping[str, ConfigWriter] = {
        NATIVE: write_project,
        "cline-dir": write_cline_dir,
        "user": write_user,
        "documents": write_documents,
    }
    hook_sources = HOOK_SOURCES
    # 3.x's names first, then 2.x's (gpt-5 native prompt: no write_to_file, apply_patch instead).
    tool_names: Mapping[str, Sequence[str]] = {
        "shell": ["run_commands", "execute_command"],
        "view_file": ["read_files", "read_file"],
        "create_file": ["editor"],
        "edit_file": ["editor"],
        "finish": ["attempt_completion"],  # 2.x: a text step is played as this call
    }
    tool_kinds = frozenset({"shell", "view_file"})
    absolute_paths = True  # 3.x's read_files and editor: "The absolute path ..."
    hook_env_markers = ()  # its hooks get no variable naming the CLI or the project
    block_exit_codes = frozenset()  # its docs block with {"cancel": true}, not an exit code
    extension: ExtensionSurface | None = None
    # Both settings files: the one session_env does not write for a release is skipped.
    port_files = (PROVIDERS, GLOBAL_STATE)
    # 3.x: ~5 s to its first model request on 2 cores (its hub daemon starts beside it);
    # 2.x (Node): ~6 s from TaskStart to the first tool call.
    startup_s = 20.0

    def binary_path(self, prefix: Path) -> Path:
        return prefix / (BINARY if sdk_built(prefix) else BUNDLE)

    def seed_command(self, prefix: Path) -> None:
        return None

    def prepare_install(self, prefix: Path) -> None:
        pass

    def native_event(self, canonical: str, casing: str = "native") -> str | None:
        return EVENTS.get(canonical)

    def session_env(self, prefix: Path, home: Path) -> dict[str, str]:
        url = "http://127.0.0.1:{port}/v1"
        if sdk_built(prefix):
            settings = {"provider": "openai-compatible", "apiKey": KEY, "model": MODEL, "baseUrl": url}
            # As `cline auth` writes it: without updatedAt the file is not read (3.0.65 then
            # runs its default provider, Cline's own).
            entry = {"settings": settings, "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}
            providers = {"version": 1, "lastUsedProvider": "openai-compatible", "modes": {}}
            write_json(home / PROVIDERS, {**providers, "providers": {"openai-compatible": entry}})
        else:
            state: dict[str, Any] = {
                "actModeApiProvider": "openai",
                "planModeApiProvider": "openai",
                "actModeOpenAiModelId": LEGACY_MODEL,
                "planModeOpenAiModelId": LEGACY_MODEL,
                "openAiBaseUrl": url,
                "welcomeViewCompleted": True,
                "nativeToolCallEnabled": True,
            }
            write_json(home / GLOBAL_STATE, state)
            write_json(home / SECRETS, {"openAiApiKey": KEY})
        return {"CLINE_NO_AUTO_UPDATE": "1"}

    def approval(self, prefix: Path, permissions: str) -> list[str]:
        if sdk_built(prefix):  # auto-approve is its default; said explicitly
            return ["--auto-approve", "true" if permissions == "preapproved" else "false"]
        return ["-y"] if permissions == "preapproved" else []

    def argv(self, prefix: Path, prompt: str, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), *self.approval(prefix, permissions), prompt]

    # Interactive sessions are not driven yet: no markers measured.
    sessions = ("print",)
    tty: Tty = {
        "markers": {"ready": r"(?!)", "busy": r"(?!)", "approval": r"(?!)"},
        "keys": {"yes": "y\r", "no": "n\r"},
        "exit": "/exit",
        "resume": ["--continue"],
    }

    def interactive_argv(self, prefix: Path, permissions: str = "preapproved") -> list[str]:
        return [str(self.binary_path(prefix)), *self.approval(prefix, permissions)]

    def prepare_interactive(self, home: Path, cwd: str, env: Mapping[str, str | None]) -> dict[str, str | None]:
        return {}

    def executed_version(
        self, invocations: Sequence[Invocation], requests: Sequence[ModelRequest], home: Path
    ) -> tuple[str | None, str]:
        return session_version(home)


AGENT: Agent = Cline()  # mypy checks the module against the protocol
