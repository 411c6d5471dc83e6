"""Claims: what a doc or changelog says a recipe should find, set beside what it found."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .spec import semver_key

if TYPE_CHECKING:
    from .recipes import Claim


def applies(claim: Claim, agent: str, version: str) -> bool:
    if claim.agent != agent:
        return False
    if claim.since and semver_key(version) < semver_key(claim.since):
        return False
    return not (claim.until and semver_key(version) > semver_key(claim.until))


def judge(
    claims: Iterable[Claim], agent: str, version: str | None, outcome: str, observations: Mapping[str, object]
) -> list[dict[str, object]]:
    """Each claim of the recipe for this agent, as the recipe states it (unset fields left
    out), with `agrees`: true, false, or null when the claim does not apply to this version
    (it names a later or earlier one)."""
    out = []
    for c in claims:
        if c.agent != agent:
            continue
        agrees = None
        if version and applies(c, agent, version):
            agrees = (c.outcome is None or c.outcome == outcome) and all(
                observations.get(k) == v for k, v in (c.observation or {}).items()
            )
        out.append({**c.model_dump(exclude_none=True), "agrees": agrees})
    return out
