"""A hook's verdict, one rule for every agent, read off its records and the session against
the control: not-fired, effective, passive, ignored, broken (fail-open or fail-closed),
undecided; and what --strict and --expect accept."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from probes.catalog.scenarios import Scenario
from probes.check import kinds, plugins
from probes.check.config import Configured, unseen_program
from probes.check.model import NOT_JUDGED, PASSING, Expectation, HookReport
from probes.check.report import short
from probes.check.session import Session


def flat(data: dict[str, Any]) -> dict[str, Any]:
    """A JSON answer with Claude Code's hookSpecificOutput lifted to the top."""
    specific = data.get("hookSpecificOutput")
    return {**data, **specific} if isinstance(specific, dict) else data


class Answer(NamedTuple):
    """What one invocation answered, as its agent's docs define an answer."""

    decision: str | None  # block (exit 2), deny, ask, allow, stop, rewrite, context, text, json (no decision); None: nothing
    data: dict[str, Any] | None  # its JSON object
    error: str | None  # why it is not an answer at all: the hook is broken


def answer_of(inv: dict[str, Any], block_codes: frozenset[int]) -> Answer:
    """One invocation read as its agent reads it: an exit code the docs give for blocking, a
    JSON object, plain text, nothing; or no answer at all (killed, not found, not executable,
    an exit code the docs call an error, output that is not the JSON it looks like)."""
    if why := broken_why(inv, block_codes):
        return Answer(None, None, why)
    code = inv.get("exit_code")
    if code in block_codes:
        return Answer(f"block (exit {code})", None, None)
    out = (inv.get("output") or "").strip()
    if not out:
        return Answer(None, None, None)
    try:
        data = json.loads(out)
    except ValueError as e:
        if out[:1] in "{[":
            return Answer(None, None, f"stdout is not valid JSON ({e})")
        return Answer("text", None, None)
    if not isinstance(data, dict):
        return Answer(None, None, f"stdout is a JSON {type(data).__name__}, not an object")
    merged = flat(data)
    parts = []
    decision = merged.get("permissionDecision") or merged.get("decision")
    if decision in ("deny", "block", "ask", "allow", "approve"):
        parts.append(str(decision))
    if merged.get("continue") is False:
        parts.append("stop")
    if merged.get("cancel") is True:  # Cline's {"cancel": true, "errorMessage": ...}
        parts.append("cancel")
    if any(k in merged for k in ("modifiedArgs", "updatedInput", "modifiedPrompt", "updatedPrompt", "overrideInput")):
        parts.append("rewrite")
    if context_key(merged):
        parts.append("context")
    return Answer("+".join(parts) or "json (no decision)", data, None)


BLOCKING = ("deny", "block", "stop", "cancel")
CONTEXT_KEYS = ("additionalContext", "contextModification")  # Cline's: contextModification


def context_key(answer: dict[str, Any]) -> str | None:
    """The key of an answer's text for the model (its JSON flattened), if it has one."""
    return next((k for k in CONTEXT_KEYS if isinstance(answer.get(k), str)), None)


def blocks(decision: str | None) -> bool:
    return any(word in (decision or "") for word in BLOCKING)


def broken_why(inv: dict[str, Any], block_codes: frozenset[int] = frozenset({2})) -> str | None:
    """Why an invocation is no answer: the hook did not run to an answer."""
    code = inv.get("exit_code")
    lines = [line.strip() for line in (inv.get("stderr") or "").splitlines() if line.strip()]
    said = f": {lines[-1][:120]}" if lines else ""  # its last line: a traceback's error, a shell's complaint
    if inv.get("killed_by") == "self":
        return f"crashed ({inv.get('killed_by_signal')})"
    if inv.get("killed_by") in ("cli", "harness"):
        who = "the CLI" if inv["killed_by"] == "cli" else "the harness, at the end of the session"
        return f"timed out: killed by {who} ({inv.get('killed_by_signal')}) after {inv.get('duration_s') or '?'} s"
    if code == 127:
        return "command not found (exit 127)" + said
    if code == 126:
        return "not executable (exit 126)" + said
    if code not in (0, None) and code not in block_codes:
        codes = f"exit {', '.join(map(str, sorted(block_codes)))}" if block_codes else "no exit code"
        return f"exit {code}, an error (its docs give {codes} to block)" + said
    return None


