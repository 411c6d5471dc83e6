"""MCP tool hooks against their server's life: does an mcp_tool hook's call reach the probe's
MCP server (runner/mcp_server.py), and did its event fire before the CLI had initialised that
server (claude-code#57932: SessionStart mcp_tool hooks skipped, "MCP server not connected")?
And an elicitation hook's answer: what did the server that asked for input get back?"""

from __future__ import annotations

from typing import TypedDict

from probes.classify.registry import Observations, classifier, hook_words
from probes.classify.session import (
    Invocation,
    SessionRecord,
    find_in_requests,
    first,
    hook_end,
    hook_spec,
    of_event,
    payload_of,
    sentinels,
    tool_ran,
)

SERVER = "mcp_server"  # the server's own record (handler_type and canonical event)


class McpOrderObs(TypedDict):
    hook_called: bool  # the mcp_tool hook's call reached the server
    hook_offset_s: float | None  # when (from the CLI's start)
    event_offset_s: float | None  # when a command hook on the same event started: the event fired
    server_initialize_offset_s: float | None  # the CLI's initialize request to the server
    server_initialized_offset_s: float | None  # its notifications/initialized: connected
    event_before_initialize: bool | None
    tool_ran: bool


def say_mcp_order(outcome: str, obs: Observations, event: str | None) -> str:
    hook = hook_words(event).replace(" hook", " mcp_tool hook")
    return {
        "called": f"{hook} called its MCP tool",
        "skipped-before-connect": f"{hook} never called its MCP tool: its event fired before the server was initialised",
        "not-called": f"{hook} never called its MCP tool, though the server was initialised",
        "no-server": "the CLI never initialised the MCP server",
    }.get(outcome, "")


@classifier("mcp-order", reads=("subject", "invocations", "side_effects"), says=say_mcp_order)
def mcp_order(session: SessionRecord) -> tuple[str, McpOrderObs]:
    """Is the subject's mcp_tool hook called, and did its event come before the MCP server's
    initialisation? A command hook on the same event (recipe mcp-tool-session-start) times it."""
    invs = of_event(session, session["subject"])
    call = next((i for i in invs if i.get("handler_type") == "mcp_tool"), None)
    command = next((i for i in invs if i.get("handler_type", "command") == "command"), None)
    server: Invocation | None = next(
        (i for i in session["invocations"] if i.get("handler_type") == SERVER and i["canonical_event"] == SERVER), None
    )
    fired = command["start_offset_s"] if command else None
    init = server["start_offset_s"] if server else None
    obs: McpOrderObs = {
        "hook_called": call is not None,
        "hook_offset_s": call["start_offset_s"] if call else None,
        "event_offset_s": fired,
        "server_initialize_offset_s": init,
        "server_initialized_offset_s": server["gone_offset_s"] if server else None,
        "event_before_initialize": fired < init if fired is not None and init is not None else None,
        "tool_ran": tool_ran(session),
    }
    if call is not None:
        return "called", obs
    if server is None:
        return "no-server", obs
    return ("skipped-before-connect" if obs["event_before_initialize"] else "not-called"), obs


class ElicitationObs(TypedDict):
    asked: bool  # the probe's MCP server sent elicitation/create during the model's call
    action: str | None  # what the client answered it: accept, decline, cancel (None: no answer)
    content: object  # the answer's content (accept)
    hook_fired: bool
    hook_exit: str | None
    content_reached_model: bool  # the hook's sentinel (PROBE-...) in a model request after it: the tool's result


ELICITED = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}


def say_elicitation(outcome: str, obs: Observations, event: str | None) -> str:
    hook, end = hook_words(event), obs.get("hook_exit") or "no exit status"
    got = f"the MCP server that asked for input got {obs.get('action')}"
    return {
        "accepted": f"{hook} answered ({end}); {got}, with content {obs.get('content')}",
        "declined": f"{hook} answered ({end}); {got}",
        "cancelled": f"{hook} answered ({end}); {got}",
        "no-answer": f"{hook} answered ({end}); the MCP server that asked for input got no answer",
        "not-asked": "the MCP server never asked for input",
        "no-hook": f"{hook} never ran",
    }.get(outcome, "")


@classifier("elicitation", reads=("subject", "hooks", "invocations", "model_requests"), says=say_elicitation)
def elicitation(session: SessionRecord) -> tuple[str, ElicitationObs]:
    """The probe's MCP server asks the client for input (a tool call carrying `elicit`); the
    subject's hook (Elicitation, ElicitationResult) may answer for the person: what answer did
    the server get?"""
    call = next((i for i in of_event(session, "tools/call") if "elicitation" in payload_of(i)), None)
    asked = payload_of(call).get("elicitation")
    answer = asked.get("result") if isinstance(asked, dict) else None
    result = answer if isinstance(answer, dict) else {}
    inv = first(session, session["subject"])
    words = sentinels(hook_spec(session, session["subject"]))
    obs: ElicitationObs = {
        "asked": call is not None,
        "action": str(result["action"]) if "action" in result else None,
        "content": result.get("content"),
        "hook_fired": inv is not None,
        "hook_exit": hook_end(inv),
        "content_reached_model": find_in_requests(session, words, inv["start_offset_s"] if inv else None)["reached"],
    }
    if call is None:
        return "not-asked", obs
    if inv is None:
        return "no-hook", obs
    return ELICITED.get(obs["action"] or "", "no-answer"), obs
