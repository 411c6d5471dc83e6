"""Label committed evidence again with the current classifiers (no CLI is run): after a
classifier changes, every record it labels is brought up to date, and each change is named."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .claims import Run, judge
from .classify import SESSION_KEYS, Session, label
from .errors import InputError
from .evidence import Evidence, load_evidence, write_atomic
from .limits import warn

if TYPE_CHECKING:
    from .recipes import Recipe


@dataclass(frozen=True)
class Relabelled:
    path: Path
    before: str  # the outcome it had
    after: str  # the outcome it has now (the same when only observations or claims changed)


def reclassify(results: Path, recipes: Mapping[str, Recipe]) -> Iterator[Relabelled]:
    """Each record in `results` whose outcome, observations or claims come out differently,
    rewritten as it is found. A file that is not a record, or one that fits the schema but
    not its classifier, is skipped with a warning naming it; a record of a recipe no longer
    in the catalog is left as it is."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    for path in sorted(results.glob("*/*/*.json")):
        try:
            ev = Evidence.model_validate(load_evidence(path))
        except InputError as e:
            warn(f"skipping {e}")
            continue
        recipe = recipes.get(ev.recipe)
        if recipe is None:
            continue
        data = ev.model_dump(mode="json")
        session = cast(Session, {k: data[k] for k in SESSION_KEYS})  # the record's parts, as JSON
        try:
            outcome, obs = label(recipe.classifier, session)
            run = Run.of(recipe.for_agent(ev.agent), data["cli"])
            claims = judge(recipe.claims, ev.agent, ev.executed_version, outcome, obs, run)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            # a record that fits the schema but not its classifier: name it, label the rest
            warn(f"skipping {path}: cannot be labelled again ({type(e).__name__}: {e})")
            continue
        if (outcome, obs, claims) != (ev.outcome, ev.observations, ev.claims):
            new = ev.model_copy(update={"outcome": outcome, "observations": obs, "claims": claims})
            write_atomic(path, Evidence.model_validate_json(new.model_dump_json()).to_json())
            yield Relabelled(path, ev.outcome, outcome)
