"""The scripted model: one HTTP server on loopback that speaks OpenAI chat completions (Copilot, VS Code), Anthropic
messages (Claude Code; Copilot with COPILOT_PROVIDER_TYPE=anthropic), OpenAI Responses (Codex CLI), the Gemini API
(Gemini CLI) and Augment's API (Auggie), each chosen by the request's path (dialects.py, augment.py).

It plays a turn script. A script is a list of steps; each step is a tool call by canonical
kind ({"tool": "shell", ...}), a final text ({"text": "..."}) or an API error ({"error":
{"status": 500, ...}}: the request, and each retry of it, is answered with that HTTP error). A tool call uses the first of
the agent's names for its kind (the plan's `tool_names`) among the tools the CLI sent. The step to play is chosen
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
import os
import selectors
import threading
import time
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:
    from . import augment, dialects, evaluations, texts
    from .arguments import tool_arguments
    from .contract import HOOK_PATH
else:  # run as a script (runner.py), with its files beside it
    import augment
    import dialects
    import evaluations
    import texts
    from arguments import tool_arguments
    from contract import HOOK_PATH

if TYPE_CHECKING:
    from .contract import Delivery, HookAnswer, ModelLogEntry, Reply, ScriptStep

Body = dict[str, Any]  # a request body as the CLI sent it
Schema = dict[str, Any]  # a tool's input schema

ToolNames = Mapping[str, Sequence[str]]  # kind -> the agent's tool names for it, most likely first (from the plan)

AUX_TEXT = "ok"
# A CLI's own command classifier asking the model to grade a command's harm (Claude Code
# 2.1.296: two stages, each retried on an answer it cannot parse, then the command is not
# run): the scripted sessions are permissive, so every command is graded harmless.
SEVERITY_ASKED = "<severity>N</severity>"
HARMLESS = "<severity>0</severity>"
MODEL = "probe-model"
# ---------------------------------------------------------------- script -> tool calls


def tool_schemas(body: Body) -> dict[str, Schema]:
    """Map tool name -> JSON schema of its input, for either dialect."""
    out = {}
    for tool in body.get("tools") or []:
        if "function" in tool:  # OpenAI
            fn = tool["function"]
            out[fn.get("name", "")] = fn.get("parameters") or {}
        elif "name" in tool:  # Anthropic
            out[tool["name"]] = tool.get("input_schema") or {}
    return out


def pick_tool(kind: str, schemas: dict[str, Schema], names: ToolNames) -> str | None:
    """The first of the agent's names for `kind` that the CLI sent (none: a tool named `kind`)."""
    for name in names.get(kind, [kind]):
        if name in schemas:
            return name
    return None


