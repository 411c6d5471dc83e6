"""Committed evidence as tables (Markdown, JSON, HTML), diffs between versions, and
citations for ADRs. Everything here reads results/ and is byte-stable: the same evidence
gives the same output."""

from __future__ import annotations

import hashlib
import html
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from tabulate import tabulate

from .claims import verdict_of
from .classify import CLASSIFIERS
from .errors import InputError
from .evidence import Evidence, load_evidence, write_atomic
from .legend import CLAIM_HEADERS, claim_marks, claims_list, legend, legend_html
from .limits import EVIDENCE_MAX_BYTES, BadFile, parse_json, read_bounded, warn
from .spec import semver_key
from .store import Blobs, refs

Classifiers = Mapping[str, str]  # recipe -> the name of its classifier
Pairs = Mapping[str, str]  # extension recipe -> the command-hook recipe asking its question


@dataclass(frozen=True)
class Cell:
    agent: str
    version: str
    recipe: str
    path: Path
    record: Evidence

    @property
    def label(self) -> str:
        runs = self.record.repeats or {}
        outcomes: dict[str, int] = runs.get("outcomes") or {self.record.outcome: 1}
        if len(outcomes) > 1:  # a flaky cell shows the spread of labels seen
            return " / ".join(f"{o}×{n}" for o, n in sorted(outcomes.items()))
        return self.record.outcome


