"""What `probe check` reports, as the JSON it prints and the evidence it writes: a step, a
hook's verdict, an --expect, one version's report."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

Verdict = Literal["not-fired", "effective", "passive", "ignored", "broken", "undecided", "not-judged"]
PASSING: frozenset[str] = frozenset({"effective", "passive"})
NOT_JUDGED = "not-judged"  # a hook the check cannot run as its agent would (its reason says why): --strict lets it pass


class StepReport(TypedDict):
    kind: str  # canonical tool kind
    tool: str | None  # the CLI's tool name the model called
    ran: bool | None  # with the hooks (None: the scenario cannot tell)
    control_ran: bool | None  # without them
    command: str | None  # a shell step's command


class HookReport(TypedDict):
    source: str  # the config file, relative to the folder
    event: str  # as configured
    canonical: str | None
    matcher: str | None
    command: str  # a command hook's command; for another type: its prompt, its URL, or SERVER/TOOL
    type: str  # its handler type: command, prompt, agent, http, mcp_tool
    fired: int  # invocations
    exit_code: int | None  # the last invocation's
    decision: str | None  # what it answered: deny, block, rewrite, context, text, malformed-json, exit N
    verdict: str
    treated: str | None  # how the CLI treated a broken or ignored hook: fail-open, fail-closed
    reason: str
    expected: bool  # the scenario exercises its event (and its matcher matches a tool used)
    changed: NotRequired[str]  # what the check changed in its copy, or put in the user's place, for this hook
    payload: NotRequired[object]  # a prompt, agent or http hook's last event JSON; an mcp_tool hook's tool input
    delivery: NotRequired[object]  # an http hook's: {status, headers} of the last delivery (secret values redacted)


class Expectation(TypedDict):
    command: str  # a --command
    expect: str  # blocked or allowed (--expect)
    ran: bool | None  # measured, with the hooks
    control_ran: bool | None
    met: bool


class Report(TypedDict):
    agent: str
    version: str | None  # executed, read back from the run
    requested: str
    scenario: str
    steps: list[StepReport]
    hooks: list[HookReport]
    evidence: str
    control_evidence: str
    expectations: NotRequired[list[Expectation]]  # with --expect