def own_path(command: str) -> str | None:
    """The first path a command names that is not absolute (`/dev/null` is in many a CLI's own
    shell commands: droid 0.225.2 runs `find ... 2>/dev/null`): a shell that ran it ran the
    hook's script, though not as its config says. own_path: `"$X"/.claude/a.sh` -> .claude/a.sh."""
    for m in re.finditer(r"(?:[\w.-]+/)+[\w.-]+", command):
        if not re.search(r"(?:^|[\s<>=])/$", command[: m.start()]):
            return m.group()
    return None


def matcher_matches(matcher: str | None, tools: Sequence[str], matchers: str = "full") -> bool:
    """Whether a matcher matches one of the tools: as a regular expression matching the whole
    name, or any part of it (Gemini CLI), or always where the agent does not read matchers (VS Code)."""
    if matcher in (None, "", "*") or matchers == "ignored":
        return True
    assert matcher is not None
    find = re.search if matchers == "search" else re.fullmatch
    try:
        return any(find(matcher, t) for t in tools)
    except re.error:
        return matcher in tools


def changed_steps(hooked: Session, control: Session) -> list[str]:
    """The steps that went otherwise than in the control: ran there and not here, or not
    there and here (each measured on both sides)."""
    out = []
    for s in hooked.steps:
        if s["ran"] is not None and s["control_ran"] is not None and s["ran"] != s["control_ran"]:
            what = repr(s.get("command") or s["kind"])
            out.append(
                f"{what} did not run (it ran without the hooks)" if s["control_ran"] else f"{what} ran (not without the hooks)"
            )
    return out


def treated_of(hooked: Session, control: Session) -> str:
    """fail-closed when something that happened without the hooks did not happen with them."""
    stopped = any(s["control_ran"] and s["ran"] is False for s in hooked.steps)
    return "fail-closed" if stopped or (control.prompt_reached and not hooked.prompt_reached) else "fail-open"


def settle(report: HookReport, verdict: str, reason: str, treated: str | None = None) -> None:
    report["verdict"], report["reason"], report["treated"] = verdict, reason, treated


def not_fired_why(h: Configured, scenario: Scenario, hooked: Session, expected: bool) -> str:
    tool_event = h.canonical in TOOL_EVENTS
    if h.canonical is None:
        return f"{h.native} is no event this harness knows for the agent"
    if h.canonical not in scenario.events:
        return f"scenario {scenario.name} does not exercise {h.canonical}"
    if tool_event and not expected:
        return f"matcher {h.matcher!r} matches none of the tools called ({', '.join(hooked.tools_used) or 'none'})"
    why = "the CLI did not run it, though the scenario exercises its event"
    if h.condition is not None:  # Claude Code's `if`: a permission rule the tool call must match
        return f"{why} (its `if` {h.condition!r} may not match the tool call)"
    if h.mode is not None and not h.mode & 0o111:  # Cline 2.14.0 skips a hook file it cannot execute (X_OK)
        return f"{why} (the file is not executable, mode {h.mode:o}: an agent that runs the file itself skips it)"
    if h.type == "mcp_tool" and h.canonical == "session_start":
        return f"{why} (a CLI may run it before its MCP servers connect: recipe mcp-tool-session-start)"
    return why


TOOL_EVENTS = ("pre_tool", "post_tool", "post_tool_failure", "permission_request")


