"""Coverage by kind (issue 30): for each event a version declares, whether a recipe probes it
for its *payload* (does it fire, with what input), its *liveness* (a hook on it hanging past its
timeout) and, where the agent declares a decision for it, its *decision*; each with the recipes
and those with a record for that version. The kind of a recipe is its classifier's (KIND_OF) and
the events it is about are its subject event's native names; an inventory recipe (every event
hooked at once) is about the events its records show fired. docs/surface.md has the mapping."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from probes.agents import AGENTS
from probes.catalog.recipes import Recipe
from probes.errors import InputError
from probes.limits import BadFile, read_bounded
from probes.surface.model import Surface

PROBE_KINDS = ("payload", "liveness", "decision")
# A recipe's kind, from its classifier. Those not here (context, background, grandchild, ...)
# probe something else about a hook (its output's context, its children) and count as none.
KIND_OF: dict[str, str] = {
    **dict.fromkeys(("payload", "payload-casing", "fired", "inventory", "env", "stdin", "cwd"), "payload"),
    **dict.fromkeys(("lifecycle", "subagent", "tool-names"), "payload"),
    "liveness": "liveness",
    **dict.fromkeys(("decision", "stop-loop", "approval", "halt", "rewrite", "elicitation"), "decision"),
}
INVENTORY = "inventory"  # about the events its records show fired, not its subject
NOT_DECISIONS = {"additionalContext"}  # a hookSpecificOutput field that decides nothing
UNREACHABLE = Path(__file__).with_name("unreachable.yaml")
DOCS = Path(__file__).parents[2] / "docs" / "surface.md"  # its section SECTION, a table agent | event | reason
SECTION = "## Events no recipe reaches"
RECORD_MAX = 8 << 20
GAPS_SHOWN = 6  # names per kind on the summary line (the rows have them all)


class Unreachable(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    agent: str
    event: str
    reason: str


class KindCell(TypedDict):
    recipes: list[str]  # recipes of this kind about the event (controls left out)
    evidence: list[str]  # those with a record for this version (an inventory: that shows it fired)


class EventRow(TypedDict):
    name: str
    where: str
    kinds: dict[str, KindCell]  # "payload", "liveness", "decision"
    decision_declared: bool  # the version declares a decision field for it (EVENT.FIELD), or a recipe probes one
    unreachable: str | None  # why no recipe can reach it headless (unreachable.yaml), else None


class EventCoverage(TypedDict):
    events: list[EventRow]
    counts: dict[str, dict[str, int]]  # kind -> {"expected", "recipe", "evidence"}
    gaps: dict[str, list[str]]  # kind -> reachable events expected to have it and without evidence here
    unreachable: list[dict[str, str]]  # {"event", "reason"}
    summary: str


def unreachable(agent: str, path: Path = UNREACHABLE, docs: Path = DOCS) -> dict[str, str]:
    """event -> reason, for `agent`: the rows of docs/surface.md's section SECTION (a Markdown
    table agent | event | reason), then the data file's (absent: none); a bad file is one line."""
    try:
        data = yaml.safe_load(read_bounded(path, 1 << 20).decode()) if path.exists() else []
        rows = [Unreachable.model_validate(r) for r in data or []]
    except (BadFile, UnicodeDecodeError, yaml.YAMLError, ValidationError, TypeError) as e:
        raise InputError(f"{path}: expected a list of {{agent, event, reason}} ({str(e).splitlines()[0][:200]})") from None
    return {**{r.event: r.reason for r in rows if r.agent == agent}, **documented(agent, docs)}


def documented(agent: str, docs: Path) -> dict[str, str]:
    """The table rows of the docs' SECTION for `agent` (event names in backquotes or not)."""
    try:
        text = read_bounded(docs, 1 << 20).decode() if docs.exists() else ""
    except (BadFile, UnicodeDecodeError):
        return {}
    _, _, section = text.partition(SECTION + "\n")
    found: dict[str, str] = {}
    for line in section.split("\n## ", 1)[0].splitlines():
        cells = [c.strip().strip("`*") for c in line.strip().strip("|").split("|")]
        if line.lstrip().startswith("|") and len(cells) >= 3 and cells[0] == agent and not set(cells[1]) <= set("-: "):
            found[cells[1]] = "|".join(cells[2:]).strip()
    return found


def subject_names(recipe: Recipe, agent: str) -> set[str]:
    """The native names the recipe's subject event's hooks are registered under on `agent`."""
    a = AGENTS[agent]
    try:
        resolved = recipe.for_agent(agent)
    except Exception:  # a recipe whose default setup does not resolve here is about nothing here
        return set()
    names: set[str] = set()
    for hook in resolved.hooks:
        if hook.event == resolved.subject:
            names |= {n for n in (hook.native, a.native_event(hook.event, hook.casing), a.native_event(hook.event)) if n}
    return names


def fired(path: Path) -> set[str]:
    """The events an inventory record shows fired (observations.fired); none when unreadable."""
    try:
        record = json.loads(read_bounded(path, RECORD_MAX, follow=False))
        return {str(e) for e in record.get("observations", {}).get("fired", [])}
    except (BadFile, ValueError, AttributeError):
        return set()


