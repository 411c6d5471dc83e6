"""A repository's own plugins, for the agents whose hooks are code (opencode and Kilo: plugin
modules in .opencode/plugins/; pi: extensions in .pi/extensions/). Each plugin file is one
hook of the check. In the check's copy the user's file is moved beside itself under a name the
CLI does not load, and a recording wrapper of ours (runner/plugin_recorder.mjs) is written at
its path: it imports the user's module unchanged and records every call of every handler the
plugin returns or registers (surface "plugin"), answering what the user's handler answers.
What the check changed is said in each plugin's report line."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from probes.agents import CANONICAL_EVENTS, Agent
from probes.agents.base import RUNNER_DIR
from probes.agents.config import write_json
from probes.check.config import Configured, load_config
from probes.errors import InputError
from probes.limits import HOOK_CONFIGS_MAX

RECORDER = RUNNER_DIR / "plugin_recorder.mjs"
CONFIG_LINE = "// PROBE-RECORDER-CONFIG"
EAGER_LINE = "// PROBE-EAGER-IMPORT"
# The moved file's suffix per extension: a name the CLI's loader does not glob (opencode:
# *.{ts,js}; pi: a name ending in .ts or .js, so .mts is one) and its runtime still reads
# as the same language (Bun: .mjs, .mts; pi's jiti: .jsx, .tsx).
MOVED = {"returned": {".js": ".mjs", ".ts": ".mts"}, "registered": {".js": ".jsx", ".ts": ".tsx"}}
MOVED_TAG = ".probe-user"


@dataclass(frozen=True)
class Plugin:
    label: str  # relative to the folder
    why_not: str | None = None  # why the check does not judge it: left as written, in every session


MANIFEST_WHY = (
    "a folder whose package.json names its extensions (pi.extensions), which pi loads before an index: not judged, "
    "left as written in every session, the control's too"
)


def manifest(agent: Agent, path: Path, label: str) -> bool:
    """Whether a folder's package.json declares extensions (pi's readPiManifest: pi.extensions)."""
    if agent.plugin_manifest is None:
        return False
    data = load_config(path, label)
    declared = data.get(agent.plugin_manifest) if isinstance(data, dict) else None
    return isinstance(declared, dict) and bool(declared.get("extensions"))


def discover(agent: Agent, folder: Path) -> list[Plugin]:
    """Every plugin file the agent loads from `folder`, as its loader finds them (a folder's
    index.ts before its index.js; a folder with a package.json manifest, not judged); one line
    when there is none, too many, or one that is no regular file."""
    found: dict[str, str | None] = {}
    for pattern in agent.plugin_sources:
        for path in sorted(folder.glob(pattern)):
            label = str(path.relative_to(folder))
            if pattern.endswith(("/index.ts", "/index.js")):
                package = path.parent / "package.json"
                if package.is_file() and manifest(agent, package, str(package.relative_to(folder))):
                    found.setdefault(str(package.relative_to(folder)), MANIFEST_WHY)
                    continue
                if path.name == "index.js" and (path.parent / "index.ts").exists():
                    continue  # a folder's index.ts is loaded, not its index.js
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise InputError(f"{label}: a plugin that is not a regular file (a link?): copy the file in")
            found.setdefault(label, None)
    if len(found) > HOOK_CONFIGS_MAX:
        raise InputError(f"--hooks {folder}: more than {HOOK_CONFIGS_MAX} plugin files; point it at the hooks only")
    if not found:
        raise InputError(f"--hooks {folder}: no plugin for {agent.name} (looked in {' or '.join(agent.plugin_sources)})")
    return [Plugin(label, why) for label, why in found.items()]


def configured(agent: Agent, plugins: Sequence[Plugin], folder: Path) -> list[Configured]:
    """Each plugin file as one hook: type "plugin", named by its path, with what the check's copy
    does with it; its events are the handlers it turns out to register (read off its records)."""
    out = []
    for n, p in enumerate(plugins):
        h = Configured(f"{n}-plugin", p.label, "plugin", None, None, None, p.label, type="plugin", api=agent.plugin_api)
        if p.why_not:  # no api: left as written, judged by no one (verdicts.other_verdict)
            out.append(replace(h, api=None, why_not=p.why_not))
        else:
            out.append(replace(h, changed=changed(agent, h, folder), plugin_events=plugin_events(agent)))
    return out


def moved(label: str, api: str) -> str:
    """Where the check's copy puts the user's file: beside it, `NAME.probe-user.EXT`."""
    stem, ext = os.path.splitext(label)
    return f"{stem}{MOVED_TAG}{MOVED[api].get(ext, ext)}"


def wrapper(h: Configured, records: Path) -> str:
    """The recorder with its config: the hook's key, the records folder, the API, the moved file."""
    assert h.api is not None
    config = {"key": h.key, "records": str(records), "api": h.api, "module": "./" + os.path.basename(moved(h.source, h.api))}
    out = []
    for line in RECORDER.read_text().splitlines(keepends=True):
        if line.rstrip().endswith(CONFIG_LINE):
            line = f"const CONFIG = {json.dumps(config)}; {CONFIG_LINE}\n"
        elif line.rstrip().endswith(EAGER_LINE) and h.api == "returned":
            line = f"const EAGER = await imported(); {EAGER_LINE}\n"
        out.append(line)
    return "".join(out)


