"""The classifier registry: one place for a classifier's name, key observation and the parts
of a session it reads; recipes, tables and `probe list` take them from it."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from probes.catalog.recipes import load_all
from probes.classify import CLASSIFIERS, SESSION_KEYS, classifier
from probes.classify.session import Part
from probes.classify.session import SessionRecord as Session
from probes.evidence.model import load_evidence
from tests.helpers import ROOT, probe_cmd

RESULTS = ROOT / "results"


def test_every_recipe_names_a_registered_classifier_and_every_classifier_is_used():
    used = {r.classifier for r in load_all().values()}
    assert used <= set(CLASSIFIERS)
    assert set(CLASSIFIERS) - used == set(), "a classifier no recipe uses"


def test_parts_and_session_keys_are_the_session_s_keys():
    assert set(get_args(Part)) == set(Session.__annotations__)
    assert set(SESSION_KEYS) == set(Session.__annotations__)  # every part is read by someone


def test_the_key_observation_is_one_the_classifier_reports():
    """On every committed record: the registered key is among the observations."""
    recipes = load_all()
    seen = set()
    for path in sorted(RESULTS.glob("*/*/*.json")):
        ev = load_evidence(path)
        c = CLASSIFIERS[recipes[ev["recipe"]].classifier]
        if c.key and ev["outcome"] != "could-not-drive":
            assert c.key in ev["observations"], (path, c.key)
            seen.add(c.name)
    assert seen == {c.name for c in CLASSIFIERS.values() if c.key}


def test_a_classifier_is_given_only_what_it_reads():
    calls = []

    @classifier("test-only-reads", reads=("subject",))
    def peek(session):
        calls.append(sorted(session))
        return "seen", {}

    try:
        assert CLASSIFIERS["test-only-reads"]({"subject": "pre_tool", "hooks": [], "cli": {}}) == ("seen", {})
        assert calls == [["subject"]]
    finally:
        del CLASSIFIERS["test-only-reads"]


def test_registering_twice_or_reading_an_unknown_part_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        classifier("liveness", reads=("subject",))(lambda s: ("x", {}))
    with pytest.raises(ValueError, match="which no session has"):
        classifier("typo", reads=("invocation",))  # type: ignore[arg-type]


def test_probe_list_json_shows_the_registry():
    rows = {r["name"]: r for r in json.loads(probe_cmd("list", "--json").stdout)}
    assert rows["hang-pretool"]["classifier"] == "liveness"
    assert rows["hang-pretool"]["key_observation"] == "progress_delay_s"
    assert "invocations" in rows["hang-pretool"]["reads"]
    assert rows["env-pretool"]["classifier"] == "env" and rows["env-pretool"]["key_observation"] is None
