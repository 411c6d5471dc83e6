"""A repository's hooks that are no command (Claude Code's prompt, agent, http and mcp_tool
handlers): the check cannot ask the user's model, reach the user's URL or start the user's MCP
server, so it answers in their place and says so in each hook's report line. A prompt or agent
hook is evaluated by the scripted model (its prompt starts with PROBE-HOOK-<key> in the check's
copy, so the model knows which hook asks), which answers {"ok": true}; an http hook is sent to
the run's loopback receiver (/hook/<key>), which records the delivery and answers 200 with an
empty body; an mcp_tool hook's server is the harness's MCP server started under the hook's
server name, offering its tool, which records the call and answers an empty text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from probes.agents import Agent
from probes.agents.config import write_json
from probes.check.config import Configured
from probes.errors import InputError
from probes.pipeline.rundirs import RunDirs
from probes.runner.contract import HOOK_PATH, HOOK_SENTINEL, HookAnswer, McpConfig, McpHook

OK_REASON = "probe check: answered in place of your model"


def judged(h: Configured) -> bool:
    """A hook of another type than command that the check answers in place."""
    return h.type != "command" and h.api is None and h.why_not is None  # a plugin: check/plugins.py


def receiver(key: str) -> str:
    """The run's loopback receiver for an http hook ("{port}": filled in when the run starts)."""
    return f"http://127.0.0.1:{{port}}{HOOK_PATH}{key}"


def rewrite(holder: dict[str, Any], h: Configured) -> None:
    """The check's copy of a judged hook: a prompt or agent hook's prompt names its key; an http
    hook's URL is the receiver. Every other field stays as written; an mcp_tool hook as a whole."""
    if h.type in ("prompt", "agent"):
        holder["prompt"] = f"{HOOK_SENTINEL}{h.key} {h.command}"
    elif h.type == "http":
        holder["url"] = receiver(h.key)


def changed(h: Configured) -> str | None:
    """What the check changed or put in place of the user's for a hook: said in its report line."""
    if not judged(h):
        return None
    if h.type in ("prompt", "agent"):
        return f"the check's copy starts its prompt with {HOOK_SENTINEL}{h.key} (so the check's model knows which hook asks)"
    if h.type == "http":
        return f"the check's copy sends it to the run's loopback receiver ({HOOK_PATH}{h.key}), not to {h.command}"
    server, tool = h.mcp or ("", "")
    return (
        f"kept as written; its server {server!r} is the harness's MCP server offering {tool!r}, started by the check "
        "(the repository's own MCP servers are not started)"
    )


def answered(h: Configured) -> str:
    """Who answered the hook, in the user's place, and what."""
    return {
        "prompt": 'evaluated by the check\'s scripted model, not yours, which answered {"ok": true}',
        "agent": 'its agent played by the check\'s scripted model, not yours, which answered {"ok": true}',
        "http": "delivered to the check's receiver, not your URL, which answered 200 with an empty body",
        "mcp_tool": "called on the check's MCP server, not yours, which answered an empty text",
    }.get(h.type, "")


def answers(hooks: Sequence[Configured], keep: set[str]) -> dict[str, HookAnswer]:
    """What the run answers each kept prompt, agent or http hook (plan hook_answers)."""
    out: dict[str, HookAnswer] = {}
    for h in hooks:
        if h.key in keep and judged(h) and h.type != "mcp_tool":
            out[h.key] = {"body": ""} if h.type == "http" else {"ok": True, "reason": OK_REASON}
    return out


def mcp_servers(agent: Agent, run: RunDirs, python: str, hooks: Sequence[Configured], keep: set[str]) -> tuple[str, ...]:
    """The harness's MCP server under each kept mcp_tool hook's server name, offering its tool
    (runner/mcp_server.py NAME), and what makes the CLI start them; () when there is none."""
    mcps = [h for h in hooks if h.key in keep and judged(h) and h.mcp]
    if not mcps:
        return ()
    offered: dict[str, dict[str, str]] = {}
    for h in mcps:
        server, tool = h.mcp or ("", "")
        offered.setdefault(server, {}).setdefault(tool, h.key)  # one key per tool: a second hook on it shares its records
    config = McpConfig(
        records=str(run.records),
        hooks={h.key: McpHook(event=h.native, answer={"body": ""}) for h in mcps},
        tools={},
        offered=offered,
    )
    write_json(run.bin / "mcp.json", config)
    args = ["-S", "-E", "-s", str(run.bin / "mcp_server.py")]
    servers = {name: {"type": "stdio", "command": python, "args": [*args, name]} for name in offered}
    path = run.bin / "mcp-servers.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n")
    argv = agent.mcp_argv(path, [f"mcp__{s}__{t}" for s, tools in offered.items() for t in tools])
    if not argv:
        raise InputError(f"probe check: {agent.name} cannot start an MCP server for its mcp_tool hooks")
    return argv
