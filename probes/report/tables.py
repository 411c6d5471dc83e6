"""Committed evidence as tables: results/README.md and results/<agent>.md (ranges per agent),
`probe table`'s Markdown (ranges, or `--grid`: recipes x versions), its compact view for a
terminal, and JSON. Byte-stable: the
same evidence gives the same output. The cells come from evidence/load.py, their text from
cells.py, ranges from ranges.py, the legend from legend.py; the HTML page is page.py."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from tabulate import tabulate

from probes.evidence.load import Cell, grouped, versions_of
from probes.evidence.model import write_atomic
from probes.report.cells import Classifiers, Known, Pairs, cell_text, plain
from probes.report.legend import CLAIM_HEADERS, claims_list, compact_legend, legend
from probes.report.ranges import RANGES_NOTE, line, line_text, ranges
from probes.report.timeline import span
from probes.report.width import wrap


def matrix(cells: list[Cell], agent: str, classifiers: Classifiers) -> tuple[list[str], list[list[str]]]:
    """Recipes as rows, versions as columns, for one agent (`--grid`)."""
    versions = versions_of(cells, agent)
    by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
    rows = []
    for recipe in sorted({c.recipe for c in cells if c.agent == agent}):
        rows.append([recipe, *[cell_text(by[recipe, v], classifiers.get(recipe)) if (recipe, v) in by else "" for v in versions]])
    return versions, rows


def markdown(
    cells: list[Cell], classifiers: Classifiers, pairs: Pairs | None = None, known: Known | None = None, grid: bool = False
) -> str:
    """Recipes as ranges per agent (or, `grid`, recipes x versions per agent), each agent's
    two-surface comparison and claims, and the legend."""
    agents = sorted({c.agent for c in cells})
    out = []
    if not grid and cells:
        heads = [f"{a} ({len(versions_of(cells, a))} versions)" for a in agents]
        rows = ranges(cells, agents, classifiers, known or {})
        out.append(
            "## Recipes by version range\n\n"
            + RANGES_NOTE
            + "\n\n"
            + tabulate(rows, headers=["recipe", *heads], tablefmt="github")
            + "\n"
        )
    for agent in agents:
        if grid:
            versions, rows = matrix(cells, agent, classifiers)
            out.append(f"## {agent}\n\n" + tabulate(rows, headers=["recipe", *versions], tablefmt="github") + "\n")
        side = surfaces(cells, agent, pairs or {}, classifiers, None if grid else (known or {}).get(agent, None), grid)
        if side:
            heads = ["version", "command", "extension"] if grid else ["command", "extension"]
            out.append(
                f"### {agent}: one question, two surfaces (command hook, extension handler)\n\n"
                + tabulate(side, headers=["command hook", "extension", *heads], tablefmt="github")
                + "\n"
            )
        claims = [[cell.replace("|", "\\|") for cell in row] for row in claims_list(cells, agent)]
        if claims:
            out.append(f"### {agent}: claims\n\n" + tabulate(claims, headers=CLAIM_HEADERS, tablefmt="github") + "\n")
    if cells:
        out.append(legend(classifiers, cells))  # what these cells show (results/README.md: everything)
    return "\n".join(out)


def compact(cells: list[Cell], classifiers: Classifiers, known: Known, width: int | None, questions: Mapping[str, str]) -> str:
    """The ranges for a terminal: one block per recipe (its question, then a line per range of
    each agent, `|`/`…` before a range as in the Markdown, whose segments these are), plain
    words for the marks, and a legend of what is shown; every line fitted to `width`."""
    by = grouped(cells)
    lines = {k: line(v, k[0], k[1], classifiers.get(k[1]), known.get(k[0])) for k, v in by.items()}
    agent_w = max((len(a) for a, _ in by), default=0)
    span_w = max((len(span(st.segment)) for ln in lines.values() for st in ln.stretches), default=0)
    hang = " " * min(2 + agent_w + 3 + span_w + 2, (width or 1000) // 2)  # continuation under the text
    out, boundaries = [], set()
    for recipe in sorted({r for _, r in by}):
        out.append(wrap(f"{recipe}  {questions.get(recipe, '')}".rstrip(), width, indent="    "))
        for agent in sorted({a for a, r in by if r == recipe}):
            ln = lines[agent, recipe]
            for n, st in enumerate(ln.stretches):
                mark = "" if n == 0 else "|" if ln.boundaries[n - 1].exact else "…"
                boundaries.add(mark)
                text = f"  {agent if n == 0 else '':{agent_w}} {mark:1} {span(st.segment):{span_w}}  {plain(st.text)}"
                out.append(wrap(text.rstrip(), width, indent=hang))
        out.append("")
    return "\n".join([*out, compact_legend(classifiers, cells, boundaries - {""}, width)]) + "\n"


def surfaces(
    cells: list[Cell],
    agent: str,
    pairs: Pairs,
    classifiers: Classifiers,
    candidates: Sequence[str] | None = None,
    grid: bool = False,
) -> list[list[str]]:
    """Each extension recipe beside the command-hook recipe asking its question: as ranges,
    or (`grid`) per version where both were probed."""
    by = {(c.recipe, c.version): c for c in cells if c.agent == agent}
    rows = []
    for ext, command in sorted(pairs.items()):
        if grid:
            for v in versions_of(cells, agent):
                if (ext, v) in by and (command, v) in by:
                    both = (cell_text(by[r, v], classifiers.get(r)) for r in (command, ext))
                    rows.append([command, ext, v, *both])
        elif any(r == ext for r, _ in by) and any(r == command for r, _ in by):
            texts = (line_text(line(cells, agent, r, classifiers.get(r), candidates)) for r in (command, ext))
            rows.append([command, ext, *(t.replace("|", "\\|") for t in texts)])
    return rows


def as_json(cells: list[Cell]) -> str:
    rows = [
        {
            "agent": c.agent,
            "version": c.version,
            "recipe": c.recipe,
            "outcome": c.record.outcome,
            "label": c.label,
            "same_as_control": c.same_as_control,
            "control_missing": c.control_missing,
            "observations": c.record.observations,
            "claims": c.record.claims,
            "evidence": str(c.path),
        }
        for c in cells
    ]
    return json.dumps(rows, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_index(
    results: Path,
    cells: list[Cell],
    classifiers: Classifiers,
    pairs: Pairs | None = None,
    known: Known | None = None,
    coverage: Mapping[str, str] | None = None,
) -> list[Path]:
    """results/README.md and results/<agent>.md (ranges), regenerated identically from the JSON;
    `coverage`: a line per agent (report/coverage.py), under its heading and in the index."""
    coverage = coverage or {}
    written = []
    agents = sorted({c.agent for c in cells})
    index = ["# Evidence", "", "Generated by `probe table` from the JSON records beside this file; do not edit by hand.", ""]
    for agent in agents:
        versions = versions_of(cells, agent)
        n = len({c.recipe for c in cells if c.agent == agent})
        shown = ", ".join(versions) if len(versions) <= 12 else f"{versions[0]} to {versions[-1]}"
        index.append(f"- [{agent}]({agent}.md): {n} recipes on {len(versions)} versions ({shown})")
        covered = f"Events: {coverage[agent]}\n\n" if agent in coverage else ""
        index += [f"  - events: {coverage[agent]}"] if agent in coverage else []
        page = results / f"{agent}.md"
        mine = [c for c in cells if c.agent == agent]
        text = f"# {agent}\n\n{covered}" + markdown(mine, classifiers, pairs, known)
        write_atomic(page, text, "table", "check the results directory")
        written.append(page)
    index += ["", legend(classifiers).replace("### Reading a cell", "## Reading a cell")]
    write_atomic(results / "README.md", "\n".join(index).rstrip("\n") + "\n", "table", "check the results directory")
    return [results / "README.md", *written]
