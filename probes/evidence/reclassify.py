"""Label committed evidence again with the current classifiers (no CLI is run): after a
classifier changes, every record it labels is brought up to date, and each change is named.
Records are also brought to the current schema_version (evidence.upgrade: per-run values as
stable names) and stored compact (store.py); blobs no record refers to any more are removed.
A compact record (compaction.py) keeps its label and observations: its session is not stored,
so nothing could label it again; its claims are judged again on them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from probes.catalog.setup import split_stem
from probes.classify import SESSION_KEYS, SessionRecord, label
from probes.errors import InputError
from probes.evidence.claims import Run, judge
from probes.evidence.model import Evidence, load_evidence, upgrade, write_atomic
from probes.evidence.store import Blobs, hoist, put_blobs, stored_form, unreferenced, unshared
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, listed, read_bounded, warn

if TYPE_CHECKING:
    from probes.catalog.recipes import Recipe


@dataclass(frozen=True)
class Relabelled:
    path: Path
    before: str  # the outcome it had
    after: str  # the outcome it has now (the same when only observations or claims changed)
    migrated: bool = False  # upgraded to the current schema_version, or its per-run values named again
    relabelled: bool = True  # its outcome, observations or claims came out differently
    compact: bool = False  # a compact record: its label kept, not classified again (it may still be rewritten)
    what: str = ""  # besides the outcome: what came out differently ("observations", "claims", both)


def reclassify(results: Path, recipes: Mapping[str, Recipe]) -> Iterator[Relabelled]:
    """Each record in `results` whose outcome, observations or claims come out differently,
    or that is upgraded (an older schema_version, or per-run values not yet named as now),
    rewritten as it is found. A file that is not a record, or one that fits the schema but
    not its classifier, is skipped with a warning naming it; a record of a recipe no longer
    in the catalog is only upgraded. Every compact record of a recipe in the catalog is yielded
    (`compact`), rewritten or not: its label was kept. Then blobs no record refers to are removed, in each
    version directory whose records all read."""
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    blobs = Blobs()
    paths = listed(results)  # once: relabelling rewrites records, never adds or removes one
    for path in paths:
        try:
            stored = load_evidence(path, blobs=blobs)
            ev = Evidence.model_validate(upgrade(stored))
        except InputError as e:
            warn(f"skipping {e}")
            continue
        recipe = recipes.get(ev.recipe)
        ev = with_setup(ev, recipe, path)
        if recipe is None:
            if store(path, ev):
                yield Relabelled(path, ev.outcome, ev.outcome, migrated=True, relabelled=False)
            continue
        data = ev.model_dump(mode="json")
        session = cast(SessionRecord, {k: data[k] for k in SESSION_KEYS})  # the record's parts, as JSON
        compact = ev.compacted is not None
        try:
            # a compact record's session is not stored: labelling it again would read its absence
            outcome, obs = (ev.outcome, ev.observations) if compact else label(recipe.classifier, session)
            permissions = {"permissions": ev.setup["permissions"]} if ev.setup and "permissions" in ev.setup else {}
            run = Run.of(recipe.for_agent(ev.agent, permissions), data["cli"])
            claims = judge(recipe.claims, ev.agent, ev.executed_version, outcome, obs, run)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            # a record that fits the schema but not its classifier: name it, label the rest
            warn(f"skipping {path}: cannot be labelled again ({type(e).__name__}: {e})")
            continue
        relabelled = (outcome, obs, claims) != (ev.outcome, ev.observations, ev.claims)
        what = " and ".join(
            n for n, changed in (("observations", obs != ev.observations), ("claims", claims != ev.claims)) if changed
        )
        new = ev.model_copy(update={"outcome": outcome, "observations": obs, "claims": claims})
        if store(path, Evidence.model_validate_json(new.model_dump_json())):
            yield Relabelled(path, ev.outcome, outcome, not relabelled, relabelled, compact, what)
        elif compact:
            yield Relabelled(path, ev.outcome, outcome, relabelled=False, compact=True)
    for directory in sorted({p.parent for p in paths}):
        for blob in unreferenced(directory) or []:
            blob.unlink(missing_ok=True)
        hoist(directory, write_atomic)  # what an older harness left beside the records: to the agent's store
    for agent_dir in sorted({p.parent.parent for p in paths}):
        for blob in unshared(agent_dir) or []:
            blob.unlink(missing_ok=True)


def with_setup(ev: Evidence, recipe: Recipe | None, path: Path) -> Evidence:
    """A record made before setups, with the setup it was in fact made under: its recipe's
    default for its agent, the session its `mode` says, and dash at /bin/sh (every such record
    was made on a Debian or Ubuntu host, or in the Debian image). Unchanged when it states
    one, or when its recipe is gone."""
    if ev.setup is not None or recipe is None or ev.agent not in recipe.agents:
        return ev
    setup = dict(recipe.for_agent(ev.agent).setup)
    setup["session"] = "interactive" if ev.mode == "interactive" else "print"
    return ev.model_copy(update={"setup": setup, "setup_key": split_stem(path.stem)[1]})


def store(path: Path, ev: Evidence) -> bool:
    """Write `ev` at `path` as a record is now stored (store.py) unless the file holds exactly
    that already; its blobs first. True when the record was rewritten."""
    text, blobs, shared = stored_form(ev.model_dump(mode="json"))
    try:
        if read_bounded(path, EVIDENCE_MAX_BYTES, follow=False) == text.encode("utf-8"):
            return False  # the same bytes: its blobs were read to load it, so they are there
    except BadFile:
        pass
    put_blobs(path, blobs, shared, write_atomic)
    write_atomic(path, text)
    return True
