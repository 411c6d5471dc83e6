"""Coverage: each declared event, handler type and handler field beside the recipes whose hooks
use it on that agent, and whether any of those has evidence for the version in results/.

A recipe's hook uses: its native event (the key it is registered under, and the agent's native
name for its canonical event), its handler type, and the handler fields its config entry is
written with (the recipe's handler fields, and those every entry of its type has: the command
and timeout keys of the agent's config (its first hook source), a prompt hook's prompt, an http hook's url, an
mcp_tool hook's server, tool and input). A declared item no recipe uses is a gap."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from probes.agents import AGENTS
from probes.catalog.recipes import Recipe
from probes.surface.kinds import EventCoverage, event_coverage, kinds_text, unreachable
from probes.surface.model import PLURAL, Surface

COVERED_KINDS = ("event", "handler_type", "handler_field")
DEFAULT_COMMAND_KEYS = ("command", "timeout")
IMPLIED = {"prompt": ("prompt",), "agent": ("prompt",), "http": ("url",), "mcp_tool": ("server", "tool", "input")}


class Row(TypedDict):
    kind: str
    name: str
    where: str
    recipes: list[str]  # recipes whose hooks use it on this agent
    evidence: list[str]  # those with a record for this version in results/


class Coverage(TypedDict):
    agent: str
    version: str
    rows: list[Row]
    counts: dict[str, dict[str, int]]  # kind -> {"declared", "probed" (a recipe), "evidence"}
    summary: str  # the events by kind (kinds.py), and the unreachable ones
    items_summary: str  # every covered kind: `12 of 34 events probed (12 with evidence here), ...`
    by_kind: EventCoverage  # each event's payload, liveness and decision recipes (docs/surface.md)


def command_keys(agent: str) -> tuple[str, str]:
    """The keys a command entry is written with in the agent's own config: those of its first
    hook source (agents/*.py, as `probe check` reads them), e.g. Copilot's bash and timeoutSec."""
    sources = AGENTS[agent].hook_sources
    return (sources[0].command_keys[0], sources[0].timeout_key) if sources and sources[0].command_keys else DEFAULT_COMMAND_KEYS


def uses(recipe: Recipe, agent: str) -> set[tuple[str, str]]:
    """The (kind, name) items a recipe's hooks use on `agent`."""
    a = AGENTS[agent]
    try:
        resolved = recipe.for_agent(agent)
    except Exception:  # a recipe whose default setup does not resolve here uses nothing here
        return set()
    found: set[tuple[str, str]] = set()
    command, timeout = command_keys(agent)
    for hook in resolved.hooks:
        for name in (hook.native, a.native_event(hook.event, hook.casing), a.native_event(hook.event)):
            if name:
                found.add(("event", name))
        raw = hook.raw if isinstance(hook.raw, dict) else None
        kind = str(raw.get("type", "command")) if raw else hook.handler.type
        found.add(("handler_type", kind))
        fields = set(raw) - {"type"} if raw else set(hook.handler.fields()) | set(IMPLIED.get(kind, ()))
        if kind == "command" and not raw:
            fields.add(command)
        if hook.timeout_s is not None and not raw:
            fields.add(timeout if kind == "command" else "timeout")
        found |= {("handler_field", f"{kind}.{f}") for f in fields}
    return found


def evidence_of(results: Path, agent: str, version: str) -> set[str]:
    """The recipes with a record (any setup) for this version."""
    folder = results / agent / version
    return {p.name.split("@", 1)[0].removesuffix(".json") for p in folder.glob("*.json")} if folder.is_dir() else set()


def coverage(s: Surface, recipes: dict[str, Recipe], results: Path) -> Coverage:
    by_item: dict[tuple[str, str], list[str]] = {}
    for name, recipe in sorted(recipes.items()):
        if s.agent in recipe.agents:
            for key in uses(recipe, s.agent):
                by_item.setdefault(key, []).append(name)
    recorded = evidence_of(results, s.agent, s.version)
    rows: list[Row] = []
    for item in s.items:
        if item.kind in COVERED_KINDS:
            using = by_item.get(item.key, [])
            rows.append(
                {
                    "kind": item.kind,
                    "name": item.name,
                    "where": item.where(),
                    "recipes": using,
                    "evidence": [r for r in using if r in recorded],
                }
            )
    counts = {
        k: {
            "declared": sum(1 for r in rows if r["kind"] == k),
            "probed": sum(1 for r in rows if r["kind"] == k and r["recipes"]),
            "evidence": sum(1 for r in rows if r["kind"] == k and r["evidence"]),
        }
        for k in COVERED_KINDS
    }
    by_kind = event_coverage(s, recipes, results, unreachable(s.agent))
    return {
        "agent": s.agent,
        "version": s.version,
        "rows": rows,
        "counts": counts,
        "summary": by_kind["summary"],
        "items_summary": summary_line(s.agent, s.version, counts),
        "by_kind": by_kind,
    }


def summary_line(agent: str, version: str, counts: dict[str, dict[str, int]]) -> str:
    """`claude 2.1.332: 12 of 34 events probed (9 with evidence), 4 of 5 handler types, ...`"""
    parts = []
    for k in COVERED_KINDS:
        c = counts[k]
        parts.append(f"{c['probed']} of {c['declared']} {PLURAL[k]} probed ({c['evidence']} with evidence here)")
    return f"{agent} {version}: " + ", ".join(parts)


def coverage_text(c: Coverage) -> str:
    lines = [c["summary"], c["items_summary"], *kinds_text(c["by_kind"])]
    for kind in COVERED_KINDS:
        rows = [r for r in c["rows"] if r["kind"] == kind]
        if not rows:
            continue
        lines.append(f"{PLURAL[kind]}:")
        for r in rows:
            if r["recipes"]:
                shown = ", ".join(r["recipes"][:4]) + (f", +{len(r['recipes']) - 4} more" if len(r["recipes"]) > 4 else "")
                lines.append(f"  {r['name']:<28} {len(r['recipes'])} recipe(s), {len(r['evidence'])} with evidence: {shown}")
            else:
                lines.append(f"  {r['name']:<28} gap: no recipe  ({r['where']})")
    return "\n".join(lines)