def verdict_of(h: Configured, scenario: Scenario, hooked: Session, control: Session, block_codes: frozenset[int]) -> HookReport:
    """One rule for every agent: `broken` when the hook did not answer as a hook (and how the
    CLI treated it); `effective` for an answer the agent documents that changed the session
    against the control (a step, a tool's result, text that reached the model); `ignored`
    for such an answer that changed nothing; `passive` for no answer; `not-fired`."""
    invs = hooked.records.get(h.key, [])
    tool_event = h.canonical in TOOL_EVENTS
    named = dict(h.matcher_names)
    tools = [*hooked.tools_used, *(named[t] for t in hooked.tools_used if t in named)]
    expected = h.canonical in scenario.events and (not tool_event or matcher_matches(h.matcher, tools, h.matchers))
    report: HookReport = {
        "source": h.source,
        "event": h.native,
        "canonical": h.canonical,
        "matcher": h.matcher,
        "command": h.command,
        "type": h.type,
        "fired": len(invs),
        "exit_code": invs[-1].get("exit_code") if invs else None,
        "decision": None,
        "verdict": "not-fired",
        "treated": None,
        "reason": "",
        "expected": expected,
    }
    if h.api is not None:
        return plugin_verdict(h, scenario, hooked, control, report, invs)
    if h.type != "command" or h.why_not is not None:  # or a command it cannot watch (config.unwatched)
        return other_verdict(h, scenario, hooked, report, invs)
    if not invs and (why := unseen_program(h)) is not None:  # a hook file its agent may run unseen (python3)
        settle(report, NOT_JUDGED, why)
        return report
    if not invs:
        path = own_path(h.command)
        unseen = next((c for c in hooked.shells if path and path in c), None) if h.canonical else None
        if unseen is not None:  # it ran, but not as its config says: the watcher could not tell it was this hook
            settle(report, "undecided", f"a shell ran {short(unseen, 60)!r}, not its command as configured: not recorded")
            return report
        report["reason"] = not_fired_why(h, scenario, hooked, expected)
        return report
    answers = [answer_of(inv, block_codes) for inv in invs]
    report["decision"] = ", ".join(dict.fromkeys(a.decision for a in answers if a.decision)) or None
    changed = changed_steps(hooked, control)
    broken = next((a.error for a in answers if a.error), None)
    if broken:
        treated = treated_of(hooked, control)
        went = f"; the CLI {'stopped: ' + changed[0] if treated == 'fail-closed' and changed else 'went on as without it'}"
        settle(report, verdict="broken", treated=treated, reason=broken + went)
        return report
    decisions = [a.decision for a in answers if a.decision]
    if not decisions or all(d in ("json (no decision)", "allow", "approve") for d in decisions):
        what = f"answered {report['decision']}" if decisions else "answered nothing (exit 0, no output)"
        settle(report, verdict="passive", reason=f"{what}: nothing to change")
        return report
    contexts = [
        str(flat(a.data).get(context_key(flat(a.data)) or ""))
        for a in answers
        if a.decision and "context" in a.decision and a.data
    ]
    texts = [(inv.get("output") or "").strip() for inv, a in zip(invs, answers, strict=True) if a.decision == "text"]
    reached = [t for t in contexts + texts if t and any(t in m for m in hooked.model_texts)]
    blocking = any(blocks(d) for d in decisions)
    rewrite = any("rewrite" in d for d in decisions)
    results_differ = hooked.tool_results != control.tool_results
    if blocking and changed:
        settle(report, verdict="effective", reason=f"blocked: {changed[0]}")
    elif rewrite and (changed or results_differ):
        settle(report, verdict="effective", reason="rewrote: the tool's result differs from the control's")
    elif reached:
        settle(report, verdict="effective", reason="its text reached the model")
    elif blocking:
        settle(
            report,
            verdict="ignored",
            treated="fail-open",
            reason=f"answered {report['decision']}; every step ran as without the hooks",
        )
    elif rewrite:
        settle(report, verdict="ignored", reason="asked to rewrite; the tool's result is the control's")
    elif contexts or texts:
        wheres = {
            "hookSpecificOutput.additionalContext"
            if "additionalContext" in (a.data.get("hookSpecificOutput") or {})
            else context_key(a.data) or "additionalContext"
            for a in answers
            if a.decision and "context" in a.decision and a.data
        }
        wheres |= {"plain stdout"} if texts else set()
        settle(report, verdict="ignored", reason=f"its text ({', '.join(sorted(wheres))}) never reached the model")
    else:  # ask, or another decision this scenario has nothing for
        settle(report, verdict="passive", reason=f"answered {report['decision']}: nothing to change in this scenario")
    return report


def other_verdict(
    h: Configured, scenario: Scenario, hooked: Session, report: HookReport, invs: list[dict[str, Any]]
) -> HookReport:
    """A hook of another type than command: not judged (why), else fired or not, earned as a
    command's is, with who answered it in the user's place (the check) and what the check
    changed for it, in its line. The check's answers change nothing: it is `passive` when it
    fired."""
    if h.why_not is not None:
        settle(report, NOT_JUDGED, h.why_not)
        return report
    report["changed"] = kinds.changed(h) or ""
    report["payload"] = invs[-1].get("payload") if invs else None
    if h.type == "http":  # status and headers, secret values redacted as every record's are
        report["delivery"] = invs[-1].get("http") if invs else None
    if not invs:
        report["reason"] = not_fired_why(h, scenario, hooked, report["expected"])
        return report
    times = f"{len(invs)} time{'' if len(invs) == 1 else 's'}"
    settle(report, "passive", f"fired {times}: {kinds.answered(h)} (nothing to change)")
    return report


