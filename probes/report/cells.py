"""What one cell of a table says: its label, `=ctl` when its control got the same label (`no
ctl` when its control was not run on that version), its key observation and a mark per claim
(legend.py says what each means); and any value as short text (diffs, citations, the run
summary)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from probes.classify import CLASSIFIERS
from probes.evidence.claims import applies_recorded, verdict_of
from probes.evidence.load import Cell
from probes.evidence.model import Evidence

Classifiers = Mapping[str, str]  # recipe -> the name of its classifier
Pairs = Mapping[str, str]  # extension recipe -> the command-hook recipe asking its question
Known = Mapping[str, Sequence[str] | None]  # agent -> the candidate releases (timeline.py), None: unknown

UNEARNED = "=ctl"  # beside a label its control shares
NO_CONTROL = "no ctl"  # beside a label whose control has no record on that version
MARKS = {"agrees": "✓", "disagrees": "✗", "untested": "?"}
# A boolean key observation in words (true, false): `reason lost` reads, `reason no` did not.
BOOL_WORDS = {
    "reason_reached_model": ("reason reached model", "reason lost"),
    "stdin_eof": ("stdin closed", "stdin left open"),
}
# The marks in plain words, where width allows (the compact table, the page's titles).
PLAIN_WORDS = {UNEARNED: "(same as control)", NO_CONTROL: "(control not run)"}


def claim_marks(record: Evidence) -> str:
    """One mark per claim that names this version (✓ agrees, ✗ disagrees, ? untested), in the
    recipe's order; numbered by its place among the recipe's claims for the agent when there
    are several (the numbers of the Claims list under the table, legend.py). Claims naming
    other versions are left out."""
    several = len(record.claims) > 1
    return " ".join(
        MARKS[verdict_of(c)] + (str(n) if several else "") for n, c in enumerate(record.claims, 1) if applies_recorded(c)
    )


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
        yes, no = BOOL_WORDS.get(name, (name.replace("_", " "), "not " + name.replace("_", " ")))
        return yes if value else no
    if isinstance(value, dict):  # context_location: {word: [roles]} (anything else shown as found)
        roles = sorted({str(r) for rs in value.values() for r in (rs if isinstance(rs, list) else [rs])})
        return ",".join(roles)
    return str(value)


def control_mark(cell: Cell) -> str:
    """`=ctl` (its control shares the label: not earned), `no ctl` (its control was not run
    there: not known to be earned) or nothing."""
    return UNEARNED if cell.same_as_control else NO_CONTROL if cell.control_missing else ""


def plain(text: str) -> str:
    """A cell's text with `=ctl` and `no ctl` in words (`(same as control)`)."""
    for mark, words in PLAIN_WORDS.items():
        text = re.sub(rf"(?<=\S) {re.escape(mark)}(?= |$)", " " + words, text)
    return text


def cell_text(cell: Cell, classifier: str | None) -> str:
    parts = [
        cell.label,
        control_mark(cell),
        key_observation(cell.record, classifier),
        claim_marks(cell.record),
    ]
    return " ".join(p for p in parts if p)


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
