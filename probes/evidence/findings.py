"""results/FINDINGS.md's checks, read and evaluated against a results tree (docs/findings.md).
A finding is a `### ` section; its checks are HTML comments:

    <!-- check: copilot@1.0.71 stop-block-loop; observations.stop_invocations == 126; outcome == unbounded -->
    <!-- check: copilot@1.0.0..1.0.7 *; invocation_count == 0 -->

Each assertion is `PATH == VALUE`, `PATH in [LOW, HIGH]` or `PATH contains "TEXT"`; a range
check names every record of its versions whose recipe matches its globs in its setup. The
test suite holds every check true on the committed tree; the nightly evaluates them before and
after it merges a night, and reports each whose truth changed."""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probes.errors import InputError
from probes.evidence.model import load_evidence
from probes.limits import BadFile, read_bounded
from probes.versions.spec import semver_key

FILE = "FINDINGS.md"
MAX_BYTES = 4 << 20
CHECK = re.compile(r"<!--\s*check:\s*(.*?)\s*-->", re.S)
ASSERTION = re.compile(r"^(?P<path>\S+)\s+(?P<op>==|in|contains)\s+(?P<value>.+)$")


def sections(results: Path) -> list[tuple[str, str, list[str]]]:
    """(title, prose without comments, check bodies) for each finding of results/FINDINGS.md
    ([] when there is none)."""
    path = results / FILE
    if not path.exists():
        return []
    try:
        text = read_bounded(path, MAX_BYTES, follow=False).decode("utf-8")
    except (BadFile, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot be read as findings ({e})") from None
    out = []
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        title, _, body = block.partition("\n")
        out.append((title.strip(), CHECK.sub("", body), CHECK.findall(body)))
    return out


def parse_value(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text  # a bare label such as fail-open


def lookup(record: dict[str, Any], path: str) -> Any:
    value: Any = record
    if path == "*":
        return value
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def assertions(body: str) -> tuple[str, str, list[tuple[str, str, str]]]:
    """(target, recipe globs, [(path, op, value)]) of one check; ValueError when unparsable."""
    head, *rest = [p.strip() for p in body.split(";")]
    target, recipe = head.split()
    if not rest:
        raise ValueError(f"check {body!r} asserts nothing")
    parsed = []
    for a in rest:
        m = ASSERTION.match(a)
        if not m:
            raise ValueError(f"unparsable assertion {a!r} in check {body!r}")
        parsed.append((m["path"], m["op"], m["value"]))
    return target, recipe, parsed


def named(results: Path, target: str, recipe: str) -> list[tuple[str, str, str]]:
    """(agent, version, record stem) of each record a check names: one, or a range's."""
    agent, version = target.split("@")
    first, dots, last = version.partition("..")
    if not dots and not any(c in recipe for c in "*?["):
        return [(agent, version, recipe)]
    glob, _, setup = recipe.partition("@")
    low, high = semver_key(first), semver_key(last or first)
    out = []
    for path in sorted((results / agent).glob("*/*.json")):
        v = path.parent.name
        name, _, key = path.stem.partition("@")
        if v[0].isdigit() and low <= semver_key(v) <= high and key == setup and globbed(name, glob):
            out.append((agent, v, path.stem))
    return out


def globbed(name: str, globs: str) -> bool:
    """`a*,b*,!*-interactive*`: a recipe matching one glob and none of the `!` ones."""
    parts = globs.split(",")
    take = [g for g in parts if not g.startswith("!")]
    drop = [g[1:] for g in parts if g.startswith("!")]
    return any(fnmatch.fnmatchcase(name, g) for g in take) and not any(fnmatch.fnmatchcase(name, g) for g in drop)


def holds(record: dict[str, Any], path: str, op: str, raw: str) -> bool:
    value = lookup(record, path)
    if op == "==":
        return bool(value == parse_value(raw))
    if op == "in":
        low, high = json.loads(raw)
        return isinstance(value, (int, float)) and low <= value <= high
    text = parse_value(raw)
    if isinstance(value, list) and text in value:
        return True
    return str(text) in (value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


@dataclass(frozen=True)
class Truth:
    title: str  # the finding's
    check: str  # the check's body
    holds: bool
    why: str = ""  # the first record or assertion that failed
    records: int = 0  # the records it named


def evaluate(results: Path) -> list[Truth]:
    """Every check of results/FINDINGS.md against `results`, in the file's order."""
    out = []
    for title, _, checks in sections(results):
        for body in checks:
            out.append(truth(results, title, body))
    return out


def truth(results: Path, title: str, body: str) -> Truth:
    try:
        target, recipe, parsed = assertions(body)
        records = named(results, target, recipe)
    except ValueError as e:
        return Truth(title, body, False, str(e))
    if not records:
        return Truth(title, body, False, f"{target} {recipe} names no record")
    for agent, version, stem in records:
        try:
            record = load_evidence(results / agent / version / f"{stem}.json")
        except InputError as e:
            return Truth(title, body, False, str(e)[:200], len(records))
        for path, op, raw in parsed:
            try:
                ok = holds(record, path, op, raw)
            except (KeyError, IndexError, TypeError, ValueError):
                ok = False
            if not ok:
                return Truth(title, body, False, f"{agent}@{version} {stem}: {path} {op} {raw}", len(records))
    return Truth(title, body, True, records=len(records))


def changed(before: list[Truth], after: list[Truth]) -> list[tuple[Truth | None, Truth]]:
    """The checks whose truth differs after a night (a check new in `after` counts when false)."""
    was = {(t.title, t.check): t for t in before}
    out: list[tuple[Truth | None, Truth]] = []
    for t in after:
        old = was.get((t.title, t.check))
        if (old is None and not t.holds) or (old is not None and old.holds != t.holds):
            out.append((old, t))
    return out