def load(
    results: Path, agent: str | None = None, recipe: str | None = None, version: str | None = None, strict: bool = False
) -> list[Cell]:
    """The evidence in `results`. A file that is not an evidence record is skipped with a
    warning naming it (the rest still renders), or refused when `strict`."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    cells: list[Cell] = []
    blobs = Blobs()  # a blob many records refer to is read once
    for path in sorted(results.glob("*/*/*.json")):
        a, v, r = path.parts[-3], path.parts[-2], path.stem
        if (agent and a != agent) or (recipe and r != recipe) or (version and v != version):
            continue
        try:
            cells.append(Cell(a, v, r, path, Evidence.model_validate(load_evidence(path, blobs=blobs))))
        except InputError as e:
            if strict:
                raise
            warn(f"skipping {e}")
    return cells


def versions_of(cells: list[Cell], agent: str) -> list[str]:
    return sorted({c.version for c in cells if c.agent == agent}, key=semver_key)


def key_observation(record: Evidence, classifier: str | None) -> str:
    """The value of the observation the classifier names as its key, shown beside the label."""
    registered = CLASSIFIERS.get(classifier or "")
    name = registered.key if registered else None
    value = record.observations.get(name) if name else None
    if name is None or value is None or value == {} or value == []:
        return ""
    if name.endswith("_s") and isinstance(value, (int, float)):
        return f"{value:.1f}s"
    if isinstance(value, bool):
        return name.split("_")[0] + (" yes" if value else " no")
    if isinstance(value, dict):  # context_location: {word: [roles]} (anything else shown as found)
        roles = sorted({str(r) for rs in value.values() for r in (rs if isinstance(rs, list) else [rs])})
        return ",".join(roles)
    return str(value)


def cell_text(cell: Cell, classifier: str | None) -> str:
    parts = [cell.label, key_observation(cell.record, classifier), claim_marks(cell.record)]
    return " ".join(p for p in parts if p)


def matrix(cells: list[Cell], agent: str, classifiers: Classifiers) -> tuple[list[str], list[list[str]]]:
    """Recipes as rows, versions as columns, for one agent."""
    versions = versions_of(cells, agent)
    by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
    rows = []
    for recipe in sorted({c.recipe for c in cells if c.agent == agent}):
        rows.append([recipe, *[cell_text(by[recipe, v], classifiers.get(recipe)) if (recipe, v) in by else "" for v in versions]])
    return versions, rows


def markdown(cells: list[Cell], classifiers: Classifiers, pairs: Pairs | None = None) -> str:
    out = []
    for agent in sorted({c.agent for c in cells}):
        versions, rows = matrix(cells, agent, classifiers)
        out.append(f"## {agent}\n\n" + tabulate(rows, headers=["recipe", *versions], tablefmt="github") + "\n")
        side = surfaces(cells, agent, pairs or {}, classifiers)
        if side:
            out.append(
                f"### {agent}: one question, two surfaces (command hook, extension handler)\n\n"
                + tabulate(side, headers=["command hook", "extension", "version", "command", "extension"], tablefmt="github")
                + "\n"
            )
        claims = [[cell.replace("|", "\\|") for cell in row] for row in claims_list(cells, agent)]
        if claims:
            out.append(f"### {agent}: claims\n\n" + tabulate(claims, headers=CLAIM_HEADERS, tablefmt="github") + "\n")
    if cells:
        out.append(legend(classifiers))
    return "\n".join(out)


def surfaces(cells: list[Cell], agent: str, pairs: Pairs, classifiers: Classifiers) -> list[list[str]]:
    """Each extension recipe beside the command-hook recipe asking its question, per version
    where both were probed."""
    by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
    rows = []
    for ext, command in sorted(pairs.items()):
        for v in versions_of(cells, agent):
            if (ext, v) in by and (command, v) in by:
                rows.append(
                    [
                        command,
                        ext,
                        v,
                        cell_text(by[command, v], classifiers.get(command)),
                        cell_text(by[ext, v], classifiers.get(ext)),
                    ]
                )
    return rows


def as_json(cells: list[Cell]) -> str:
    rows = [
        {
            "agent": c.agent,
            "version": c.version,
            "recipe": c.recipe,
            "outcome": c.record.outcome,
            "label": c.label,
            "observations": c.record.observations,
            "claims": c.record.claims,
            "evidence": str(c.path),
        }
        for c in cells
    ]
    return json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_index(results: Path, cells: list[Cell], classifiers: Classifiers, pairs: Pairs | None = None) -> list[Path]:
    """results/README.md and results/<agent>.md, regenerated identically from the JSON."""
    written = []
    agents = sorted({c.agent for c in cells})
    index = ["# Evidence", "", "Generated by `probe table` from the JSON records beside this file; do not edit by hand.", ""]
    for agent in agents:
        versions = versions_of(cells, agent)
        n = len({c.recipe for c in cells if c.agent == agent})
        index.append(f"- [{agent}]({agent}.md): {n} recipes on {len(versions)} versions ({', '.join(versions)})")
        page = results / f"{agent}.md"
        write_atomic(
            page,
            f"# {agent}\n\n" + markdown([c for c in cells if c.agent == agent], classifiers, pairs).split("\n", 2)[2],
            "table",
            "check the results directory",
        )
        written.append(page)
    index += ["", legend(classifiers).replace("### Reading a cell", "## Reading a cell")]
    write_atomic(results / "README.md", "\n".join(index).rstrip("\n") + "\n", "table", "check the results directory")
    return [results / "README.md", *written]


# ---------------------------------------------------------------- diff


def compared(cells: list[Cell], agent: str, v1: str, v2: str) -> int:
    return len(
        {c.recipe for c in cells if c.agent == agent and c.version == v1}
        & {c.recipe for c in cells if c.agent == agent and c.version == v2}
    )


# One change between two versions: an outcome or an observation value, and for name lists
# and maps (fields, env names) what was added and removed.
Change = TypedDict(
    "Change",
    {
        "recipe": str,
        "what": str,
        "from": object,
        "to": object,
        "added": NotRequired[list[str]],
        "removed": NotRequired[list[str]],
    },
)


def diff(cells: list[Cell], agent: str, v1: str, v2: str, timings: bool = False) -> list[Change]:
    """What changed for each recipe between two versions: labels, observation values (timings
    only when asked: they move on every run), payload fields and types, env names."""
    a = {c.recipe: c.record for c in cells if c.agent == agent and c.version == v1}
    b = {c.recipe: c.record for c in cells if c.agent == agent and c.version == v2}
    for v, side in ((v1, a), (v2, b)):
        if not side:
            raise InputError(f"no evidence for {agent}@{v} in results: run `probe matrix --agent {agent} --versions {v}` first")
    changes: list[Change] = []
    for recipe in sorted(set(a) & set(b)):  # recipes probed on one version only are not compared
        ra, rb = a[recipe], b[recipe]
        if ra.outcome != rb.outcome:
            changes.append({"recipe": recipe, "what": "outcome", "from": ra.outcome, "to": rb.outcome})
        oa, ob = ra.observations, rb.observations
        for key in sorted(set(oa) | set(ob)):
            if oa.get(key) == ob.get(key) or (key.endswith("_s") and not timings):
                continue
            change: Change = {"recipe": recipe, "what": f"observation {key}", "from": oa.get(key), "to": ob.get(key)}
            added_removed = set_change(oa.get(key), ob.get(key))
            if added_removed:
                change["added"], change["removed"] = added_removed
            changes.append(change)
    return changes


def names(value: object) -> set[str] | None:
    """A list of names, or a map (of name lists, or of values), as a set of names to compare."""
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return set(value)
    if isinstance(value, dict) and all(isinstance(x, list) for x in value.values()):
        return {f"{k}.{x}" for k, xs in value.items() for x in xs} | {f"{k}" for k in value}
    if isinstance(value, dict):
        return {f"{k}={json.dumps(x, sort_keys=True)}" for k, x in value.items()}
    return None


def set_change(a: object, b: object) -> tuple[list[str], list[str]] | None:
    """For lists of names (fields, env names) and maps of them: (added, removed)."""
    na, nb = names(a), names(b)
    if na is None or nb is None:
        return None
    return sorted(nb - na), sorted(na - nb)


def diff_text(changes: list[Change], agent: str, v1: str, v2: str, compared: int) -> str:
    head = f"{agent} {v1} -> {v2}, {compared} recipe(s) probed on both"
    if not changes:
        return f"{head}: no change in labels or observations"
    lines = [f"{head}: {len(changes)} change(s)"]
    for c in changes:
        if "added" in c:
            parts = [f"+{x}" for x in c["added"]] + [f"-{x}" for x in c.get("removed", [])]
            lines.append(f"  {c['recipe']}: {c['what']}: {' '.join(parts) or 'reordered'}")
        else:
            lines.append(f"  {c['recipe']}: {c['what']}: {short(c['from'])} -> {short(c['to'])}")
    return "\n".join(lines)


def short(value: object, as_json: bool = True) -> str:
    """A value on one short line: JSON, a long list cut after 8 items and any text after 160
    characters (diffs, citations); or, not `as_json`, as Python prints it with floats in %g
    (the run summary)."""
    if not as_json:
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, list) and len(value) > 8:
        return json.dumps(value[:8])[:-1] + f", ... {len(value) - 8} more]"
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


# ---------------------------------------------------------------- citation


def evidence_digest(path: Path) -> str:
    """The sha256 of a record as it is now: its file's bytes, then the bytes of each blob it
    refers to (store.py), each once, in ascending order of their names. Read as boundedly as
    the record was, each blob checked against its name; a record with no refs hashes as its
    file alone."""
    try:
        data = read_bounded(path, EVIDENCE_MAX_BYTES)
        record = parse_json(data)
        h = hashlib.sha256(data)
        blobs = Blobs()
        for name in refs(record) if isinstance(record, dict) else []:
            h.update(blobs.get(path.parent, name))
    except BadFile as e:
        raise InputError(f"{path}: not an evidence record ({e})") from None
    return h.hexdigest()


def cite(cell: Cell) -> str:
    """A Markdown block an ADR can paste: the fact, versions, date, evidence digest (of the
    record and what it refers to, evidence_digest), control, and each claim it agrees or
    disagrees with."""
    r = cell.record
    digest = evidence_digest(cell.path)

    facts = ", ".join(
        f"{k}={short(v)}" for k, v in r.observations.items() if isinstance(v, (bool, int, float, str)) and v is not None
    )
    lines = [
        f"**Measured fact** ({r.agent} {r.executed_version}, `{r.recipe}`): {r.question} "
        f"Outcome: **{r.outcome}**{' (' + facts + ')' if facts else ''}.",
        "",
        f"- Executed version: {r.agent} {r.executed_version} (requested {r.requested_version}, "
        f"read back from {r.executed_version_source})",
        f"- Harness: probe {r.harness_version}{f' (commit {r.harness_commit[:12]})' if r.harness_commit else ''}, "
        f"{r.backend} backend, network {r.network}",
        f"- Date: {r.started_at}",
        f"- Evidence: `{cell.path}` (sha256 `{digest}`, of the record and the blobs it refers to)",
        f"- Control: `{r.control or r.control_of}`",
    ]
    for c in r.claims:
        verdict = {"agrees": "agrees with", "disagrees": "**disagrees** with", "untested": "does not test"}[verdict_of(c)]
        why = f" ({c['reason']})" if verdict_of(c) != "agrees" and c.get("reason") else ""
        lines.append(f'- {verdict.capitalize()} {c["source"]}: "{c["says"]}"{why}')
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- HTML


def html_page(cells: list[Cell], classifiers: Classifiers, base: Path) -> str:
    """One self-contained page: the recipe x version matrix per agent, cells coloured by
    outcome and linked to their evidence, filters by agent and recipe group (classifier)."""

    def colour(label: str) -> str:
        hue = int(hashlib.sha256(label.split(" ")[0].encode()).hexdigest()[:4], 16) % 360
        return f"hsl({hue},70%,85%)"

    sections: list[str] = []
    for agent in sorted({c.agent for c in cells}):
        versions, _ = matrix(cells, agent, classifiers)
        by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
        head = "".join(f"<th>{html.escape(v)}</th>" for v in versions)
        body = []
        for recipe in sorted({c.recipe for c in cells if c.agent == agent}):
            group = classifiers.get(recipe, "other")
            tds = []
            for v in versions:
                c = by.get((recipe, v))
                if c is None:
                    tds.append("<td></td>")
                    continue
                href = html.escape(os.path.relpath(c.path, base))
                tds.append(
                    f'<td style="background:{colour(c.label)}"><a href="{href}">'
                    f"{html.escape(cell_text(c, classifiers.get(recipe)))}</a></td>"
                )
            body.append(f'<tr data-group="{html.escape(group)}"><th>{html.escape(recipe)}</th>{"".join(tds)}</tr>')
        claim_rows = "".join(
            f'<tr data-group="{html.escape(classifiers.get(row[0], "other"))}">'
            + "".join(f"<td>{html.escape(x)}</td>" for x in row)
            + "</tr>"
            for row in claims_list(cells, agent)
        )
        claim_head = "".join(f"<th>{html.escape(h)}</th>" for h in CLAIM_HEADERS)
        claim_table = (
            f"<h3>{html.escape(agent)}: claims</h3><table><thead><tr>{claim_head}</tr></thead><tbody>{claim_rows}</tbody></table>"
            if claim_rows
            else ""
        )
        sections.append(
            f'<section data-agent="{html.escape(agent)}"><h2>{html.escape(agent)}</h2>'
            f"<table><thead><tr><th>recipe</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f"{claim_table}</section>"
        )
    groups = sorted(set(classifiers.values()))
    agents = sorted({c.agent for c in cells})

    def opts(items: list[str]) -> str:
        return "".join(f"<option>{html.escape(i)}</option>" for i in items)

    example = "&".join([*(f"agent={a}" for a in agents[:1]), "group=liveness"])  # a view a link can share
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>probe evidence</title>
<style>
body {{ font: 13px system-ui, sans-serif; margin: 1em; }}
table {{ border-collapse: collapse; margin-bottom: 2em; }}
th, td {{ border: 1px solid #bbb; padding: 3px 6px; text-align: left; white-space: nowrap; }}
td a {{ color: #000; text-decoration: none; }}
thead th {{ background: #eee; position: sticky; top: 0; }}
</style></head><body>
<h1>probe evidence</h1>
<p>Recipes by version; each cell is the outcome label, its key observation and a mark per
claim (see Reading a cell, below), linked to its evidence.
Agent <select id="agent"><option>all</option>{opts(agents)}</select>
Recipe group <select id="group"><option>all</option>{opts(groups)}</select></p>
{"".join(sections)}
{legend_html(classifiers)}
<script>
function filter() {{
  const a = document.getElementById('agent').value, g = document.getElementById('group').value;
  document.querySelectorAll('section').forEach(s => s.hidden = a !== 'all' && s.dataset.agent !== a);
  document.querySelectorAll('tbody tr').forEach(r => r.hidden = g !== 'all' && r.dataset.group !== g);
}}
document.getElementById('agent').onchange = filter;
document.getElementById('group').onchange = filter;
// #{example} in the address selects the filters, so a link can share a view
new URLSearchParams(location.hash.slice(1)).forEach((v, k) => {{
  const el = document.getElementById(k); if (el) el.value = v; }});
filter();
</script>
</body></html>
"""