def current_prompt(messages: list[dict[str, Any]], prompts: dict[str, list[ScriptStep]]) -> tuple[int, str | None]:
    """The index of the latest user message holding a prompt marker, and that marker."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") == "user":
            text = texts.content_text(messages[i].get("content"))
            for marker in prompts:
                if marker in text:
                    return i, marker
    return -1, None


def plan_reply(
    body: Body,
    script: list[ScriptStep],
    subagent: tuple[str, list[ScriptStep]] | None = None,
    prompts: dict[str, list[ScriptStep]] | None = None,
    tool_names: ToolNames | None = None,
    hook_answers: Mapping[str, HookAnswer] | None = None,
) -> Reply:
    """Decide the reply to one request: {"text": ...} or {"tool": name, "arguments": ...}.
    A conversation whose opening user messages hold the subagent sentinel is a child: it plays
    the subagent script. A prompt or agent hook's evaluation gets the verdict its recipe scripts."""
    users = [texts.content_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"]
    key = evaluations.hook_key(texts.content_text(body.get("system")), users)
    if key is not None:  # a prompt or agent hook's evaluation
        answer, schemas = (hook_answers or {}).get(key), tool_schemas(body)
        turns = (answer or {}).get("tool_turns") or []
        played = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
        if evaluations.AGENT_TOOL in schemas and played < len(turns):  # the sub-agent's tool calls first
            sub_step: Reply = {**plan_reply({**body, "system": ""}, turns, tool_names=tool_names), "aux": True, "hook": key}
            if answer and answer.get("turn_seconds"):
                sub_step["hold_s"] = answer["turn_seconds"]
            return sub_step
        return evaluations.reply(key, answer, schemas, body.get("messages") or [], texts.content_text(body.get("system")))
    schemas = tool_schemas(body)
    if not schemas:
        if any(SEVERITY_ASKED in texts.content_text(m.get("content")) for m in body.get("messages") or []):
            return {"text": HARMLESS, "aux": True}
        return {"text": AUX_TEXT, "aux": True}
    if subagent and subagent[0] in texts.opening_user_text(body):
        child = plan_reply(body, subagent[1], tool_names=tool_names)
        child["subagent"] = True
        return child
    messages = body.get("messages") or []
    start, marker = current_prompt(messages, prompts or {})
    if marker and prompts:
        script = prompts[marker]
    turn = sum(1 for m in messages[start + 1 :] if texts.played_turn(m))
    step = script[turn] if turn < len(script) else None
    if step is None or "text" in step:
        said = [s for s in script if "text" in s]
        text = step["text"] if step is not None else said[-1]["text"] if said else "done"
        # An agent that ends a task only by a tool of its own (the plan's "finish" names) gets
        # the text as that call: a bare text is a mistake to it (Cline 2.x's attempt_completion).
        finish = pick_tool("finish", schemas, {"finish": (tool_names or {}).get("finish", [])})
        if finish is not None:
            return {"tool": finish, "kind": "finish", "turn": turn, "arguments": {"result": text}}
        return {"text": text, "turn": turn}
    if "error" in step:
        return {"error": step["error"], "turn": turn}
    kind = step.get("tool", "")
    name = pick_tool(kind, schemas, tool_names or {})
    wanted = (tool_names or {}).get(kind) or []
    searched = any(texts.searched_only(m) for m in messages[start + 1 :])  # once: a hook may deny the search
    if name is None and texts.TOOL_SEARCH in schemas and wanted and not searched:  # load it first: not a turn
        load = {"query": f"select:{wanted[0]}"}
        return {"tool": texts.TOOL_SEARCH, "kind": "tool_search", "turn": turn, "aux": True, "arguments": load}
    if name is None:
        return {"text": f"probe: no tool for kind {kind!r} in {sorted(schemas)}", "turn": turn, "missing_tool": kind}
    return {"tool": name, "kind": kind, "turn": turn, "arguments": tool_arguments(step, schemas[name])}


# ---------------------------------------------------------------- server


class ScriptedModel:
    """Serve `script` on 127.0.0.1 at a free port; log requests to `log_path` (JSONL)."""

    def __init__(
        self,
        script: list[ScriptStep],
        log_path: Path,
        host: str = "127.0.0.1",
        subagent: tuple[str, list[ScriptStep]] | None = None,
        prompts: dict[str, list[ScriptStep]] | None = None,
        tool_names: ToolNames | None = None,
        hook_answers: Mapping[str, HookAnswer] | None = None,
    ):
        self.script = script
        self.hook_answers = hook_answers or {}
        self.closing = threading.Event()  # a held answer (a hook that hangs) is let go when the run ends
        self.tool_names = tool_names or {}
        self.subagent = subagent
        self.prompts = prompts or {}
        self.final_texts = 0  # main-conversation text replies served: a turn's model part is over
        self.first_tool_at: float | None = None  # when a main-conversation tool call was first served
        self.log_path = Path(log_path)
        self._lock = threading.Lock()
        self._seq = 0
        handler = type("Handler", (_Handler,), {"model": self})
        self.httpd = ThreadingHTTPServer((host, 0), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        """Accept until woken through the pipe. (serve_forever's shutdown() waits out its poll
        interval, up to 0.5 s after the CLI has exited: a third of a short probe.)"""
        self.httpd.timeout = None
        with selectors.DefaultSelector() as sel:
            sel.register(self.httpd, selectors.EVENT_READ)
            sel.register(self._wake_r, selectors.EVENT_READ)
            while True:
                for key, _ in sel.select():
                    if key.fileobj == self._wake_r:
                        return
                    self.httpd.handle_request()  # ready: accepts at once, a thread serves it

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        os.write(self._wake_w, b"x")
        self._thread.join()
        self.httpd.server_close()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def log(self, entry: ModelLogEntry) -> None:
        with self._lock:
            self._seq += 1
            entry["seq"] = self._seq
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")


class _Handler(BaseHTTPRequestHandler):
    model: ScriptedModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep the CLI's stderr clean
        pass

    def _read_body(self) -> Body:
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
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        return body if isinstance(body, dict) else {"_unparsed": raw[:2000].decode("utf-8", "replace")}

    def _send_json(self, status: int, obj: Any) -> None:
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

    def do_GET(self) -> None:
        self._log({})
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            model = {"id": MODEL, "object": "model", "type": "model", "display_name": MODEL, "created_at": "2026-01-01T00:00:00Z"}
            self._send_json(200, {"object": "list", "data": [model], "has_more": False})
        else:
            self._send_json(404, {"error": {"type": "not_found", "message": "scripted model"}})

    def do_HEAD(self) -> None:
        self._log({})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = self._read_body()
        path = self.path.split("?")[0]
        if path.startswith(HOOK_PATH):  # an http hook's delivery: recorded, answered as scripted
            return self._hook(path[len(HOOK_PATH) :], body)
        if gemini := dialects.gemini_route(path):  # read as a chat; answered in its own shape below
            return self._gemini(body, *gemini)
        if (endpoint := augment.augment_route(path, self.headers.get("User-Agent", ""))) is not None:
            return self._augment(body, endpoint)
        model = body.get("model") or MODEL
        if path.endswith("/count_tokens"):
            self._log(body)
            return self._send_json(200, {"input_tokens": 10})
        if path.endswith("/responses"):  # OpenAI Responses (Codex): read as chat completions
            body = dialects.responses_as_chat(body)
        if not (path.endswith("/chat/completions") or path.endswith("/messages") or path.endswith("/responses")):
            self._log(body)
            return self._send_json(404, {"error": {"type": "not_found", "message": path}})
        m = self.model
        reply = plan_reply(body, m.script, m.subagent, m.prompts, m.tool_names, m.hook_answers)
        self._log(body, reply)
        self._count(reply)
        if "hold_s" in reply and not self._held(reply):
            return
        if "error" in reply:
            return self._send_json(reply["error"].get("status", 500), dialects.error_body(reply["error"], path))
        stream = bool(body.get("stream"))
        if path.endswith("/responses"):
            if stream:
                return self._send_stream(dialects.responses_events(reply, model, body.get("tool_namespaces")))
            return self._send_json(200, dialects.responses_message(reply, model, body.get("tool_namespaces")))
        if path.endswith("/chat/completions"):
            if stream:
                return self._send_stream(dialects.openai_chunks(reply, model))
            return self._send_json(200, dialects.openai_message(reply, model))
        if stream:
            return self._send_stream(dialects.anthropic_events(reply, model))
        return self._send_json(200, dialects.anthropic_message(reply, model))

    def _count(self, reply: Reply) -> None:  # a main-conversation text ends the turn's model part
        if "text" in reply and not reply.get("aux") and not reply.get("subagent"):
            self.model.final_texts += 1
        if "tool" in reply and not reply.get("aux") and not reply.get("subagent") and self.model.first_tool_at is None:
            self.model.first_tool_at = time.time()

    def _held(self, reply: Reply) -> bool:
        """Wait as a scripted slow (or, None, never) answer to a hook does; False when the run
        ended meanwhile (nothing is sent)."""
        self.model.closing.wait(reply.get("hold_s"))
        return not self.model.closing.is_set()

    def _hook(self, key: str, payload: Body) -> None:
        answer = self.model.hook_answers.get(key)
        status = answer.get("status", 200) if answer else 404  # a key the plan does not know
        sent = (answer or {}).get("body")
        text = sent if isinstance(sent, str) else json.dumps(sent if sent is not None else {})
        reply: Reply = {"text": text, "aux": True, "hook": key, "status": status}
        if answer and (answer.get("hang") or answer.get("seconds")):
            reply["hold_s"] = None if answer.get("hang") else answer.get("seconds")
        self._log({}, reply, {"hook_payload": payload, "headers": dict(self.headers.items())})
        if "hold_s" in reply and not self._held(reply):
            return
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _gemini(self, raw: Body, model: str, stream: bool) -> None:
        body = dialects.gemini_as_chat(raw, model, stream)
        callable_only = dialects.gemini_callable(body, raw)
        reply = plan_reply(callable_only, self.model.script, self.model.subagent, self.model.prompts, self.model.tool_names)
        self._log(body, reply)
        if "text" in reply and not reply.get("aux") and not reply.get("subagent"):
            self.model.final_texts += 1
        if "error" in reply:
            return self._send_json(reply["error"].get("status", 500), dialects.error_body(reply["error"], self.path))
        if stream:
            return self._send_stream(dialects.gemini_chunks(reply, model))
        return self._send_json(200, dialects.gemini_response(reply, model))

    def _augment(self, raw: Body, endpoint: str) -> None:
        """Augment's API (Auggie): a chat-stream is played as a chat, the rest answered minimally."""
        if endpoint != augment.CHAT:
            self._log(raw)
            return self._send_json(200, augment.answer(endpoint, MODEL))
        m, body = self.model, augment.augment_as_chat(raw)
        reply = plan_reply(body, m.script, m.subagent, m.prompts, m.tool_names)
        self._log(body, reply)
        self._count(reply)
        if "error" in reply:
            return self._send_json(reply["error"].get("status", 500), dialects.error_body(reply["error"], self.path))
        return self._send_stream(augment.chat_lines(reply))

    def _log(self, body: Body, reply: Reply | None = None, delivery: Delivery | None = None) -> None:
        entry: ModelLogEntry = {
            "seq": 0,  # numbered in order by the log
            "t": time.time(),
            "method": self.command,
            "path": self.path.split("?")[0],
            "user_agent": self.headers.get("User-Agent", ""),
            "model": body.get("model"),
            "stream": bool(body.get("stream")),
            "tools": sorted(tool_schemas(body)),
            "messages": texts.conversation(body),
            "reply": reply,
        }
        if delivery is not None:
            entry["hook_payload"], entry["headers"] = delivery["hook_payload"], delivery["headers"]
        self.model.log(entry)
