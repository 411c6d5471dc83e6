"""The scripted model: one HTTP server on loopback that speaks OpenAI chat completions
(Copilot) and Anthropic messages (Claude Code; Copilot with COPILOT_PROVIDER_TYPE=anthropic).

It plays a turn script. A script is a list of steps; each step is a tool call by canonical
kind ({"tool": "shell", ...}) or a final text ({"text": "..."}). The step to play is chosen
from the request itself: the number of assistant turns already in the conversation. That
makes the server stateless, so retries, stop-hook re-prompts and parallel conversations
(subagents) each get the step their own history calls for. Past the end of the script the
last text step is repeated.

An interactive session can hold several prompts, each marked with a sentinel
(PROBE-PROMPT-N) and its own script: the turn is then counted from the latest marked prompt
in the conversation, so each prompt plays its script from the start.

Requests that carry no tools (titles, summaries, probes of the endpoint) get a short text
and do not count as turns. Every request is appended to a JSONL log for the harness.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# Tool names each CLI is known to use for a canonical kind, most likely first. The server
# only picks among the tools the CLI actually sent; an unknown name is a finding.
TOOL_NAMES = {
    "shell": ["bash", "Bash", "shell", "run_in_terminal", "powershell"],
    "create_file": ["create", "Write", "write_file", "create_file"],
    "edit_file": ["edit", "Edit", "str_replace_editor", "apply_patch"],
    "view_file": ["view", "Read", "read_file"],
    "subagent": ["task", "Task", "Agent", "agent"],
}

AUX_TEXT = "ok"


# ---------------------------------------------------------------- script -> tool calls


def tool_schemas(body: dict) -> dict[str, dict]:
    """Map tool name -> JSON schema of its input, for either dialect."""
    out = {}
    for tool in body.get("tools") or []:
        if "function" in tool:  # OpenAI
            fn = tool["function"]
            out[fn.get("name", "")] = fn.get("parameters") or {}
        elif "name" in tool:  # Anthropic
            out[tool["name"]] = tool.get("input_schema") or {}
    return out


def pick_tool(kind: str, schemas: dict[str, dict]) -> str | None:
    for name in TOOL_NAMES.get(kind, [kind]):
        if name in schemas:
            return name
    return None


def tool_arguments(step: dict, schema: dict) -> dict:
    """Fill the arguments a tool's schema asks for from a script step."""
    props = (schema or {}).get("properties") or {}
    kind = step["tool"]
    path = step.get("path", "probe-file.txt")
    values = {
        "command": step.get("command", ""),
        "description": step.get("description", "probe step"),
        "path": path,
        "file_path": path,
        "file_text": step.get("content", "probe\n"),
        "content": step.get("content", "probe\n"),
        "old_str": step.get("old", "probe"),
        "old_string": step.get("old", "probe"),
        "new_str": step.get("new", "probed"),
        "new_string": step.get("new", "probed"),
        "prompt": step.get("prompt", "Reply with the word done."),
        "subagent_type": step.get("agent_type", "general-purpose"),
        "agent_type": step.get("agent_type", "general-purpose"),
        "name": step.get("agent_name", "probe-subagent"),
    }
    args = {k: v for k, v in values.items() if k in props}
    if kind == "shell":
        args["command"] = step.get("command", "")
        if "mode" in props:
            args["mode"] = "sync"
        if "initial_wait" in props:
            args["initial_wait"] = 60
    args.update(step.get("extra_args") or {})
    return args


