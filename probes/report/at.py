"""`probe table --recipe R --at AGENT@V`: one release's answer from the committed ranges
(ranges.line, as the table shows them), never a guess: probed there; inside a range whose
probed versions on both sides agree (named); between two probed versions that differ (an
open boundary); or outside what was probed. One answer per setup row of the recipe."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from probes.catalog import windows
from probes.catalog.setup import split_stem
from probes.errors import InputError
from probes.evidence import unrunnable
from probes.evidence.load import Cell, load
from probes.report.ranges import Line, line
from probes.report.timeline import candidates_of, read_snapshot, span
from probes.versions.named import newest_probed, spec_of
from probes.versions.spec import nearest, semver_key

Kind = Literal["probed", "range", "open", "before", "after"]
ANSWERED: tuple[Kind, ...] = ("probed", "range")


@dataclass(frozen=True)
class Answer:
    agent: str
    version: str
    recipe: str  # the row: RECIPE, or RECIPE@KEY in another setup
    kind: Kind
    text: str
    verdict: str | None = None  # the range's text (label, key observation, marks); None: not known
    first: str | None = None  # the range (or, for an open boundary, the two probed versions around it)
    last: str | None = None
    probed_at: list[str] = field(default_factory=list)  # the probed versions the answer rests on

    @property
    def answered(self) -> bool:
        return self.kind in ANSWERED

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "version": self.version,
            "recipe": self.recipe,
            "kind": self.kind,
            "answered": self.answered,
            "verdict": self.verdict,
            "from": self.first,
            "to": self.last,
            "probed_at": self.probed_at,
            "text": self.text,
        }


def run_line(agent: str, version: str, row: str) -> str:
    """The `probe run` that answers a row: RECIPE@KEY as --setup pairs."""
    name, key = split_stem(row)
    return " ".join([f"probe run {agent}@{version} {name}", *(f"--setup {pair}" for pair in key.split(",") if pair)])


def unearned(text: str) -> str:
    """What `=ctl` and `no ctl` in a range's text mean, said after the answer."""
    if "=ctl" in text:
        return "; =ctl: its control gave the same label there, so the hook made no difference"
    return "; no ctl: its control was not run there" if "no ctl" in text else ""


def answer(ln: Line, version: str, window_note: str = "") -> Answer:
    """Where `version` lies on one row's ranges."""
    a, v, r, key = ln.agent, version, ln.recipe, semver_key
    head = f"{a} {v}"
    for i, st in enumerate(ln.stretches):
        s = st.segment
        if v in s.probed:
            return Answer(
                a,
                v,
                r,
                "probed",
                f"{head}: {r} was '{st.text}' (probed there; its range {span(s)}){unearned(st.text)}{window_note}",
                st.text,
                s.first,
                s.last,
                [v],
            )
        if key(s.first) < key(v) < key(s.last):
            below = max((p for p in s.probed if key(p) < key(v)), key=key)
            above = min((p for p in s.probed if key(p) > key(v)), key=key)
            return Answer(
                a,
                v,
                r,
                "range",
                f"{head} lies in {s.first}–{s.last} where {r} was '{st.text}'; probed at {below} and {above}, "
                f"not at {v} itself ({len(s.probed)} probed in the range){unearned(st.text)}{window_note}",
                st.text,
                s.first,
                s.last,
                [below, above],
            )
        if i + 1 < len(ln.stretches) and key(s.last) < key(v) < key(ln.stretches[i + 1].segment.first):
            nxt = ln.stretches[i + 1]
            b = nxt.segment.first
            return Answer(
                a,
                v,
                r,
                "open",
                f"{head} falls in an open boundary of {r}: '{st.text}' on {s.last}, '{nxt.text}' on {b}, and the releases "
                f"between were not probed, so no answer (`probe bisect {a} {r} --from {s.last} --to {b}` finds the change)"
                f"{window_note}",
                None,
                s.last,
                b,
                [s.last, b],
            )
    first, last = ln.stretches[0].segment.first, ln.stretches[-1].segment.last
    kind: Kind = "before" if key(v) < key(first) else "after"
    where = f"before the oldest probed ({first})" if kind == "before" else f"after the newest probed ({last})"
    return Answer(
        a,
        v,
        r,
        kind,
        f"{head} lies outside what was probed for {r}: {where}, so no answer (`{run_line(a, v, r)}`){window_note}",
        None,
        first,
        last,
        [first if kind == "before" else last],
    )


def answers(
    cells: Sequence[Cell],
    agent: str,
    version: str,
    classifiers: dict[str, str],
    candidates: Sequence[str] | None,
    window_note: str = "",
) -> list[Answer]:
    """One answer per row (the recipe's default setup first, then each other setup)."""
    rows = sorted({c.recipe for c in cells if c.agent == agent}, key=lambda s: ("@" in s, s))
    out = []
    for row in rows:
        ln = line(list(cells), agent, row, classifiers.get(row), candidates)
        out.append(answer(ln, version, window_note))
    return out


def at_release(results: Path, recipe: str | None, at: str, agent_opt: str | None = None) -> list[Answer]:
    """`--at AGENT@V` with `--recipe R`: each row's answer, offline; one line (exit 2) when the
    question cannot be asked (no recipe, no evidence, a version the registry never served)."""
    if not recipe:
        raise InputError("--at AGENT@V answers for one recipe: give --recipe R")
    s = spec_of(at)
    if s.version == "latest":
        s = newest_probed(results, s, recipe)
    if agent_opt and agent_opt != s.agent:
        raise InputError(f"--agent {agent_opt} and --at {at}: name one agent")
    cells = load(results, s.agent, recipe, setups=True)
    if not cells:
        raise InputError(f"no evidence for {s.agent} {recipe} in {results}: `probe run {s.agent}@{s.version} {recipe}`")
    snap = read_snapshot(results, s.agent)
    if snap is not None and s.version not in snap:
        near = [v for v in nearest(s.version, snap) if v]
        raise InputError(
            f"{s.agent} {s.version} is not a version the registry served (results/{s.agent}/versions.json)"
            + (f"; nearest: {', '.join(near)}" if near else "")
        )
    from probes.catalog.recipes import load_all

    recipes = load_all()
    classifiers = {c.recipe: recipes[c.base].classifier for c in cells if c.base in recipes}
    return answers(
        cells,
        s.agent,
        s.version,
        classifiers,
        candidates_of(snap) if snap is not None else None,
        _window_note(s.agent, s.version, snap) + _lost_note(results, s.agent, s.version),
    )


def _lost_note(results: Path, agent: str, version: str) -> str:
    """`; 1.0.56 could not run: REASON` when the atlas kept a reason for it (evidence/unrunnable.py)."""
    reason = unrunnable.read(results, agent).get(version)
    return f"; {version} could not run: {reason}" if reason else ""


def _window_note(agent: str, version: str, snap: list[str] | None) -> str:
    """` (outside the atlas window FROM-NEWEST)` when the version lies outside its agent's window."""
    win = windows.load().get(agent)
    if win is None or snap is None:
        return ""
    try:
        w = windows.span(agent, win, snap)
    except InputError:
        return ""
    if semver_key(w.first) <= semver_key(version) <= semver_key(w.last) or version in w.pinned:
        return ""
    return f" (outside the atlas window {w.first}-{w.last})"
