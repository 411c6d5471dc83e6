"""The page's style and script (page.py writes them inline: the page fetches nothing).

Two placements per bar: fitted (default: each row's axis runs from its own first to its last
probed version, so a recipe probed on a few versions is not a sliver) and common (`#common=1`:
the agent's whole axis on every row, so rows line up). Python computes both as CSS variables;
the class `common` on <body> picks one. The script draws the ticks, combines the filters,
keeps the address's hash in step with them and hides axis labels that would overlap."""

from __future__ import annotations

STYLE = """
body{font:13px system-ui,sans-serif;margin:1em;color:#111}
h1{font-size:20px;margin:0 0 .3em}h2{font-size:16px}
.lead{max-width:70em}
#colours ul{list-style:none;padding:0;display:grid;grid-template-columns:repeat(2,minmax(0,42em));gap:2px 2em}
#colours li{display:grid;grid-template-columns:7.5em 1fr;gap:.6em;align-items:center}
.sw{display:block;padding:1px 4px;border:1px solid #888;position:relative;text-align:center}
.sw.demo{height:14px;background:#9fd89f}.sw.demo .bd{left:50%;width:0}.sw.tk{height:14px}
.sw.tk::after,.ticks a::after{content:"";position:absolute;left:50%;width:2px;margin-left:-1px;height:5px;background:#333}
.sw.tk::after{top:9px}
.filters{position:sticky;top:0;background:#fff;padding:4px 0;z-index:3}
table.tl{border-collapse:collapse;width:100%;table-layout:fixed}
.tl th,.tl td{border-bottom:1px solid #ddd;padding:3px 6px;vertical-align:top;text-align:left}
.tl thead th{position:sticky;top:28px;background:#f4f4f4;z-index:2}
.tl th:first-child{width:22%}
th[data-agent]{min-width:16ch}
.tl tr.grp th{background:#eef;font-size:12px;text-transform:uppercase;letter-spacing:.05em}
.qn{font-weight:normal;color:#444;font-size:12px}
.ctl{font-weight:normal;color:#666;font-size:11px}
tr.ctlrow th>a{color:#555}tr.ctlrow .bar{height:14px;font-size:10px;line-height:14px}
.chg{background:#111;color:#fff;font-size:10px;padding:0 4px;border-radius:3px;font-weight:normal}
.bar{position:relative;height:20px;line-height:20px;background:#fafafa;border:1px solid #ccc}
.seg{position:absolute;top:0;bottom:0;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;
 text-decoration:none;padding:0 3px 0 6px;box-sizing:border-box;font-size:12px;min-width:12px}
.bd{position:absolute;top:-4px;bottom:-4px;z-index:1;box-sizing:border-box}
.seg,.bd{left:var(--fl);width:var(--fw)}
body.common .seg,body.common .bd{left:var(--l);width:var(--w)}
.bd.x{min-width:3px;margin-left:-1px;background:#000}
.bd.o{min-width:7px;margin-left:-3px;border:1px solid #000;background:repeating-linear-gradient(45deg,#000 0 2px,#fff 2px 4px)}
.ticks{position:relative;height:5px}
.ticks a{position:absolute;top:0;height:5px}
.ends,.fit{display:flex;flex-wrap:wrap;justify-content:space-between;column-gap:4px;font-size:10px;color:#555}
.fit{flex-wrap:wrap;overflow:hidden;font-weight:normal;color:#333}
.fit span{flex:none;white-space:nowrap}.fit span:nth-child(2){flex:0 1 auto;min-width:0;overflow:hidden;text-overflow:ellipsis}
body.common .ends,body.common .fit{display:none}
.cap{font-size:11px;color:#333;margin-top:1px}
.none{color:#999;font-style:italic}
.axis{display:none;position:relative;height:14px;overflow:hidden;font-weight:normal;font-size:10px;color:#333}
body.common .axis{display:block}
.axis span{position:absolute;white-space:nowrap;transform:translateX(-50%)}
.axis span.f{transform:none}.axis span.l{transform:translateX(-100%)}
table.claims{border-collapse:collapse;max-width:100%}
.claims th,.claims td{border:1px solid #bbb;padding:2px 5px;text-align:left;overflow-wrap:anywhere}
"""