def first_user_text(body: dict) -> str:
    return next((_content_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"), "")


def current_prompt(messages: list[dict], prompts: dict[str, list[dict]]) -> tuple[int, str | None]:
    """The index of the latest user message holding a prompt marker, and that marker."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            text = _content_text(messages[i].get("content"))
            for marker in prompts:
                if marker in text:
                    return i, marker
    return -1, None


def plan_reply(
    body: dict, script: list[dict], subagent: tuple[str, list[dict]] | None = None, prompts: dict[str, list[dict]] | None = None
) -> dict:
    """Decide the reply to one request: {"text": ...} or {"tool": name, "arguments": ...}.
    A conversation whose first user message holds the subagent sentinel is a child: it plays
    the subagent script."""
    schemas = tool_schemas(body)
    if not schemas:
        return {"text": AUX_TEXT, "aux": True}
    if subagent and subagent[0] in first_user_text(body):
        reply = plan_reply(body, subagent[1])
        return {**reply, "subagent": True}
    messages = body.get("messages") or []
    start, marker = current_prompt(messages, prompts or {})
    if marker:
        script = prompts[marker]
    turn = sum(1 for m in messages[start + 1 :] if m.get("role") == "assistant")
    step = script[turn] if turn < len(script) else None
    if step is None:
        texts = [s for s in script if "text" in s]
        return {"text": texts[-1]["text"] if texts else "done", "turn": turn}
    if "text" in step:
        return {"text": step["text"], "turn": turn}
    name = pick_tool(step["tool"], schemas)
    if name is None:
        return {
            "text": f"probe: no tool for kind {step['tool']!r} in {sorted(schemas)}",
            "turn": turn,
            "missing_tool": step["tool"],
        }
    return {"tool": name, "kind": step["tool"], "turn": turn, "arguments": tool_arguments(step, schemas[name])}


# ---------------------------------------------------------------- request -> text


def _content_text(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if not isinstance(block, dict):
            parts.append(str(block))
        elif block.get("type") in ("text", "input_text"):
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            parts.append(_content_text(block.get("content")))
        elif block.get("type") == "tool_use":
            parts.append(json.dumps(block.get("input"), sort_keys=True))
    return "\n".join(parts)


def conversation(body: dict) -> list[dict]:
    """The request's messages as [{"role", "text"}], system first, for either dialect.
    Anthropic tool results arrive as user messages; they are labelled role "tool"."""
    out = []
    system = body.get("system")
    if system:
        out.append({"role": "system", "text": _content_text(system)})
    for m in body.get("messages") or []:
        role = m.get("role", "")
        content = m.get("content")
        if (
            role == "user"
            and isinstance(content, list)
            and content
            and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
        ):
            role = "tool"
        text = _content_text(content)
        for call in m.get("tool_calls") or []:
            text += "\n" + call.get("function", {}).get("arguments", "")
        out.append({"role": role, "text": text})
    return out


# ---------------------------------------------------------------- dialects


def _sse(event: str | None, data) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def openai_chunks(reply: dict, model: str) -> list[bytes]:
    cid = "chatcmpl-" + uuid.uuid4().hex[:12]
    base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta, finish=None):
        return _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    out = [chunk({"role": "assistant", "content": ""})]
    if "tool" in reply:
        args = json.dumps(reply["arguments"])
        call_id = "call_" + uuid.uuid4().hex[:12]
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": 0, "id": call_id, "type": "function", "function": {"name": reply["tool"], "arguments": ""}}
                    ]
                }
            )
        )
        half = len(args) // 2  # two fragments: clients must assemble them
        for part in (args[:half], args[half:]):
            out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}))
        out.append(chunk({}, "tool_calls"))
    else:
        out.append(chunk({"content": reply["text"]}))
        out.append(chunk({}, "stop"))
    out.append(_sse(None, {**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}))
    out.append(_sse(None, "[DONE]"))
    return out


def openai_message(reply: dict, model: str) -> dict:
    msg: dict = {"role": "assistant", "content": reply.get("text")}
    finish = "stop"
    if "tool" in reply:
        msg["tool_calls"] = [
            {
                "id": "call_" + uuid.uuid4().hex[:12],
                "type": "function",
                "function": {"name": reply["tool"], "arguments": json.dumps(reply["arguments"])},
            }
        ]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _anthropic_block(reply: dict) -> tuple[dict, dict, str]:
    """(content_block_start block, full block, stop_reason)."""
    if "tool" in reply:
        tid = "toolu_" + uuid.uuid4().hex[:20]
        return (
            {"type": "tool_use", "id": tid, "name": reply["tool"], "input": {}},
            {"type": "tool_use", "id": tid, "name": reply["tool"], "input": reply["arguments"]},
            "tool_use",
        )
    return {"type": "text", "text": ""}, {"type": "text", "text": reply["text"]}, "end_turn"


def anthropic_events(reply: dict, model: str) -> list[bytes]:
    start, _, stop_reason = _anthropic_block(reply)
    message = {
        "id": "msg_" + uuid.uuid4().hex[:20],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    out = [
        _sse("message_start", {"type": "message_start", "message": message}),
        _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}),
    ]
    if "tool" in reply:
        args = json.dumps(reply["arguments"])
        half = len(args) // 2
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in (args[:half], args[half:])]
    else:
        deltas = [{"type": "text_delta", "text": reply["text"]}]
    for d in deltas:
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": d}))
    out += [
        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return out


def anthropic_message(reply: dict, model: str) -> dict:
    _, block, stop_reason = _anthropic_block(reply)
    return {
        "id": "msg_" + uuid.uuid4().hex[:20],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


# ---------------------------------------------------------------- server


class ScriptedModel:
    """Serve `script` on 127.0.0.1 at a free port; log requests to `log_path` (JSONL)."""

    def __init__(
        self,
        script: list[dict],
        log_path: Path,
        host: str = "127.0.0.1",
        subagent: tuple[str, list[dict]] | None = None,
        prompts: dict[str, list[dict]] | None = None,
    ):
        self.script = script
        self.subagent = subagent
        self.prompts = prompts or {}
        self.final_texts = 0  # main-conversation text replies served: a turn's model part is over
        self.log_path = Path(log_path)
        self._lock = threading.Lock()
        self._seq = 0
        handler = type("Handler", (_Handler,), {"model": self})
        self.httpd = ThreadingHTTPServer((host, 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def log(self, entry: dict) -> None:
        with self._lock:
            self._seq += 1
            entry = {"seq": self._seq, **entry}
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")


class _Handler(BaseHTTPRequestHandler):
    model: ScriptedModel
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep the CLI's stderr clean
        pass

    def _read_body(self) -> dict:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raw = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                chunk = self.rfile.read(size + 2)[:size]  # data, then CRLF
                if not size:
                    break
                raw += chunk
        else:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else {}
        except ValueError:
            return {"_unparsed": raw[:2000].decode("utf-8", "replace")}

    def _send_json(self, status: int, obj) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, chunks: list[bytes]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for c in chunks:
            self.wfile.write(c)
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        self._log({})
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            models = [
                {
                    "id": "probe-model",
                    "object": "model",
                    "type": "model",
                    "display_name": "probe-model",
                    "created_at": "2026-01-01T00:00:00Z",
                }
            ]
            self._send_json(200, {"object": "list", "data": models, "has_more": False})
        else:
            self._send_json(404, {"error": {"type": "not_found", "message": "scripted model"}})

    def do_HEAD(self):
        self._log({})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self._read_body()
        path = self.path.split("?")[0]
        model = body.get("model") or "probe-model"
        if path.endswith("/count_tokens"):
            self._log(body)
            return self._send_json(200, {"input_tokens": 10})
        if not (path.endswith("/chat/completions") or path.endswith("/messages")):
            self._log(body)
            return self._send_json(404, {"error": {"type": "not_found", "message": path}})
        reply = plan_reply(body, self.model.script, self.model.subagent, self.model.prompts)
        self._log(body, reply)
        if "text" in reply and not reply.get("aux") and not reply.get("subagent"):
            self.model.final_texts += 1
        stream = bool(body.get("stream"))
        if path.endswith("/chat/completions"):
            if stream:
                return self._send_stream(openai_chunks(reply, model))
            return self._send_json(200, openai_message(reply, model))
        if stream:
            return self._send_stream(anthropic_events(reply, model))
        return self._send_json(200, anthropic_message(reply, model))

    def _log(self, body: dict, reply: dict | None = None) -> None:
        self.model.log(
            {
                "t": time.time(),
                "method": self.command,
                "path": self.path.split("?")[0],
                "user_agent": self.headers.get("User-Agent", ""),
                "model": body.get("model"),
                "stream": bool(body.get("stream")),
                "tools": sorted(tool_schemas(body)),
                "messages": conversation(body),
                "reply": reply,
            }
        )