def deps_folders(agent: Agent, hooks: Sequence[Configured]) -> list[str]:
    """The config folders (.opencode, .kilo) that hold plugins, where the CLI installs its plugin package."""
    return sorted({h.source.split("/")[0] for h in hooks if h.api}) if agent.plugin_package else []


def write_deps(folder: Path, package: str) -> list[Path]:
    """What makes opencode (and Kilo) skip installing its plugin package into a config folder, as
    the agents' own write_deps: the dependency declared, locked, and node_modules/ there."""
    deps = {package: "*"}
    files = {
        "package.json": {"dependencies": deps},
        "package-lock.json": {"name": "probe", "lockfileVersion": 3, "requires": True, "packages": {"": {"dependencies": deps}}},
    }
    for name, data in files.items():
        write_json(folder / name, data)
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    return [folder / name for name in files]


def install(agent: Agent, workspace: Path, records: Path, hooks: Sequence[Configured], keep: set[str] | None) -> list[Path]:
    """The plugins in the check's copy: each kept one moved beside itself and loaded through the
    recorder at its path; every other (and every one in the control) removed. A config folder
    without its package.json gets the plugin package declared, locked and node_modules/, as the
    harness's own relay's folders do (agents' write_deps), in the control too."""
    written: list[Path] = []
    for h in hooks:
        if h.api is None:
            continue
        path = workspace / h.source
        if keep is None or h.key not in keep:
            path.unlink()
            continue
        path.rename(workspace / moved(h.source, h.api))
        path.write_text(wrapper(h, records))
        written.append(path)
    for folder in deps_folders(agent, hooks):
        if agent.plugin_package and not (workspace / folder / "package.json").exists():
            written += write_deps(workspace / folder, agent.plugin_package)
    return written


def changed(agent: Agent, h: Configured, folder: Path) -> str:
    """What the check's copy does with a plugin, said in its report line."""
    assert h.api is not None
    said = (
        f"the check's copy moves it to {moved(h.source, h.api)} and puts a recording wrapper "
        "(probes/runner/plugin_recorder.mjs) at its path, which imports it unchanged and records each call of its handlers"
    )
    top = h.source.split("/")[0]
    if agent.plugin_package and not (folder / top / "package.json").exists():
        said += (
            f"; {top}/ gets package.json, package-lock.json and node_modules/ ({agent.plugin_package} declared, "
            f"so {agent.name} installs nothing offline)"
        )
    return said


@dataclass(frozen=True)
class Call:
    """One recorded handler call, read as its API defines an answer."""

    handler: str
    decision: str | None  # block (threw), block, allow, changed KEY, returned KEYS (joined by +); None: nothing
    error: str | None  # why it is no answer: it threw (where a throw is no documented answer), never returned
    said: str | None = None  # the error a blocking throw carried


def output_of(inv: dict[str, Any]) -> dict[str, Any]:
    try:
        out = json.loads(inv.get("output") or "null")
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


def call_of(api: str, inv: dict[str, Any]) -> Call:
    """Returned handlers' (opencode's) documented answers: a tool.execute.before that throws
    stops the tool; changed `output` keys (args, output, parts, status) are its other answers. pi's: a returned
    `{block: true}` from tool_call, another returned object, a changed event (a tool_call's
    input); a throw is an error there (pi blocks the tool on it, its docs: fail-safe)."""
    name = str(inv.get("event"))
    out = output_of(inv)
    error = inv.get("error")
    if inv.get("ended_at") is None:
        return Call(name, None, "never returned (the session ended first)")
    if inv.get("extension_result") == "threw":
        if api == "returned" and name == "tool.execute.before":  # opencode's documented block
            return Call(name, "block (threw)", None, str(error))
        return Call(name, None, f"threw {error}")
    returned, changes = out.get("returned"), out.get("changed") or {}
    parts = []
    if api == "returned":
        if name == "permission.ask" and changes.get("status") in ("deny", "allow"):
            parts.append("block" if changes["status"] == "deny" else "allow")
        parts += [f"changed {k}" for k in changes if not (name == "permission.ask" and k == "status")]
    else:
        if isinstance(returned, dict) and returned.get("block"):
            parts.append("block")
        elif isinstance(returned, dict) and returned:
            parts.append("returned " + ", ".join(sorted(returned)))
        parts += [f"changed {k}" for k in changes]
    return Call(name, "+".join(parts) or None, None)


def plugin_events(agent: Agent) -> tuple[tuple[str, str], ...]:
    """A plugin's handler name -> the canonical event it is for: the agent's events, and, where
    handlers are returned (opencode's), the `event` hook, which gets the bus's session events."""
    pairs = [(native, c) for c in CANONICAL_EVENTS if (native := agent.native_event(c))]
    return tuple([*pairs, ("event", "session_start")] if agent.plugin_api == "returned" else pairs)


def canonical(h: Configured, handler: str) -> str | None:
    """The canonical event a handler of the plugin is for; None: one the harness does not know."""
    return dict(h.plugin_events).get(handler)


def handlers_of(load: dict[str, Any]) -> list[str]:
    """The handlers a plugin returned or registered, from its load record."""
    returned = output_of(load).get("returned")
    hooks = returned.get("hooks") if isinstance(returned, dict) else None
    return [str(x) for x in hooks] if isinstance(hooks, list) else []
