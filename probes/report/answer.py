"""The one-sentence answer at the top of `probe run` and `probe cite`: worded by the record's
classifier family (`says` in probes/classify), computed when shown, never stored."""

from __future__ import annotations

import re

from probes.classify import CLASSIFIERS
from probes.evidence.model import Evidence
from probes.report.colours import meaning_of

SAME_AS_CONTROL = "its control got the same label, so the hook made no difference here"
WARNED_RE = re.compile(r"[^\n└]*\b(?:unknown|invalid|ignored|not valid)\b[^\n]*", re.IGNORECASE)


def clause(record: Evidence, classifier: str | None) -> str:
    """What happened, in the words of the classifier's family, or the label's meaning."""
    outcome, obs = record.outcome, record.observations
    if outcome == "could-not-drive":
        return f"the terminal could not be driven through the recipe's steps ({obs.get('tty_error')})"
    registered = CLASSIFIERS.get(classifier or "")
    said = registered.says(outcome, obs, record.subject) if registered and registered.says else ""
    return said or f"the run was labelled {outcome} ({meaning_of(outcome).means})"


def answer(record: Evidence, classifier: str | None, same_as_control: bool = False) -> str:
    """`On copilot 1.0.92, a pre-tool hook ... and the tool ran anyway, 3.02 s after the hook
    started: fail-open.`, naming a setup other than the recipe's default; and whether its
    control came out the same, when that is known."""
    version = record.executed_version or f"{record.requested_version} (requested; not read back)"
    setup = f" ({record.setup_key.replace(',', ', ')})" if record.setup_key else ""
    text = f"On {record.agent} {version}{setup}, {clause(record, classifier)}: {record.outcome}."
    if warned := notice(record):
        text = f"{text[:-1]} (it warned at start: {warned})."
    return f"{text[:-1]}; {SAME_AS_CONTROL}." if same_as_control else text


def notice(record: Evidence) -> str:
    """What a notice the session dismissed at start said (terminal.py: the agent's notice
    marker), its first line that names something unknown or ignored; "" when none."""
    for step in record.transcript or []:
        for screen in step.get("dismissed") or []:
            if m := WARNED_RE.search(screen):
                return " ".join(m.group(0).split()).split(". ")[0].rstrip(".")[:160]
    return ""
