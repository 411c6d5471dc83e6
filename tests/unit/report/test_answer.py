"""The one-sentence answer: worded by each classifier family, for every committed record."""

from __future__ import annotations

import pytest

from probes.catalog.recipes import load_all
from probes.catalog.setup import base_of
from probes.classify import CLASSIFIERS
from probes.commands.run import summary
from probes.evidence.load import load
from probes.evidence.model import Evidence
from probes.report.answer import SAME_AS_CONTROL, answer, notice
from tests.helpers import RESULTS, fixture


def test_every_classifier_words_its_answer():
    assert [n for n, c in CLASSIFIERS.items() if c.says is None] == []


def test_every_committed_record_has_a_one_sentence_answer():
    recipes = load_all()
    cells = load(RESULTS, setups=True)
    assert len(cells) > 1000
    for cell in cells:
        r = cell.record
        recipe = recipes.get(base_of(cell.recipe))
        text = answer(r, recipe.classifier if recipe else None, cell.same_as_control)
        warned = f" (it warned at start: {w})" if (w := notice(r)) else ""
        end = f": {r.outcome}{warned}; {SAME_AS_CONTROL}." if cell.same_as_control else f": {r.outcome}{warned}."
        assert text.endswith(end), (cell.path, text)
        assert text.startswith(f"On {r.agent} "), (cell.path, text)
        assert "\n" not in text and "None" not in text and len(text) <= 260, (cell.path, text)
        # the family had words for it: the label's meaning is only a fallback
        assert "the run was labelled" not in text, (cell.path, text)


def test_a_hung_hook_killed_at_its_timeout_reads_as_the_readme_says():
    ev = Evidence(**fixture("copilot", "1.0.92", "hang-pretool"))
    text = answer(ev, "liveness")
    assert text.startswith("On copilot 1.0.92, a pre-tool hook still running at its 3 s timeout was killed by the CLI (SIGTERM)")
    delay = ev.observations["progress_delay_s"]  # as measured: the README's sample is another run's
    assert f"the tool ran anyway, {delay:.2f} s after the hook started: fail-open." in text


def test_a_setup_other_than_the_default_is_named():
    ev = Evidence(**{**fixture("copilot", "1.0.92", "hang-pretool"), "setup_key": "sh=bash"})
    assert answer(ev, "liveness").startswith("On copilot 1.0.92 (sh=bash), ")


def test_an_unknown_label_falls_back_to_its_meaning():
    ev = Evidence(**{**fixture("copilot", "1.0.92", "hang-pretool"), "outcome": "sideways"})
    assert "the run was labelled sideways (" in answer(ev, "liveness")


ROWS = ["answer", "agent", "requested", "executed", "recipe", "setup", "outcome", "invocations", "model requests", "wall"]


@pytest.mark.parametrize("columns", ["100", None])
def test_run_summary_opens_with_the_answer_and_fits(monkeypatch, columns):
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS", raising=False)
    ev = Evidence(**{**fixture("copilot", "1.0.92", "hang-pretool"), "setup": {"sh": "dash"}})
    text = summary(ev, "results/copilot/1.0.92/hang-pretool.json", kept=True)
    names = [ln.split("  ")[0] for ln in text.splitlines() if not ln.startswith(" ")]
    assert names[: len(ROWS)] == ROWS
    assert names[-2:] == ["observations", "evidence"]
    assert "kept: only timings differ; --update rewrites it" in " ".join(text.split())
    wall = next(ln for ln in text.splitlines() if ln.startswith("wall"))
    assert "in all: CLI session" in wall and "install" in wall
    if columns:
        assert max(map(len, text.splitlines())) <= 100