def against(session: Session, control: Session) -> None:
    """Each step of `session` beside the control's."""
    for s, c in zip(session.steps, control.steps, strict=False):
        s["control_ran"] = c["ran"]


def ok(h: HookReport) -> bool:
    """What --strict accepts: effective or passive, not fired where the scenario does not
    exercise the hook, or not judged (the check cannot run it as its agent would: said why)."""
    return h["verdict"] in PASSING or h["verdict"] == NOT_JUDGED or (h["verdict"] == "not-fired" and not h["expected"])


def expectations_of(scenario: Scenario, expect: Sequence[str], hooked: Session) -> list[Expectation]:
    """--expect per --command: blocked is met when the step's command did not run, allowed
    when it did (measured: a step that cannot be told meets neither)."""
    steps = [s for s in hooked.steps if s["kind"] == "shell"]
    out: list[Expectation] = []
    for want, step in zip(expect, steps, strict=False):
        met = step["ran"] is (want == "allowed") if step["ran"] is not None else False
        out.append(
            {
                "command": step.get("command") or "",
                "expect": want,
                "ran": step["ran"],
                "control_ran": step["control_ran"],
                "met": met,
            }
        )
    return out


def plugin_verdict(
    h: Configured, scenario: Scenario, hooked: Session, control: Session, report: HookReport, invs: list[dict[str, Any]]
) -> HookReport:
    """A plugin file (check/plugins.py), by the same rule: `broken` when it failed to load or a
    handler threw where its API documents no throw (or never returned); `effective` when a
    block or a change it made to its arguments changed the session against the control;
    `ignored` when it changed nothing; `passive` when it answered nothing; `not-fired` when
    the CLI did not load it, or called none of its handlers. Its events: the handlers it registered."""
    api = h.api or ""
    report["changed"] = h.changed or ""
    load = next((i for i in invs if i.get("event") == "load"), None)
    handlers = plugins.handlers_of(load) if load else []
    report["event"] = ", ".join(handlers) or "plugin"
    registered = load is not None and load.get("extension_result") == "returned"  # else it should have loaded
    report["expected"] = not registered or any(plugins.canonical(h, n) in scenario.events for n in handlers)
    calls = [plugins.call_of(api, i) for i in invs if i.get("event") != "load"]
    report["fired"] = len(calls)
    report["decision"] = ", ".join(dict.fromkeys(c.decision for c in calls if c.decision)) or None
    if load is None:
        report["reason"] = "the CLI did not load it (no such plugin folder on this version?)"
        return report
    changed = changed_steps(hooked, control)
    treated = treated_of(hooked, control)
    went = f"; the CLI {'stopped: ' + changed[0] if treated == 'fail-closed' and changed else 'went on as without it'}"
    if load.get("extension_result") == "threw":
        settle(report, "broken", f"failed to load: {load.get('error')}" + went, treated)
        return report
    if load.get("ended_at") is None:
        report["reason"] = "imported, but the CLI never called it as a plugin"
        return report
    if not calls:
        what = f"registered {', '.join(handlers)}" if handlers else "registered no handler"
        why = "" if report["expected"] else f" (scenario {scenario.name} exercises none of them)"
        report["reason"] = f"loaded, {what}; none was called{why}"
        return report
    counts = ", ".join(f"{n} x{sum(c.handler == n for c in calls)}" for n in dict.fromkeys(c.handler for c in calls))
    broken = next((c for c in calls if c.error), None)
    if broken:
        settle(report, "broken", f"{broken.handler} {broken.error}" + went, treated)
        return report
    blocking = [c for c in calls if c.decision and "block" in c.decision.split("+")[0]]
    changing = [c for c in calls if c.decision and ("changed" in c.decision or "returned" in c.decision)]
    results_differ = hooked.tool_results != control.tool_results
    if blocking and changed:
        said = f" ({blocking[0].said})" if blocking[0].said else ""
        settle(report, "effective", f"blocked by {blocking[0].handler}{said}: {changed[0]}")
    elif changing and (changed or results_differ):
        what = changed[0] if changed else "the tool's result differs from the control's"
        settle(report, "effective", f"{changing[0].handler} {changing[0].decision}: {what}")
    elif blocking:
        settle(report, "ignored", f"{blocking[0].handler} blocked; every step ran as without the plugins", "fail-open")
    elif changing:
        settle(report, "ignored", f"{changing[0].handler} {changing[0].decision}; the session went as the control's")
    else:
        settle(report, "passive", f"called {counts}: each returned and changed nothing")
    return report
