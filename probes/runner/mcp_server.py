"""The probe's MCP server: one file, standard library only, copied into every run that has an
mcp_tool hook or an MCP matcher; the CLI starts it from its MCP config (so it runs in the jail).

    python3 mcp_server.py [NAME]

Newline-delimited JSON-RPC 2.0 on stdin/stdout (MCP's stdio transport): initialize (the client's
protocolVersion echoed), notifications/initialized, tools/list (`record`, which mcp_tool hooks
call, and `probe_tool`, which the scripted model calls; and, started as NAME, the tools mcp.json
`offered` under NAME: probe check's stand-in for a user's server), tools/call. A call whose
arguments carry `elicit` (the model's probe_tool: a step's input) first asks the client for input,
`elicitation/create` (MCP 2025-06-18: a form's message and requestedSchema), and records what the
client answered (`elicitation` in the call's record) before the tool answers. Its sidecar mcp.json
beside it (McpConfig) says where records go and what each call answers: a hook by the
`probe_key` its input carries, the model's call by the tool's name. Each call leaves a record
as hook.py's (records/<ns>-<pid>.json, written atomically, handler_type "mcp_tool" for a hook's
call); the server's own record (handler_type "mcp_server") says when the CLI connected."""

from __future__ import annotations

import json
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .contract import HookAnswer, HookRecord, McpConfig

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = {"type": "object", "properties": {"description": {"type": "string"}}, "additionalProperties": True}
TOOLS = [
    {"name": "record", "description": "Records a hook's call (the probe's mcp_tool hooks).", "inputSchema": SCHEMA},
    {"name": "probe_tool", "description": "A probe step: call it when asked to.", "inputSchema": SCHEMA},
]


def save(config: McpConfig, rec: HookRecord, path: str = "") -> str:
    path = path or os.path.join(config["records"], f"{time.time_ns()}-{os.getpid()}.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(rec, f)
    os.replace(path + ".tmp", path)
    return path


def record(key: str, event: str, kind: str, payload: Any, at: float) -> HookRecord:
    return {
        "key": key,
        "event": event,
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "started_at": at,
        "ended_at": None,
        "stdin_raw": None,
        "stdin_eof": None,
        "payload": payload,
        "output": None,
        "stderr": None,
        "exit_code": None,
        "killed_by_signal": None,
        "handler_type": kind,
    }


def body_of(answer: HookAnswer) -> str:
    body: Any = answer.get("body", {})
    return body if isinstance(body, str) else json.dumps(body)


def offered(config: McpConfig) -> dict[str, str]:
    """The tools this server offers as a user's server (the name it was started as): tool -> hook key."""
    return config.get("offered", {}).get(sys.argv[1], {}) if len(sys.argv) > 1 else {}


ELICIT_ID = "probe-elicit"
ELICIT_MESSAGE = "PROBE-ELICIT: the probe asks for one answer."
ELICIT_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "description": "any text"}},
    "required": ["answer"],
}
pending: list[str] = []  # lines the client sent while an elicitation waited for its answer


def elicit(what: object) -> dict[str, Any]:
    """Ask the client for input (elicitation/create) and wait for its answer; what else it
    sends meanwhile is handled after the call. No answer (stdin closed): {"error": "eof"}."""
    message = f"{ELICIT_MESSAGE} {what}" if isinstance(what, str) and what else ELICIT_MESSAGE
    params = {"message": message, "requestedSchema": ELICIT_SCHEMA}
    asked = time.time()
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ELICIT_ID, "method": "elicitation/create", "params": params}) + "\n")
    sys.stdout.flush()
    while line := sys.stdin.readline():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and msg.get("id") == ELICIT_ID and "method" not in msg:
            return {"asked_at": asked, "answered_at": time.time(), **{k: msg[k] for k in ("result", "error") if k in msg}}
        pending.append(line)
    return {"asked_at": asked, "error": "eof"}


def call(config: McpConfig, params: dict[str, Any]) -> dict[str, Any]:
    """A tools/call: recorded at once, answered as scripted (after `seconds`; never: `hang`)."""
    name, args = params.get("name", ""), params.get("arguments") or {}
    key = str(args.get("probe_key", "")) if name == "record" else offered(config).get(name, "")
    hook = config["hooks"].get(key)
    if hook:
        rec = record(key, hook["event"], "mcp_tool", args, time.time())
        answer = hook["answer"]
    else:  # the model's own call of probe_tool (or an unplaced one): the server's record
        rec = record(f"mcp-{name}", "tools/call", "mcp_server", {"tool": name, "arguments": args}, time.time())
        answer = config["tools"].get(name, {})
    path = save(config, rec)
    if "elicit" in args and not hook:
        rec["payload"]["elicitation"] = elicit(args["elicit"])
        path = save(config, rec, path)
    if answer.get("seconds"):
        time.sleep(float(answer["seconds"]))
    while answer.get("hang"):
        time.sleep(3600)
    text = body_of(answer) if "elicitation" not in rec["payload"] else json.dumps(rec["payload"]["elicitation"])
    error = int(answer.get("status", 200)) >= 400
    rec["output"], rec["exit_code"], rec["ended_at"] = text, 1 if error else 0, time.time()
    save(config, rec, path)
    return {"content": [{"type": "text", "text": text}], "isError": error}


def lines() -> Any:
    """stdin's lines, after those an elicitation set aside."""
    while True:
        if pending:
            yield pending.pop(0)
            continue
        line = sys.stdin.readline()
        if not line:
            return
        yield line


def main() -> int:
    with open(os.path.join(HERE, "mcp.json"), encoding="utf-8") as f:
        config: McpConfig = json.load(f)
    server = record("mcp-server", "mcp_server", "mcp_server", {"started_at": time.time()}, time.time())
    server_path = ""
    for line in lines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict):
            continue
        method, params, now = msg.get("method"), msg.get("params") or {}, time.time()
        result: dict[str, Any] | None = None
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "probe", "version": "0.0.0"},
            }
            server["started_at"] = now  # when the CLI connected (the record's start)
            server["payload"].update(
                {"initialize_at": now, "client": params.get("clientInfo"), "protocolVersion": params.get("protocolVersion")}
            )
            server_path = save(config, server, server_path)
        elif method == "notifications/initialized":
            server["payload"]["initialized_at"] = server["ended_at"] = now
            server_path = save(config, server, server_path)
        elif method == "tools/list":
            server["payload"].setdefault("tools_listed_at", now)
            server_path = save(config, server, server_path)
            result = {"tools": [*TOOLS, *({"name": t, "description": t, "inputSchema": SCHEMA} for t in offered(config))]}
        elif method == "tools/call":
            result = call(config, params)
        elif method == "ping":
            result = {}
        if "id" not in msg:
            continue  # a notification: no answer
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg["id"]}
        if result is None:
            reply["error"] = {"code": -32601, "message": f"method not found: {method}"}
        else:
            reply["result"] = result
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
