"""One version checked: the control, the session with the hooks, a session for each hook
another may hide (run alone), and the version's records written together or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from probes.agents import Agent
from probes.catalog.scenarios import Scenario
from probes.check.config import ConfigFile, Configured
from probes.check.model import Report
from probes.check.report import hook_name
from probes.check.session import run_session
from probes.check.verdicts import against, blocks, expectations_of, ok, verdict_of
from probes.errors import InputError
from probes.evidence.model import evidence_path, write_atomic
from probes.evidence.readable import evidence_problem
from probes.evidence.store import put_blobs, stored_form
from probes.progress import say
from probes.versions import prefixes

ALONE_MAX = 4  # hooks run alone, one session each, when another effective hook may hide what they do


def check_version(
    agent: Agent,
    requested: str,
    version: str,
    scenario: Scenario,
    folder: Path,
    configs: Sequence[ConfigFile],
    hooks: Sequence[Configured],
    results: Path,
    backend: str = "local",
    expect: Sequence[str] = (),
) -> Report:
    writes: list[tuple[Path, Any]] = []  # (path, Evidence): checked together, then written
    if backend != "local" and not prefixes.installed(agent, version):  # a local install says its own progress
        say(f"{agent.name} {version}: installing it (once)")
    say(f"{agent.name} {version}: the scenario without the hooks (the control)")
    control = run_session(agent, requested, version, scenario, folder, configs, hooks, None, backend)
    say(f"{agent.name} {version}: the scenario with the hooks")
    hooked = run_session(agent, requested, version, scenario, folder, configs, hooks, {h.key for h in hooks}, backend)
    against(hooked, control)
    verdicts = [verdict_of(h, scenario, hooked, control, agent.block_exit_codes) for h in hooks]
    # A hook beside one that changed the session (a deny, a fail-closed failure) may look
    # fail-closed, or not run at all (Copilot runs no preToolUse hook after a deny); one beside
    # an effective hook on its event may look ignored (Copilot passes one additionalContext),
    # and so may one beside a broken hook on its event (Auggie 0.36.0 reads no hook's JSON
    # answer when another on the call exits with an error). A session in which it runs alone
    # (the others neutral) tells; its verdict is that session's, said so. The first ALONE_MAX
    # such hooks; the others' reasons say they were not.
    effective = [(g, o) for g, o in zip(hooks, verdicts, strict=True) if o["verdict"] == "effective"]
    failed = [(g, o) for g, o in zip(hooks, verdicts, strict=True) if o["verdict"] == "broken"]
    beside: dict[str, tuple[list[str], str]] = {}  # the hooks it was beside, and what they did
    for h, v in zip(hooks, verdicts, strict=True):
        blockers = [
            hook_name(o)
            for g, o in zip(hooks, verdicts, strict=True)
            if g is not h and ((o["verdict"] == "effective" and blocks(o["decision"])) or o["treated"] == "fail-closed")
        ]
        same = [hook_name(o) for g, o in effective if g is not h and g.canonical == h.canonical]
        broken = [hook_name(o) for g, o in failed if g is not h and g.canonical == h.canonical]
        if blockers and (v["treated"] == "fail-closed" or (v["verdict"] == "not-fired" and v["expected"])):
            beside[h.key] = (blockers, "changed the session")
        elif same and v["verdict"] in ("ignored", "not-fired") and v["expected"]:
            beside[h.key] = (same, "changed the session")
        elif broken and v["verdict"] == "ignored":
            beside[h.key] = (broken, "broke on its event")
    for n, h in enumerate(hooks):
        if h.key not in beside:
            continue
        names, did = beside[h.key]
        if list(beside).index(h.key) >= ALONE_MAX:
            verdicts[n]["reason"] += f" (beside {', '.join(names)}; not run alone: at most {ALONE_MAX} are)"
            continue
        say(f"{agent.name} {version}: {hook_name(verdicts[n])} alone")
        alone = run_session(agent, requested, version, scenario, folder, configs, hooks, {h.key}, backend)
        against(alone, control)
        before = "not run" if verdicts[n]["verdict"] == "not-fired" else verdicts[n]["verdict"]
        verdicts[n] = again = verdict_of(h, scenario, alone, control, agent.block_exit_codes)
        again["reason"] = f"{before} beside {', '.join(names)}, which {did}; alone: {again['reason']}"
        aev = alone.evidence.model_copy(
            update={
                "recipe": f"{alone.evidence.recipe}-{n}",
                "outcome": "alone",
                "observations": {"steps": alone.steps, "hook": again, "workspace_changes": alone.changes},
            }
        )
        writes.append((evidence_path(results, aev), aev))
    expectations = expectations_of(scenario, expect, hooked)
    observations: dict[str, Any] = {"steps": hooked.steps, "hooks": verdicts, "workspace_changes": hooked.changes}
    if expectations:
        observations["expectations"] = expectations
    outcome = "pass" if all(ok(v) for v in verdicts) and all(e["met"] for e in expectations) else "fail"
    ev = hooked.evidence.model_copy(update={"outcome": outcome, "observations": observations})
    cev = control.evidence.model_copy(
        update={"outcome": "control", "observations": {"steps": control.steps, "workspace_changes": control.changes}}
    )
    path, cpath = evidence_path(results, ev), evidence_path(results, cev)
    save_checked([*writes, (cpath, cev), (path, ev)])
    report: Report = {
        "agent": agent.name,
        "version": ev.executed_version,
        "requested": requested,
        "scenario": scenario.name,
        "steps": hooked.steps,
        "hooks": verdicts,
        "evidence": str(path),
        "control_evidence": str(cpath),
    }
    if expectations:
        report["expectations"] = expectations
    return report


def save_checked(writes: Sequence[tuple[Path, Any]]) -> None:
    """A version's records, each stored as save_evidence stores it, once all of them are
    known to be readable (limits.evidence_problem: the size every reader accepts, above all):
    else one line, and none of them written."""
    stored = []
    for path, ev in writes:
        text, blobs, shared = stored_form(ev.model_dump(mode="json"))
        problem = evidence_problem(path, text, {**blobs, **shared})
        if problem:
            raise InputError(
                f"the evidence {path.name} of {ev.agent} {ev.executed_version or ev.requested_version} would be unreadable: "
                f"{problem}; check fewer hooks, or hooks that print less (nothing written for this version)"
            )
        stored.append((path, text, blobs, shared))
    for path, text, blobs, shared in stored:
        put_blobs(path, blobs, shared, write_atomic)
        write_atomic(path, text)
