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
from probes.report.colours import MEANINGS, css, meaning_of
from probes.report.legend import CLAIM_HEADERS, claims_list, legend_html
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


def axis_head(axis: list[str], unprobed: int) -> str:
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
    where = {0: "f", n - 1: "l"}  # the first label starts at its tick, the last ends at it
    labels = "".join(
        f'<span class="{where.get(i, "m")}" style="left:{pct((i + 0.5) * 100 / n)}">{esc(axis[i])}</span>' for i in picks
    )
    between = f", {unprobed} unprobed releases between them (a run of them takes one place)" if unprobed else ""
    return f'<div class="sub">{k} versions probed{between}</div><div class="axis">{labels}</div>'


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
    """Segments, boundaries and ticks of one recipe on one agent, placed by version index."""
    at = {v: i for i, v in enumerate(axis)}
    w = 100 / len(axis)
    parts: list[str] = []
    for n, st in enumerate(ln.stretches):
        s = st.segment
        m = meaning_of(st.cells[0].label)
        href = esc(os.path.relpath(st.cells[0].path, base))
        count = len(s.probed)
        title = f"{st.text}: {span(s)} ({count} probed, {m.name}); links to {s.first}"
        parts.append(
            f'<a class="seg m-{m.key}" style="left:{pct(at[s.first] * w)};width:{pct((at[s.last] - at[s.first] + 1) * w)}" '
            f'href="{href}" title="{esc(title)}">{esc(st.text)}</a>'
        )
        if n:
            b = ln.boundaries[n - 1]
            lo, hi = (at[b.before] + 1) * w, at[b.after] * w
            kind, what = ("x", "exact: no release between") if b.exact else ("o", "open: unprobed releases between")
            title = esc(f"{b.before} to {b.after}, {what}")
            parts.append(f'<i class="bd {kind}" style="left:{pct(lo)};width:{pct(hi - lo)}" title="{title}"></i>')
    ticks = runs(sorted(at[c.version] for st in ln.stretches for c in st.cells))
    cap = f'<div class="cap">{esc(line_text(ln))}</div>' if ln.boundaries else ""  # a change, spelt out
    return f'<div class="bar">{"".join(parts)}</div><div class="ticks" data-p="{ticks}"></div>{cap}'


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
            changes = sum(len(ln.boundaries) for ln in lines.values())
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
                f'<tr id="{esc(recipe)}" data-group="{esc(group)}" data-changes="{1 if changes else 0}" '
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


STYLE = """
body{font:13px system-ui,sans-serif;margin:1em;color:#111}
h1{font-size:20px;margin:0 0 .3em}h2{font-size:16px}
.lead{max-width:70em}
#colours ul{list-style:none;padding:0;display:grid;grid-template-columns:repeat(2,minmax(0,42em));gap:2px 2em}
#colours li{display:grid;grid-template-columns:7.5em 1fr;gap:.6em;align-items:center}
.sw{display:block;padding:1px 4px;border:1px solid #888;position:relative;text-align:center}
.sw.demo{height:14px;background:#9fd89f}.sw.demo .bd{left:50%}.sw.tk{height:14px}
.sw.tk::after,.ticks a::after{content:"";position:absolute;left:50%;width:2px;margin-left:-1px;height:5px;background:#333}
.sw.tk::after{top:9px}
.filters{position:sticky;top:0;background:#fff;padding:4px 0;z-index:3}
table.tl{border-collapse:collapse;width:100%;table-layout:fixed}
.tl th,.tl td{border-bottom:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
.tl thead th{position:sticky;top:28px;background:#f4f4f4;z-index:2}
.tl th:first-child{width:26%}
.tl tr.grp th{background:#eef;font-size:12px;text-transform:uppercase;letter-spacing:.05em}
.qn{font-weight:normal;color:#444;font-size:12px}
.ctl{font-weight:normal;color:#666;font-size:11px}
tr.ctlrow th>a{color:#555}tr.ctlrow .bar{height:14px;font-size:10px;line-height:14px}
.chg{background:#111;color:#fff;font-size:10px;padding:0 4px;border-radius:3px;font-weight:normal}
.bar{position:relative;height:20px;line-height:20px;background:#fafafa;border:1px solid #ccc}
.seg{position:absolute;top:0;bottom:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;
 text-decoration:none;padding:0 3px 0 6px;box-sizing:border-box;font-size:12px}
.bd{position:absolute;top:-4px;bottom:-4px;z-index:1;box-sizing:border-box}
.bd.x{min-width:3px;margin-left:-1px;background:#000}
.bd.o{min-width:7px;margin-left:-3px;border:1px solid #000;background:repeating-linear-gradient(45deg,#000 0 2px,#fff 2px 4px)}
.ticks{position:relative;height:5px}
.ticks a{position:absolute;top:0;height:5px}
.cap{font-size:11px;color:#333;margin-top:1px}
.none{color:#999;font-style:italic}
.sub{font-weight:normal;font-size:11px;color:#555}
.axis{position:relative;height:14px;font-weight:normal;font-size:10px;color:#333}
.axis span{position:absolute;white-space:nowrap;transform:translateX(-50%)}
.axis span.f{transform:none;margin-left:-3px}.axis span.l{transform:translateX(-100%)}
table.claims{border-collapse:collapse}.claims th,.claims td{border:1px solid #bbb;padding:2px 5px;text-align:left}
"""

