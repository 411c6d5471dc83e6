"""Two versions' surfaces compared: the items one declares and the other does not."""

from __future__ import annotations

from typing import TypedDict

from probes.surface.model import KINDS, PLURAL, Item, Surface


class SurfaceDiff(TypedDict):
    agent: str
    old: str
    new: str
    added: list[dict[str, object]]  # items of `new` that `old` lacks, with where `new` declares them
    removed: list[dict[str, object]]  # items of `old` that `new` lacks, with where `old` declared them


def _order(i: Item) -> tuple[int, str]:
    return KINDS.index(i.kind), i.name


def surface_diff(old: Surface, new: Surface) -> SurfaceDiff:
    before = {i.key: i for i in old.items}
    after = {i.key: i for i in new.items}
    added = sorted((i for k, i in after.items() if k not in before), key=_order)
    removed = sorted((i for k, i in before.items() if k not in after), key=_order)
    return {
        "agent": new.agent,
        "old": old.version,
        "new": new.version,
        "added": [i.model_dump(exclude_none=True) for i in added],
        "removed": [i.model_dump(exclude_none=True) for i in removed],
    }


def summary(d: SurfaceDiff) -> str:
    """One line: `surface changed: +PreModelSwitch, +PostModelSwitch, -...` (names only,
    flags last), or `surface unchanged`."""
    names = [f"+{i['name']}" for i in d["added"]] + [f"-{i['name']}" for i in d["removed"]]
    if not names:
        return "surface unchanged"
    shown = names[:12] + ([f"... {len(names) - 12} more"] if len(names) > 12 else [])
    return f"surface changed: {', '.join(shown)}"


def diff_text(d: SurfaceDiff) -> str:
    lines = [f"{d['agent']} {d['old']} -> {d['new']}: +{len(d['added'])} -{len(d['removed'])}"]
    for sign, group in (("+", d["added"]), ("-", d["removed"])):
        for kind in KINDS:
            items = [i for i in group if i["kind"] == kind]
            if items:
                lines.append(f"{sign} {PLURAL[kind]}:")
                lines += [f"    {sign}{i['name']}  ({where(i)})" for i in items]
    if not d["added"] and not d["removed"]:
        lines.append("no item added or removed")
    return "\n".join(lines)


def where(i: dict[str, object]) -> str:
    if i.get("file") is not None:
        return f"{i['file']}@{i.get('offset')}"
    return f"`{i.get('help')}`: {i.get('line')}"