SCRIPT = """
const $ = id => document.getElementById(id), KEYS = ['agent', 'group', 'changes', 'controls', 'common'];
const DEFAULTS = {agent: 'all', group: 'all', changes: false, controls: true, common: false};
const value = k => $(k).type === 'checkbox' ? $(k).checked : $(k).value;
// data-chg="claude:0 copilot:5": a row's verdict changes per agent; the badge counts the shown agent's
const changes = (chg, a) => chg.split(' ').map(p => p.split(':'))
  .reduce((n, [who, k]) => n + (a === 'all' || who === a ? Number(k) : 0), 0);
function filter() {
  const a = value('agent'), g = value('group'), ch = value('changes'), co = value('controls');
  document.body.classList.toggle('common', value('common'));
  document.querySelectorAll('[data-agent]').forEach(e => e.hidden = a !== 'all' && e.dataset.agent !== a);
  document.querySelectorAll('tbody tr:not(.grp)').forEach(r => {
    const n = r.dataset.chg === undefined ? null : changes(r.dataset.chg, a), badge = r.querySelector('.chg');
    if (badge) { badge.textContent = `${n} change${n > 1 ? 's' : ''}`; badge.hidden = !n; }
    r.hidden = (g !== 'all' && r.dataset.group !== g) || (ch && n === 0) || (!co && r.dataset.control === '1'); });
  const shown = document.querySelectorAll('thead th[data-agent]:not([hidden])').length;
  document.querySelectorAll('tr.grp').forEach(h => {
    let r = h.nextElementSibling, any = false;
    for (; r && !r.classList.contains('grp'); r = r.nextElementSibling) any = any || !r.hidden;
    h.hidden = !any; h.firstElementChild.colSpan = shown + 1; });
  place(); declutter();
  const word = v => v === true ? 1 : v === false ? 0 : v;
  const hash = KEYS.filter(k => value(k) !== DEFAULTS[k]).map(k => `${k}=${word(value(k))}`).join('&');
  if (location.hash.slice(1) !== hash) history.replaceState(null, '', hash ? '#' + hash : location.pathname);
}
// ticks: each probed version's place on the row's axis, linked to RESULTS/agent/version/recipe.json
const axes = JSON.parse($('axes').textContent), base = document.body.dataset.results;
document.querySelectorAll('.ticks').forEach(t => {
  const td = t.closest('td'), agent = td.dataset.agent, recipe = td.parentElement.id, axis = axes[agent];
  t.dataset.p.split(' ').forEach(r => {
    const [a, b] = r.split('-').map(Number);
    for (let i = a; i <= (isNaN(b) ? a : b); i++) {
      const link = document.createElement('a');
      link.href = `${base}${agent}/${axis[i]}/${recipe}.json`; link.title = axis[i]; link.dataset.i = i;
      t.appendChild(link); } }); });
function place() {
  const common = document.body.classList.contains('common');
  document.querySelectorAll('.ticks').forEach(t => {
    const n = axes[t.closest('td').dataset.agent].length, lo = common ? 0 : Number(t.dataset.lo);
    const w = 100 / ((common ? n - 1 : Number(t.dataset.hi)) - lo + 1);
    t.querySelectorAll('a').forEach(k => { k.style.left = ((k.dataset.i - lo) * w) + '%'; k.style.width = w + '%'; }); });
}
// the common axis's labels: a label that would touch the one kept before it, or the last, is hidden
function declutter() {
  const apart = (x, y) => x.getBoundingClientRect().right + 4 <= y.getBoundingClientRect().left;
  document.querySelectorAll('th .axis').forEach(ax => {
    const spans = [...ax.children], last = spans[spans.length - 1];
    spans.forEach(s => s.hidden = false);
    if (!document.body.classList.contains('common') || spans.length < 2) return;
    let kept = spans[0];
    spans.slice(1, -1).forEach(s => { if (apart(kept, s) && apart(s, last)) kept = s; else s.hidden = true; });
    if (!apart(kept, last)) last.hidden = true; });
}
KEYS.forEach(k => $(k).onchange = filter);
addEventListener('resize', declutter);
// #agent=claude&group=liveness&changes=1&controls=0&common=1 in the address selects the filters
new URLSearchParams(location.hash.slice(1)).forEach((v, k) => {
  const el = KEYS.includes(k) && $(k); if (!el) return;
  if (el.type === 'checkbox') el.checked = v === '1'; else { el.value = v; if (!el.value) el.value = 'all'; } });
filter();
"""