def about(recipe: Recipe, agent: str, results: Path, version: str) -> tuple[set[str], set[str]]:
    """(events the recipe is about, those of them its record for `version` gives evidence of).
    An inventory is about what fired in any of its records for the agent."""
    if recipe.classifier == INVENTORY:
        everywhere: set[str] = set()
        for path in sorted((results / agent).glob(f"*/{recipe.name}.json")):
            everywhere |= fired(path)
        return everywhere, fired(results / agent / version / f"{recipe.name}.json")
    names = subject_names(recipe, agent)
    folder = results / agent / version
    has = (folder / f"{recipe.name}.json").is_file() or any(folder.glob(f"{recipe.name}@*.json"))
    return names, names if has else set()


def event_coverage(s: Surface, recipes: Mapping[str, Recipe], results: Path, reasons: Mapping[str, str]) -> EventCoverage:
    """Each declared event's payload, liveness and decision recipes; `reasons`: unreachable()."""
    cells: dict[tuple[str, str], KindCell] = {}
    for name, recipe in sorted(recipes.items()):
        kind = KIND_OF.get(recipe.classifier)
        if kind is None or recipe.control_of or s.agent not in recipe.agents:
            continue
        events, proven = about(recipe, s.agent, results, s.version)
        for e in sorted(events):
            cell = cells.setdefault((kind, e), {"recipes": [], "evidence": []})
            cell["recipes"].append(name)
            if e in proven:
                cell["evidence"].append(name)
    split = [d.name.split(".", 1) for d in s.of("decision_field") if "." in d.name]  # EVENT.FIELD
    declared = {event for event, name in split if name not in NOT_DECISIONS}
    rows: list[EventRow] = []
    for item in s.of("event"):
        kinds = {k: cells.get((k, item.name), {"recipes": [], "evidence": []}) for k in PROBE_KINDS}
        rows.append(
            {
                "name": item.name,
                "where": item.where(),
                "kinds": kinds,
                "decision_declared": item.name in declared or bool(kinds["decision"]["recipes"]),
                "unreachable": reasons.get(item.name),
            }
        )
    counts: dict[str, dict[str, int]] = {}
    gaps: dict[str, list[str]] = {}
    for k in PROBE_KINDS:
        expected = [r for r in rows if k != "decision" or r["decision_declared"]]
        counts[k] = {
            "expected": len(expected),
            "recipe": sum(1 for r in expected if r["kinds"][k]["recipes"]),
            "evidence": sum(1 for r in expected if r["kinds"][k]["evidence"]),
        }
        gaps[k] = [r["name"] for r in expected if not r["kinds"][k]["evidence"] and not r["unreachable"]]
    away = [{"event": r["name"], "reason": r["unreachable"] or ""} for r in rows if r["unreachable"]]
    return {
        "events": rows,
        "counts": counts,
        "gaps": gaps,
        "unreachable": away,
        "summary": summary_line(s.agent, s.version, len(rows), counts, gaps, [a["event"] for a in away]),
    }


def names(items: list[str], shown: int = GAPS_SHOWN) -> str:
    return ", ".join(items[:shown]) + (f", +{len(items) - shown} more" if len(items) > shown else "")


def summary_line(
    agent: str, version: str, declared: int, counts: dict[str, dict[str, int]], gaps: dict[str, list[str]], away: list[str]
) -> str:
    """`claude 2.1.332: 34 events declared; payload 12, liveness 8, decision 6 (of 9 with a
    decision); gaps: payload 19 (A, B, ...), ...; 3 not reachable headless: X, Y, Z`: the counts
    are events with evidence for this version; a gap, a reachable event without."""
    c = counts
    line = (
        f"{agent} {version}: {declared} events declared; payload {c['payload']['evidence']}, "
        f"liveness {c['liveness']['evidence']}, decision {c['decision']['evidence']} "
        f"(of {c['decision']['expected']} with a decision)"
    )
    shown = [f"{k} {len(gaps[k])} ({names(gaps[k])})" for k in PROBE_KINDS if gaps[k]]
    line += "; gaps: " + ", ".join(shown) if shown else "; no gaps"
    return line + (f"; {len(away)} not reachable headless: {', '.join(away)}" if away else "")


def kinds_text(c: EventCoverage) -> list[str]:
    """A line per event: each kind as `payload 3/2` (recipes/with evidence here) or `-`."""
    lines = ["events by kind (recipes / with evidence here):"]
    for r in c["events"]:
        parts = []
        for k in PROBE_KINDS:
            cell = r["kinds"][k]
            if k == "decision" and not r["decision_declared"]:
                parts.append(f"{k} n/a")
            else:
                parts.append(f"{k} {len(cell['recipes'])}/{len(cell['evidence'])}" if cell["recipes"] else f"{k} -")
        away = f"  not reachable headless: {r['unreachable']}" if r["unreachable"] else ""
        lines.append(f"  {r['name']:<28} {', '.join(parts)}{away}")
    return lines
