"""The terminal's table (tables.compact): fitted to the width over the whole committed
results/, the same segments as the Markdown, plain words, and a legend of only what is shown."""

from __future__ import annotations

import functools
import re

import pytest

from probes.catalog.recipes import load_all
from probes.evidence.load import Cell, load
from probes.report import tables
from probes.report.cells import BOOL_WORDS
from probes.report.legend import legend
from probes.report.ranges import known_candidates
from tests.helpers import RESULTS, probe


@functools.cache
def committed() -> tuple[list[Cell], dict[str, str], dict[str, str]]:
    """Every committed cell, with its classifier and question as `probe table` reads them."""
    cells = load(RESULTS, setups=True)
    recipes = load_all()
    classifiers = {name: r.classifier for name, r in recipes.items()}
    classifiers.update({c.recipe: recipes[c.base].classifier for c in cells if c.setup_key and c.base in recipes})
    questions = {name: r.question for name, r in recipes.items()}
    questions.update({c.recipe: f"{c.base}'s question, under {c.setup_key}" for c in cells if c.setup_key})
    return cells, classifiers, questions


@pytest.mark.parametrize("width", [60, 80, 100, 140])
def test_compact_table_fits_the_width(width):
    cells, classifiers, questions = committed()
    known = known_candidates(RESULTS, sorted({c.agent for c in cells}))
    out = tables.compact(cells, classifiers, known, width, questions)
    assert max(map(len, out.splitlines())) <= width  # ✓ ✗ ? | … are one column each
    assert "(same as control)" in out and "=ctl" not in out and "no ctl" not in out


def test_table_columns_env_and_wide(results):
    args = ("table", "--recipe", "hang-pretool", "--results", str(results))
    fitted = probe(*args, env={"COLUMNS": "100"})
    assert fitted.returncode == 0 and max(map(len, fitted.stdout.splitlines())) <= 100
    assert "(same as control)" in fitted.stdout and "| recipe" not in fitted.stdout
    assert re.search(r"^ +\| 1\.0\.40-1\.0\.48 +no-hook \(same as control\) ✗$", fitted.stdout, re.M)
    markdown = probe(*args, "--format", "markdown").stdout
    assert "no-hook =ctl ✗ 1.0.40-1.0.48" in markdown  # the same segment, in the Markdown's words
    assert probe(*args, "--wide", env={"COLUMNS": "100"}).stdout == markdown
    piped = probe(*args).stdout  # no COLUMNS, not a terminal: the Markdown, byte for byte
    cells, classifiers, _ = committed()
    mine = load(results, None, "hang-pretool", setups=True)
    from probes.catalog.recipes import load_all as recipes

    pairs = {n: r.compare_with for n, r in recipes().items() if r.compare_with}
    known = known_candidates(results, sorted({c.agent for c in mine}))
    assert piped == markdown == tables.markdown(mine, classifiers, pairs, known)
    assert probe("table", "--grid", "--agent", "claude", "--results", str(results), env={"COLUMNS": "100"}).stdout.startswith(
        "## claude"
    )  # --grid is a Markdown layout: never compact


def test_legend_names_only_what_appears():
    cells, classifiers, _ = committed()
    hang = [c for c in cells if c.recipe == "hang-pretool"]
    text = legend(classifiers, hang)
    assert "progress_delay_s" in text and "`=ctl` after a label: same as control: the hook made no difference" in text
    for absent in ("stop_invocations", "N-of-M-fired", "reason_reached_model", "held-by-stdout"):
        assert absent not in text
    assert "`held`" in text  # vscode holds
    full = legend(classifiers)  # results/README.md: everything a cell may hold
    assert "stop_invocations" in full and "N-of-M-fired" in full and "`reason lost`" in full
    assert "stop_invocations" in (RESULTS / "README.md").read_text()


def test_every_boolean_key_observation_is_in_words():
    from probes.classify import CLASSIFIERS

    cells, classifiers, _ = committed()
    booleans = {
        key
        for c in cells
        if (name := classifiers.get(c.recipe)) in CLASSIFIERS
        and (key := CLASSIFIERS[name].key)
        and isinstance(c.record.observations.get(key), bool)
    }
    assert booleans and booleans <= set(BOOL_WORDS)
    committed_text = "".join(p.read_text() for p in RESULTS.glob("*.md"))
    assert not re.search(r"\b(reason|stdin) (yes|no)\b", committed_text)
