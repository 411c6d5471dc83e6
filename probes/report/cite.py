"""`probe cite`: a Markdown block an ADR can paste, for one record and the range of versions
its verdict holds over (the table's ranges, ranges.line on timeline.py): since when, and whether that "since" was bisected (an
exact boundary: the release before gave another verdict) or is open (unprobed releases lie
between the two probed versions). Every record it rests on is cited with its digest."""

from __future__ import annotations

from pathlib import Path

from probes.catalog.recipes import load_all
from probes.catalog.setup import base_of, setup_line, stem
from probes.errors import InputError
from probes.evidence.claims import verdict_of
from probes.evidence.load import Cell, load
from probes.evidence.model import Compacted
from probes.evidence.store import digest
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, read_bounded
from probes.report.answer import answer
from probes.report.cells import short
from probes.report.ranges import Line, known_candidates, line
from probes.report.timeline import span


def evidence_digest(path: Path) -> str:
    """The sha256 of a record as it is now: its file's bytes, then the bytes of each blob it
    refers to (store.py), each once, in ascending order of their names. Read as boundedly as
    the record was, each blob checked against its name; a record with no refs hashes as its
    file alone."""
    try:
        return digest(read_bounded(path, EVIDENCE_MAX_BYTES), path.parent)[0]
    except BadFile as e:
        raise InputError(f"{path}: not an evidence record ({e})") from None


def record_line(cell: Cell, what: str, text: str) -> str:
    full = cell.record.compacted
    whole = f"; compact, the full record's sha256 `{full.full_sha256}`" if full else ""
    return f"- {what}: `{cell.path}` (sha256 `{evidence_digest(cell.path)}`{whole}), {cell.agent} {cell.version} gave **{text}**"


def compact_line(full: Compacted) -> str:
    """What a compact record (evidence/compaction.py) left out, and the record it was."""
    names = [k.replace("_", " ") for k in full.dropped]
    gone = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names) or "nothing"
    return (
        f"- Compact: stored without its {gone}, as it repeats the label and observations of "
        f"{' and '.join(full.neighbours)}; the full record as it was: sha256 `{full.full_sha256}` "
        f"({full.full_bytes} bytes, of the record and the blobs it referred to)"
    )


def since(ln: Line, cell: Cell) -> list[str]:
    """Where the cited verdict starts and ends among the probed versions (the table's ranges:
    label and key observation; claims are cited apart), and the records of each boundary around it."""
    i = next((n for n, st in enumerate(ln.stretches) if cell.version in st.segment.probed), None)
    if i is None:
        return []
    here = ln.stretches[i]
    seg = here.segment
    below = (ln.boundaries[i - 1], ln.stretches[i - 1]) if i > 0 else None
    above = (ln.boundaries[i], ln.stretches[i + 1]) if i < len(ln.boundaries) else None
    n = len(seg.probed)
    head = f"**Range**: **{here.segment.value}** on {cell.agent} {span(seg)} ({n} probed version{'s' if n > 1 else ''})"
    lines = []
    if below is None:
        lines.append(f"{head}; since at least {seg.first}, the oldest version probed.")
    elif below[0].exact:
        gave = below[1].segment.value
        lines.append(f"{head}; since {seg.first} (bisected: the release before, {below[0].before}, gave {gave}).")
    else:
        b = below[0]
        lines.append(
            f"{head}; since {seg.first} or earlier: the range is open, the change lies between probed "
            f"versions {b.before} (gave {below[1].segment.value}) and {b.after}, with releases between them unprobed "
            f"(`probe bisect {cell.agent} {cell.recipe} --from {b.before} --to {b.after}` finds it)."
        )
    if above is not None:
        how = "exact: the next release" if above[0].exact else "open: unprobed releases between"
        lines.append(f"Through {seg.last}; {above[0].after} gave {above[1].segment.value} ({how}).")
    lines.append("")
    if below is not None:
        lines.append(record_line(below[1].cells[-1], "Boundary below, before", below[1].segment.value))
        lines.append(record_line(here.cells[0], "Boundary below, after", here.segment.value))
    if above is not None:
        lines.append(record_line(here.cells[-1], "Boundary above, before", here.segment.value))
        lines.append(record_line(above[1].cells[0], "Boundary above, after", above[1].segment.value))
    return lines


def cite(cell: Cell, results: Path) -> str:
    """The fact, versions, date, evidence digest (of the record and what it refers to,
    evidence_digest), control, each claim it agrees or disagrees with, and the range of
    versions the verdict holds over with the boundary records."""
    r = cell.record
    sha = evidence_digest(cell.path)

    facts = ", ".join(
        f"{k}={short(v)}" for k, v in r.observations.items() if isinstance(v, (bool, int, float, str)) and v is not None
    )
    recipe = load_all().get(base_of(cell.recipe))
    classifier = recipe.classifier if recipe else None
    lines = [
        f"**Answer**: {answer(r, classifier, cell.same_as_control)}",
        "",
        f"**Measured fact** ({r.agent} {r.executed_version}, `{r.recipe}`): {r.question} "
        f"Outcome: **{r.outcome}**{' (' + facts + ')' if facts else ''}.",
        "",
        f"- Executed version: {r.agent} {r.executed_version} (requested {r.requested_version}, "
        f"read back from {r.executed_version_source})",
        f"- Harness: probe {r.harness_version}{f' (commit {r.harness_commit[:12]})' if r.harness_commit else ''}, "
        f"{r.backend} backend, network {r.network}",
        f"- Date: {r.started_at}",
        f"- Setup: {setup_line(r.setup, r.setup_key) if r.setup else 'not stated (made before setups)'}",
        f"- Evidence: `{cell.path}` (sha256 `{sha}`, of the record and the blobs it refers to)",
        *([compact_line(r.compacted)] if r.compacted else []),
        f"- Control: `{stem(r.control, r.setup_key or '') if r.control else r.control_of}`",
    ]
    for c in r.claims:
        verdict = {"agrees": "agrees with", "disagrees": "**disagrees** with", "untested": "does not test"}[verdict_of(c)]
        why = f" ({c['reason']})" if verdict_of(c) != "agrees" and c.get("reason") else ""
        lines.append(f'- {verdict.capitalize()} {c["source"]}: "{c["says"]}"{why}')
    unread: list[str] = []  # the cited record was read strictly; a neighbour that cannot be is named here
    cells = load(results, cell.agent, cell.recipe, skipped=unread)
    ln = line(cells, cell.agent, cell.recipe, classifier, known_candidates(results, [cell.agent])[cell.agent])
    ranged = since(ln, cell)
    if ranged:
        lines += ["", *ranged]
    lines += [f"- Left out of the range, unreadable: {why}" for why in unread]
    return "\n".join(lines) + "\n"
