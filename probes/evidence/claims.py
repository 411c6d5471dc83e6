"""Claims: what a doc or changelog says a recipe should find, set beside what it found.

A claim gets one of three verdicts, always with its reason:

- `agrees`: the run could show it, and did (the outcome and observations the claim names);
- `disagrees`: the run could show it, and showed otherwise;
- `untested`: the run cannot show it either way: the claim names other versions, or the run
  lacks what the claim `needs` (a budget as long as the duration it is about, the later tool
  call it is about, a precondition such as an active trace), whatever its outcome.

`agrees` stays beside the verdict for older readers: true, false, or null when untested.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from probes.versions.spec import semver_key

if TYPE_CHECKING:
    from probes.catalog.parts import Claim, Needs
    from probes.catalog.recipes import ResolvedRecipe

Verdict = Literal["agrees", "disagrees", "untested"]
VERDICTS: tuple[Verdict, ...] = ("agrees", "disagrees", "untested")

# Any of these in the CLI's environment turns OpenTelemetry on (Copilot CLI's `help
# monitoring`; Claude Code's CLAUDE_CODE_ENABLE_TELEMETRY): a span, and so a trace, exists.
OTEL_ON = (
    "COPILOT_OTEL_ENABLED",
    "COPILOT_OTEL_FILE_EXPORTER_PATH",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "CLAUDE_CODE_ENABLE_TELEMETRY",
    "TRACEPARENT",
)


@dataclass(frozen=True)
class Run:
    """What a run had, as far as deciding a claim goes."""

    budget_s: float | None  # the session's budget (the record's cli.budget_s)
    tool_calls: int  # the tool calls the recipe scripts
    env_names: frozenset[str]  # what the harness started the CLI with (names)
    permissions: str = "preapproved"  # its permissions setup (catalog/setup.py)

    @classmethod
    def of(cls, recipe: ResolvedRecipe, cli: Mapping[str, Any]) -> Run:
        """From the recipe as the agent ran it and the record's `cli` (CliRun as JSON)."""
        if recipe.mode == "interactive":
            scripts = [a.turns or recipe.turns for a in recipe.actions if a.prompt]
        else:
            scripts = [recipe.turns]
        budget = cli.get("budget_s")
        return cls(
            budget_s=float(budget) if isinstance(budget, (int, float)) else None,
            tool_calls=sum(1 for turns in scripts for step in turns if step.tool is not None),
            env_names=frozenset(cli.get("env_names") or ()),
            permissions=recipe.permissions,
        )


@dataclass(frozen=True)
class Precondition:
    met: Callable[[Run], bool]
    missing: str  # why a run without it cannot decide the claim


PRECONDITIONS: dict[str, Precondition] = {
    "trace": Precondition(
        lambda run: bool(run.env_names & set(OTEL_ON)),
        "no trace was started: the run did not turn OpenTelemetry on (" + ", ".join(OTEL_ON[:3]) + ")",
    ),
    "extension-status": Precondition(lambda run: False, "the harness does not record an extension's status"),
    "hooks-untrusted": Precondition(
        lambda run: run.permissions != "trusted-hash",
        "the run's hooks were trusted by hash ahead (permissions=trusted-hash): none is unreviewed",
    ),
    "prompt-history": Precondition(
        lambda run: False, "the run does not record the session's prompt history (a -p session has one prompt)"
    ),
}


def applies(claim: Claim, agent: str, version: str) -> bool:
    if claim.agent != agent:
        return False
    if claim.since and semver_key(version) < semver_key(claim.since):
        return False
    return not (claim.until and semver_key(version) > semver_key(claim.until))


def versions_named(claim: Claim) -> str:
    if claim.since and claim.until:
        return f"{claim.since} to {claim.until}"
    return f"{claim.since} and later" if claim.since else f"up to {claim.until}"


