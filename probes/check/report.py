"""What `probe check` says: a version's table, one table across versions, and the GitHub
Action's job summary and workflow commands (`python -m probes.check`). Its progress on stderr
is probes/progress.py's."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from tabulate import tabulate

from probes.check.config import scripts_named
from probes.check.model import HookReport, Report
from probes.progress import ON
from probes.report.width import columns


def hook_name(h: HookReport) -> str:
    """A hook as a person names it: the script its command runs (the whole path, relative to
    the folder), else the command; a hook of another type by its type and its prompt, URL or
    server/tool; with its event and matcher."""
    kind = h.get("type", "command")  # a report of a release before hook types has none
    if kind != "command":
        said = " ".join(h["command"].split())
        what = f"{kind} {said if len(said) <= 40 else said[:37] + '...'}"
        return f"{what} ({h['event']}" + (f" [{h['matcher']}])" if h["matcher"] else ")")
    scripts = scripts_named(h["command"])
    path = re.search(r"(?:[\w.-]+/)+[\w.-]+", h["command"])  # behind a "$(git rev-parse ...)"/ too
    what = scripts[0].removeprefix("./") if scripts else path.group() if path else h["command"]
    what = what if len(what) <= 48 else what[:45] + "..."
    return f"{what} ({h['event']}" + (f" [{h['matcher']}])" if h["matcher"] else ")")


def short(reason: str, width: int = 90) -> str:
    return reason if len(reason) <= width else reason[: width - 3] + "..."


def shown(h: HookReport) -> str:
    return h["verdict"] + (f" ({h['treated']})" if h["treated"] else "")


def summary(hooks: Sequence[HookReport]) -> str:
    """`3 hooks: 1 effective, 1 passive, 1 broken`."""
    counts: dict[str, int] = {}
    for h in hooks:
        counts[h["verdict"]] = counts.get(h["verdict"], 0) + 1
    order = ["effective", "passive", "ignored", "broken", "undecided", "not-fired", "not-judged"]
    parts = [f"{counts[v]} {v}" for v in order if v in counts]
    return f"{len(hooks)} hook{'' if len(hooks) == 1 else 's'}: {', '.join(parts)}"


def changed_lines(report: Report) -> list[str]:
    """Per hook, whole: what the check changed in its copy or answered in the user's place, or
    why it does not judge it."""
    return [
        f"  {hook_name(h)}: {h.get('changed') or h['reason']}"
        for h in report["hooks"]
        if h.get("changed") or h["verdict"] == "not-judged"
    ]


def expectation_lines(report: Report) -> list[str]:
    return [
        f"  {'ok  ' if e['met'] else 'FAIL'} {e['command']!r} expected {e['expect']}: {fmt(e['ran'])}"
        + f" (without the hooks: {fmt(e['control_ran'])})"
        for e in report.get("expectations") or []
    ]


def table(report: Report) -> str:
    """One version's verdicts: a line per hook, the steps, what was expected, a summary."""
    steps = "; ".join(
        f"{s.get('command') or s['kind']!r}: {fmt(s['ran'])} (without the hooks: {fmt(s['control_ran'])})"
        for s in report["steps"]
    )
    rows = [(hook_name(h), shown(h), h["reason"]) for h in report["hooks"]]
    head = f"{report['agent']} {report['version'] or 'unknown version'}, scenario {report['scenario']}: {steps or 'no tool step'}"
    # each reason whole: wrapped in its column on a terminal (or COLUMNS), on one line when piped
    width = columns()
    used = max((len(r[0]) for r in rows), default=4) + max((len(r[1]) for r in rows), default=7) + 4
    fit = [None, None, max(30, width - used)] if width else None
    body = tabulate(rows, headers=["hook", "verdict", "reason"], maxcolwidths=fit)
    lines = [head, body, *changed_lines(report), *expectation_lines(report), summary(report["hooks"])]
    return "\n".join([*lines, f"evidence: {report['evidence']}"])


def versions_table(reports: Sequence[Report]) -> str:
    """Several versions: one table, a column per version, `*` where the verdicts differ."""
    first = reports[0]
    columns = [r["version"] or f"{r['requested']}?" for r in reports]
    rows = []
    differ = False
    for n, h in enumerate(first["hooks"]):
        cells = [shown(r["hooks"][n]) for r in reports]
        mark = "*" if len(set(cells)) > 1 else ""
        differ = differ or bool(mark)
        rows.append((mark + hook_name(h), *cells))
    for n, e in enumerate(first.get("expectations") or []):
        cells = [("ok: " if r["expectations"][n]["met"] else "FAIL: ") + fmt(r["expectations"][n]["ran"]) for r in reports]
        mark = "*" if len(set(cells)) > 1 else ""
        differ = differ or bool(mark)
        rows.append((f"{mark}{e['command']!r} expected {e['expect']}", *cells))
    head = f"{first['agent']} {', '.join(columns)}, scenario {first['scenario']}"
    lines = [head, tabulate(rows, headers=["hook", *columns]), *changed_lines(first)]
    lines.append("* differs between versions" if differ else "the same on every version")
    lines += [f"{c}: {summary(r['hooks'])}" for c, r in zip(columns, reports, strict=True)]
    return "\n".join(lines)


def workflow_commands(reports: Sequence[Report]) -> list[str]:
    """GitHub workflow commands: an error per broken hook, a warning per ignored one, an error
    per unmet expectation, each on the config file that holds the hook."""

    def escape(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    out = []
    for r in reports:
        where = f"{r['agent']} {r['version'] or r['requested']}"
        for h in r["hooks"]:
            if h["verdict"] in ("broken", "ignored"):
                level = "error" if h["verdict"] == "broken" else "warning"
                message = escape(f"{where}: {shown(h)}: {h['reason']}")
                out.append(f"::{level} file={h['source']},title=probe check: {escape(hook_name(h))}::{message}")
        for e in r.get("expectations") or []:
            if not e["met"]:
                msg = f"{where}: {e['command']!r} expected {e['expect']}, {fmt(e['ran'])}"
                out.append(f"::error title=probe check: expected {e['expect']}::{escape(msg)}")
    return out


def fmt(ran: bool | None) -> str:
    return {True: "ran", False: "did not run", None: "cannot tell"}[ran]


PROGRESS = ON  # probes.progress's switch, set by cmd_check: stderr is a terminal, or --progress


def action_main() -> None:
    """The GitHub Action: `python -m probes.check [--annotations] REPORT.json`."""
    wanted = sys.argv[1:]
    loaded = json.loads(Path(wanted[-1]).read_text())
    every = loaded if isinstance(loaded, list) else [loaded]
    if "--annotations" in wanted:
        print("\n".join(workflow_commands(every)))
    else:
        print(f"```\n{versions_table(every) if len(every) > 1 else table(every[0])}\n```\n")