SCRIPT = """
const $ = id => document.getElementById(id);
function filter() {
  const a = $('agent').value, g = $('group').value, ch = $('changes').checked, co = $('controls').checked;
  document.querySelectorAll('[data-agent]').forEach(e => e.hidden = a !== 'all' && e.dataset.agent !== a);
  document.querySelectorAll('tbody tr').forEach(r => r.hidden = (g !== 'all' && r.dataset.group !== g)
    || (ch && r.dataset.changes === '0') || (!co && r.dataset.control === '1'));
  const shown = document.querySelectorAll('thead th[data-agent]:not([hidden])').length;
  document.querySelectorAll('tr.grp').forEach(h => {
    let r = h.nextElementSibling, any = false;
    for (; r && !r.classList.contains('grp'); r = r.nextElementSibling) any = any || !r.hidden;
    h.hidden = !any; h.firstElementChild.colSpan = shown + 1; });
}
// ticks: each probed version's place on its agent's axis, linked to RESULTS/agent/version/recipe.json
const axes = JSON.parse($('axes').textContent), base = document.body.dataset.results;
document.querySelectorAll('.ticks').forEach(t => {
  const td = t.closest('td'), agent = td.dataset.agent, recipe = td.parentElement.id, axis = axes[agent], w = 100 / axis.length;
  t.dataset.p.split(' ').forEach(r => {
    const [a, b] = r.split('-').map(Number);
    for (let i = a; i <= (isNaN(b) ? a : b); i++) {
      const link = document.createElement('a');
      link.href = `${base}${agent}/${axis[i]}/${recipe}.json`; link.title = axis[i];
      link.style.left = (i * w) + '%'; link.style.width = w + '%'; t.appendChild(link); } }); });
['agent', 'group', 'changes', 'controls'].forEach(k => $(k).onchange = filter);
// #agent=claude&group=liveness&changes=1&controls=0 in the address selects the filters
new URLSearchParams(location.hash.slice(1)).forEach((v, k) => {
  const el = $(k); if (!el) return; if (el.type === 'checkbox') el.checked = v === '1'; else el.value = v; });
filter();
"""


def html_page(cells: list[Cell], classifiers: Classifiers, base: Path, known: Known | None = None) -> str:
    """The page; `base` is the directory it is written to (evidence links are relative)."""
    known = known or {}
    agents = sorted({c.agent for c in cells})
    both = {a: axis_of(cells, a, known.get(a)) for a in agents}
    axes = {a: axis for a, (axis, _) in both.items()}
    heads = "".join(f'<th data-agent="{esc(a)}">{esc(a)}{axis_head(*both[a])}</th>' for a in agents)
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
<p class="lead">One row per recipe, with the question it asks. Under each agent, a bar along that agent's
versions (oldest left, the same axis on every row): each segment is a range of versions that gave one
verdict, coloured by what happened, and links to the record of its first version; the ticks under it
are the probed versions, each linked to its record. A row whose verdict changes is marked, and each
change is drawn exact or open.</p>
{legend_colours()}
<p class="filters">Agent <select id="agent"><option>all</option>{opts(agents)}</select>
Recipe group <select id="group"><option>all</option>{opts(groups)}</select>
<label><input type="checkbox" id="changes"> only recipes whose verdict changes</label>
<label><input type="checkbox" id="controls" checked> controls</label></p>
<table class="tl"><thead><tr><th>recipe: question</th>{heads}</tr></thead>
<tbody>{rows(cells, axes, classifiers, known, base)}</tbody></table>
{"".join(claims_tables(cells, a, classifiers) for a in agents)}
{legend_html(classifiers)}
<script id="axes" type="application/json">{axes_json}</script>
<script>{SCRIPT}</script>
</body></html>
"""
