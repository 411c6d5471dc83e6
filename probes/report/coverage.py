"""Each agent's coverage for the tables and the page: of the events its newest version with
evidence declares, how many a recipe probes there (payload, liveness, decision: surface/kinds.py),
and the gaps. Read offline from the surface saved beside the evidence (results/AGENT/
surface-VERSION.json, `probe surface AGENT@V --save`): nothing is installed or read from an
install here, so a table stays fast and the same evidence gives the same bytes."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from probes.catalog.recipes import Recipe
from probes.surface.kinds import PROBE_KINDS, event_coverage, names, unreachable
from probes.surface.read import READERS
from probes.surface.saved import load_saved, saved_versions
from probes.versions.spec import semver_key


@dataclass(frozen=True)
class AgentCoverage:
    agent: str
    newest: str  # the newest version with evidence
    version: str | None = None  # the version whose saved surface was read (None: none saved)
    declared: int = 0
    probed: int = 0  # events with evidence of some kind for `version`
    summary: str = ""  # kinds.summary_line
    gaps: dict[str, list[str]] = field(default_factory=dict)
    unreachable: list[str] = field(default_factory=list)

    @property
    def note(self) -> str:
        """Why the numbers are of another version than the newest, or why there are none."""
        save = f"`probe surface {self.agent}@{self.newest} --save` writes it"
        if self.version is None:
            return f"not known: no surface saved for {self.agent} {self.newest} ({save})"
        return "" if self.version == self.newest else f"the newest saved surface; {self.newest} has none ({save})"

    @property
    def line(self) -> str:
        """`claude 2.1.332: 12 of 34 events probed; payload 8, ...` for Markdown."""
        if self.version is None:
            return f"{self.agent}: coverage {self.note}"
        head = f"{self.probed} of {self.declared} events probed ({self.agent} {self.version})"
        rest = self.summary.split(": ", 1)[1] if ": " in self.summary else self.summary
        return f"{head}: {rest}" + (f" ({self.note})" if self.note else "")


def agent_coverage(results: Path, agent: str, versions: list[str], recipes: Mapping[str, Recipe]) -> AgentCoverage:
    """Coverage from the newest version with evidence (`versions`) that has a saved surface."""
    newest = max(versions, key=semver_key)
    have = [v for v in saved_versions(results, agent) if v in set(versions)]
    s = load_saved(results, agent, have[-1]) if have else None
    if s is None:
        return AgentCoverage(agent, newest)
    c = event_coverage(s, recipes, results, unreachable(agent))
    probed = sum(1 for r in c["events"] if any(r["kinds"][k]["evidence"] for k in PROBE_KINDS))
    away = [a["event"] for a in c["unreachable"]]
    return AgentCoverage(agent, newest, s.version, len(c["events"]), probed, c["summary"], c["gaps"], away)


Coverages = Mapping[str, AgentCoverage]


def coverages(results: Path, versions: Mapping[str, list[str]], recipes: Mapping[str, Recipe]) -> dict[str, AgentCoverage]:
    """Each agent's (`versions`: agent -> its versions with evidence) that probe surface reads."""
    return {a: agent_coverage(results, a, vs, recipes) for a, vs in sorted(versions.items()) if vs and a in READERS}


def coverage_html(cov: Coverages) -> str:
    """The page's section: per agent `N of M events probed`, each kind's gaps, the unreachable."""
    if not cov:
        return ""
    items = []
    for c in cov.values():
        esc = html.escape
        if c.version is None:
            items.append(f'<li data-agent="{esc(c.agent)}"><b>{esc(c.agent)}</b>: coverage {esc(c.note)}</li>')
            continue
        gaps = "".join(f"<li>no {k} evidence: {esc(names(c.gaps[k], 40))}</li>" for k in PROBE_KINDS if c.gaps.get(k)) + (
            f"<li>not reachable headless: {esc(', '.join(c.unreachable))}</li>" if c.unreachable else ""
        )
        note = f" ({esc(c.note)})" if c.note else ""
        items.append(
            f'<li data-agent="{esc(c.agent)}"><b>{esc(c.agent)} {esc(c.version)}: {c.probed} of {c.declared} events '
            f"probed</b>{note}<div>{esc(c.summary.split('; gaps')[0])}</div><ul>{gaps}</ul></li>"
        )
    lead = (
        "Of the hook events each agent's newest version with evidence declares (read from the installed package: "
        "<code>probe surface</code>), those a recipe probes there, for its payload (does it fire, with what), its "
        "liveness (a hook hanging past its timeout) and, where a decision is declared, its decision."
    )
    return f'<section id="coverage"><h2>Events probed</h2><p>{lead}</p><ul>{"".join(items)}</ul></section>'