def unmet(needs: Needs | None, run: Run | None) -> list[str]:
    """Why `run` cannot decide a claim that needs `needs` (empty: it can)."""
    if needs is None:
        return []
    if run is None:
        return ["nothing is known of the run"]
    why = []
    if needs.budget_s is not None:
        if run.budget_s is None:
            why.append("the run's budget is not known")
        elif run.budget_s < needs.budget_s:
            why.append(f"the run's budget ({run.budget_s:g} s) is shorter than the {needs.budget_s:g} s the claim is about")
    if needs.tool_calls is not None and run.tool_calls < needs.tool_calls:
        made = f"{run.tool_calls} tool call{'' if run.tool_calls == 1 else 's'}"
        why.append(f"the recipe makes {made}; the claim is about call {needs.tool_calls} or later")
    if needs.precondition is not None and not PRECONDITIONS[needs.precondition].met(run):
        why.append(PRECONDITIONS[needs.precondition].missing)
    return why


def compare(claim: Claim, outcome: str, observations: Mapping[str, object]) -> tuple[bool, str]:
    """Whether the outcome and observations are what the claim says, and in what words."""
    agree, said = [], []
    if claim.outcome is not None:
        agree.append(claim.outcome == outcome)
        said.append(f"outcome {outcome}" + ("" if agree[-1] else f", the claim says {claim.outcome}"))
    for key, want in (claim.observation or {}).items():
        got = observations.get(key)
        agree.append(got == want)
        said.append(f"{key} {short(got)}" + ("" if agree[-1] else f", the claim says {short(want)}"))
    for key, (low, high) in (claim.within or {}).items():
        got = observations.get(key)
        inside = isinstance(got, (int, float)) and not isinstance(got, bool) and low <= got <= high
        agree.append(inside)
        said.append(f"{key} {short(got)} {'within' if inside else 'outside'} [{low:g}, {high:g}]")
    return all(agree), "; ".join(said) or "the claim names no outcome or observation"


def short(value: object) -> str:
    return "none" if value is None else str(value)


def judge(
    claims: Iterable[Claim],
    agent: str,
    version: str | None,
    outcome: str,
    observations: Mapping[str, object],
    run: Run | None = None,
    spoiled: str | None = None,
) -> list[dict[str, object]]:
    """Each claim of the recipe for this agent, as the recipe states it (unset fields left
    out), with its `verdict`, the `reason`, whether it `applies` to this version, and
    `agrees` (true, false, or null when untested). A run the session `spoiled` (the
    record's error) decides nothing."""
    out = []
    for c in claims:
        if c.agent != agent:
            continue
        verdict: Verdict
        applicable = bool(version) and applies(c, agent, version or "")
        if not version:
            verdict, reason = "untested", "the executed version is not known"
        elif spoiled:  # the session filled its disk or made its records unreadable
            verdict, reason = "untested", f"the session spoiled its own run ({spoiled.split(':')[0]})"
        elif not applicable:
            verdict, reason = "untested", f"the claim names {agent} {versions_named(c)}, not this version"
        elif why := unmet(c.needs, run):
            verdict, reason = "untested", "; ".join(why)
        else:
            agrees, reason = compare(c, outcome, observations)
            verdict = "agrees" if agrees else "disagrees"
        out.append(
            {
                **c.model_dump(mode="json", exclude_none=True),
                "agrees": {"agrees": True, "disagrees": False, "untested": None}[verdict],
                "verdict": verdict,
                "reason": reason,
                "applies": applicable,
            }
        )
    return out


def verdict_of(claim: Mapping[str, object]) -> Verdict:
    """A recorded claim's verdict; records older than verdicts have only `agrees`."""
    for v in VERDICTS:
        if claim.get("verdict") == v:
            return v
    agrees = claim.get("agrees")
    return "agrees" if agrees is True else "disagrees" if agrees is False else "untested"


def applies_recorded(claim: Mapping[str, object]) -> bool:
    """Whether a recorded claim names this record's version (older records: agrees not null)."""
    a = claim.get("applies")
    return a if isinstance(a, bool) else claim.get("agrees") is not None
