"""results/index.html: one self-contained page (no script, style or font from elsewhere, no
timestamp: the same evidence gives the same bytes). Each recipe is a row with its question;
each agent a column, side by side, holding a bar along that agent's version axis: one
segment per range of versions with one verdict (ranges.line), coloured by what the verdict
means (colours.py), linked to its evidence, with a tick per probed version and each
boundary marked exact (a solid line) or open (a hatched gap: unprobed releases between)."""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from pathlib import Path

from probes.catalog.setup import base_of
from probes.evidence.load import Cell, grouped, versions_of
from probes.report.cells import Classifiers, Known
from probes.report.colours import MEANINGS, css, meaning_of_cell
from probes.report.coverage import Coverages, coverage_html
from probes.report.legend import CLAIM_HEADERS, claims_list, legend_html
from probes.report.page_script import SCRIPT, STYLE
from probes.report.ranges import Line, line, line_text
from probes.report.timeline import span
from probes.versions.spec import semver_key

AXIS_LABELS = 6  # version labels under an agent's heading, first and last among them


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def pct(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") + "%"


def axis_of(cells: list[Cell], agent: str, candidates: Sequence[str] | None) -> tuple[list[str], int]:
    """The agent's axis: a place per probed version, and one place (`""`) for each run of
    candidate releases between two probed versions that nothing probed, so an open boundary
    shows as a gap, while years of unprobed releases do not squeeze the probed ones to
    slivers. With the number of those unprobed releases."""
    probed = versions_of(cells, agent)
    seen = set(probed)
    slots: list[str] = []
    unprobed = 0
    for before, after in zip(probed, probed[1:] + [None], strict=True):
        slots.append(before)
        if after is not None:
            gap = [v for v in candidates or () if semver_key(before) < semver_key(v) < semver_key(after) and v not in seen]
            unprobed += len(gap)
            slots += [""] if gap else []
    return slots, unprobed


def axis_head(axis: list[str]) -> str:
    """The agent's versions under its name: first and last with the count between (the fitted
    view, where each row has its own range), and labels placed along the whole axis (the common
    view; the page's script hides any that would touch)."""
    n = len(axis)
    places = [i for i, v in enumerate(axis) if v]
    k = len(places)
    spread = sorted({places[round(j * (k - 1) / (AXIS_LABELS - 1))] for j in range(AXIS_LABELS)}) if k > AXIS_LABELS else places
    picks: list[int] = []
    for i in spread:  # a label too close to the one before is dropped; the oldest and newest always show
        if picks and (i - picks[-1]) * AXIS_LABELS < n:
            if i != places[-1]:
                continue
            if len(picks) > 1:
                picks.pop()
        picks.append(i)
    where = {0: ("f", "0%"), n - 1: ("l", "100%")}  # the first label starts at the axis's start, the last ends at its end
    labels = "".join(
        '<span class="{}" style="left:{}">{}</span>'.format(*where.get(i, ("m", pct((i + 0.5) * 100 / n))), esc(axis[i]))
        for i in picks
    )
    ends = [esc(axis[0]), f"{k} probed"] + ([esc(axis[-1])] if k > 1 else [])
    fit = "".join(f"<span>{e}</span>" for e in ends)
    return f'<div class="fit">{fit}</div><div class="axis">{labels}</div>'


def axis_title(axis: list[str], unprobed: int) -> str:
    k = sum(1 for v in axis if v)
    between = (
        f", {unprobed} unprobed releases between them (a run of them takes one place on the common axis)" if unprobed else ""
    )
    return f"{k} versions probed, {axis[0]} to {axis[-1]}{between}"


def runs(indices: list[int]) -> str:
    """`0-4 7 9-12`: the probed versions' places on the axis, which the page's script turns
    into ticks linked to their records (an anchor each would make a 150-version page ~2 MB)."""
    out: list[list[int]] = []
    for i in indices:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return " ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def bar(ln: Line, axis: list[str], base: Path) -> str:
    """Segments, boundaries and ticks of one recipe on one agent, placed by version index twice:
    on the agent's whole axis (--l, --w) and fitted to the row's own first to last probed
    version (--fl, --fw); the page's CSS picks one."""
    at = {v: i for i, v in enumerate(axis)}
    lo, hi = at[ln.stretches[0].segment.first], at[ln.stretches[-1].segment.last]
    w, fw = 100 / len(axis), 100 / (hi - lo + 1)

    def place(a: float, b: float) -> str:  # the places a up to b (exclusive) on the axis
        return f"--l:{pct(a * w)};--w:{pct((b - a) * w)};--fl:{pct((a - lo) * fw)};--fw:{pct((b - a) * fw)}"

    parts: list[str] = []
    for n, st in enumerate(ln.stretches):
        s = st.segment
        m = meaning_of_cell(st.cells[0])
        href = esc(os.path.relpath(st.cells[0].path, base))
        count = len(s.probed)
        title = f"{st.text}: {span(s)} ({count} probed, {m.name}); links to {s.first}"
        parts.append(
            f'<a class="seg m-{m.key}" style="{place(at[s.first], at[s.last] + 1)}" href="{href}" title="{esc(title)}">'
            f"{esc(st.text)}</a>"
        )
        if n:
            b = ln.boundaries[n - 1]
            kind, what = ("x", "exact: no release between") if b.exact else ("o", "open: unprobed releases between")
            title = esc(f"{b.before} to {b.after}, {what}")
            parts.append(f'<i class="bd {kind}" style="{place(at[b.before] + 1, at[b.after])}" title="{title}"></i>')
    ticks = runs(sorted(at[c.version] for st in ln.stretches for c in st.cells))
    first, last = axis[lo], axis[hi]
    ends = f"<span>{esc(first)}</span>" + (f"<span>{esc(last)}</span>" if hi > lo else "")
    cap = f'<div class="cap">{esc(line_text(ln))}</div>' if ln.boundaries else ""  # a change, spelt out
    return (
        f'<div class="bar">{"".join(parts)}</div><div class="ticks" data-p="{ticks}" data-lo="{lo}" data-hi="{hi}"></div>'
        f'<div class="ends">{ends}</div>{cap}'
    )


def rows(cells: list[Cell], axes: dict[str, list[str]], classifiers: Classifiers, known: Known, base: Path) -> str:
    agents = list(axes)
    by = grouped(cells)
    newest: dict[str, Cell] = {}
    for c in sorted(cells, key=lambda c: semver_key(c.version)):
        newest[c.recipe] = c  # the question and control as the newest record states them
    out = []
    for group in sorted({classifiers.get(base_of(r), "other") for r in newest}):
        out.append(f'<tr class="grp" data-group="{esc(group)}"><th colspan="{len(agents) + 1}">{esc(group)}</th></tr>')
        for recipe in sorted(r for r in newest if classifiers.get(base_of(r), "other") == group):
            rec = newest[recipe].record
            lines = {a: line(by.get((a, recipe), []), a, recipe, classifiers.get(base_of(recipe)), known.get(a)) for a in agents}
            per_agent = {a: len(ln.boundaries) for a, ln in lines.items()}  # the script counts the shown agent's
            changes = sum(per_agent.values())
            chg = " ".join(f"{a}:{n}" for a, n in per_agent.items())
            tds = []
            for a in agents:
                ln = lines[a]
                inner = bar(ln, axes[a], base) if ln.stretches else '<div class="none">not probed</div>'
                tds.append(f'<td data-agent="{esc(a)}">{inner}</td>')
            badge = f' <span class="chg">{changes} change{"s" if changes > 1 else ""}</span>' if changes else ""
            control = (
                f'<div class="ctl">control of <a href="#{esc(rec.control_of)}">{esc(rec.control_of)}</a></div>'
                if rec.control_of
                else ""
            )
            out.append(
                f'<tr id="{esc(recipe)}" data-group="{esc(group)}" data-changes="{1 if changes else 0}" data-chg="{esc(chg)}" '
                f'data-control="{1 if rec.control_of else 0}"{" class=ctlrow" if rec.control_of else ""}>'
                f'<th><a href="#{esc(recipe)}">{esc(recipe)}</a>{badge}<div class="qn">{esc(rec.question)}</div>{control}</th>'
                f"{''.join(tds)}</tr>"
            )
    return "".join(out)


def legend_colours() -> str:
    items = "".join(f'<li><span class="sw m-{m.key}">{esc(m.name)}</span><span>{esc(m.means)}</span></li>' for m in MEANINGS)
    marks = (
        '<li><span class="sw demo"><i class="bd x"></i></span><span>an exact boundary: the two versions are adjacent '
        "releases</span></li>"
        '<li><span class="sw demo"><i class="bd o"></i></span><span>an open boundary: releases between them were not '
        "probed (<code>probe bisect</code> finds the change)</span></li>"
        '<li><span class="sw demo tk"></span><span>a probed version (a tick under the bar, linked to its record)</span></li>'
    )
    return f'<section id="colours"><h2>Colours and marks</h2><ul>{items}{marks}</ul></section>'


def claims_tables(cells: list[Cell], agent: str, classifiers: Classifiers) -> str:
    body = "".join(
        f'<tr data-group="{esc(classifiers.get(base_of(row[0]), "other"))}">'
        + "".join(f"<td>{esc(x)}</td>" for x in row)
        + "</tr>"
        for row in claims_list(cells, agent)
    )
    if not body:
        return ""
    head = "".join(f"<th>{esc(h)}</th>" for h in CLAIM_HEADERS)
    return (
        f'<section data-agent="{esc(agent)}"><h2>{esc(agent)}: claims</h2>'
        f'<table class="claims"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></section>'
    )


def html_page(
    cells: list[Cell], classifiers: Classifiers, base: Path, known: Known | None = None, coverage: Coverages | None = None
) -> str:
    """The page; `base` is the directory it is written to (evidence links are relative);
    `coverage`: each agent's events probed (report/coverage.py), a section after the colours."""
    known = known or {}
    agents = sorted({c.agent for c in cells})
    both = {a: axis_of(cells, a, known.get(a)) for a in agents}
    axes = {a: axis for a, (axis, _) in both.items()}
    heads = "".join(
        f'<th data-agent="{esc(a)}" title="{esc(axis_title(*both[a]))}">{esc(a)}{axis_head(both[a][0])}</th>' for a in agents
    )
    results = cells[0].path.parents[2] if cells else base  # load() reads RESULTS/agent/version/recipe.json
    rel = os.path.relpath(results, base)
    prefix = "" if rel == "." else Path(rel).as_posix() + "/"  # the script's links, relative to the page
    axes_json = json.dumps(axes, sort_keys=True).replace("</", "<\\/")
    groups = sorted({classifiers.get(base_of(c.recipe), "other") for c in cells})

    def opts(items: list[str]) -> str:
        return "".join(f"<option>{esc(i)}</option>" for i in items)

    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>probe evidence</title>
<style>{STYLE}{css()}
</style></head><body data-results="{esc(prefix)}">
<h1>probe: what hooks do, by CLI version</h1>
<p class="lead">One row per recipe, with the question it asks. Under each agent, a bar along the versions
the row probed (oldest left, from its first to its last probed version, both named under the bar; "same
axis on every row" lines the rows up on the agent's whole axis): each segment is a range of versions that
gave one verdict, coloured by what happened, and links to the record of its first version; the ticks under
it are the probed versions, each linked to its record. A row whose verdict changes is marked, and each
change is drawn exact or open.</p>
{legend_colours()}
{coverage_html(coverage or {})}
<p class="filters">Agent <select id="agent"><option>all</option>{opts(agents)}</select>
Recipe group <select id="group"><option>all</option>{opts(groups)}</select>
<label><input type="checkbox" id="changes"> only recipes whose verdict changes</label>
<label><input type="checkbox" id="controls" checked> controls</label>
<label><input type="checkbox" id="common"> same axis on every row</label></p>
<table class="tl"><thead><tr><th>recipe: question</th>{heads}</tr></thead>
<tbody>{rows(cells, axes, classifiers, known, base)}</tbody></table>
{"".join(claims_tables(cells, a, classifiers) for a in agents)}
{legend_html(classifiers)}
<script id="axes" type="application/json">{axes_json}</script>
<script>{SCRIPT}</script>
</body></html>
"""
