"""A verdict beside its control (evidence/load.py mark_unearned, report/cells.py): `=ctl` when
the control got the same label on that version, `no ctl` when the control has no record there;
in the grid, the ranges, the JSON and the legend. Synthetic trees (tests/synthetic.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from probes.evidence.load import load
from probes.report.cells import cell_text
from probes.report.legend import legend
from probes.report.ranges import line, line_text
from probes.report.tables import as_json
from tests.synthetic import write_points

RECIPE, CONTROL = "exit2-pretool", "exit2-pretool-control"
VERSIONS = ["1.0.1", "1.0.2", "1.0.3", "1.0.4"]


def tree(root: Path) -> None:
    """exit2-pretool denied on four versions; its control allowed on 1.0.1 (earned), denied on
    1.0.2 (not earned), not run on 1.0.3 and 1.0.4."""
    write_points(root, "copilot", RECIPE, dict.fromkeys(VERSIONS, "denied"), control=CONTROL)
    write_points(root, "copilot", CONTROL, {"1.0.1": "allowed", "1.0.2": "denied"})  # names no control of its own


def test_a_verdict_whose_control_was_not_run_is_marked_no_ctl(tmp_path):
    tree(tmp_path)
    cells = {(c.recipe, c.version): c for c in load(tmp_path)}
    mine = {v: cells[RECIPE, v] for v in VERSIONS}
    assert [(mine[v].same_as_control, mine[v].control_missing) for v in VERSIONS] == [
        (False, False),
        (True, False),
        (False, True),
        (False, True),
    ]
    assert not any(cells[CONTROL, v].control_missing for v in ("1.0.1", "1.0.2"))  # a control has none to miss
    assert [cell_text(mine[v], None) for v in VERSIONS] == ["denied", "denied =ctl", "denied no ctl", "denied no ctl"]
    text = line_text(line(list(cells.values()), "copilot", RECIPE, None, VERSIONS))
    assert text == "denied 1.0.1 | denied =ctl 1.0.2 | denied no ctl 1.0.3-1.0.4"
    rows = {(r["recipe"], r["version"]): r for r in json.loads(as_json(list(cells.values())))}
    assert rows[RECIPE, "1.0.3"]["control_missing"] and not rows[RECIPE, "1.0.1"]["control_missing"]
    assert "`no ctl`" in legend({}) and "`=ctl`" in legend({})


def test_a_narrowed_load_reads_the_control_from_beside_the_record(tmp_path):
    """`--recipe` loads no control cell: the control is still looked up, so only the versions
    without one say `no ctl`."""
    tree(tmp_path)
    cells = {c.version: c for c in load(tmp_path, recipe=RECIPE)}
    assert {v for v, c in cells.items() if c.control_missing} == {"1.0.3", "1.0.4"}
    assert {v for v, c in cells.items() if c.same_as_control} == {"1.0.2"}


def test_a_setup_misses_its_control_unless_it_ran_in_that_setup(tmp_path):
    """A record of a non-default setup answers to its control in the same setup: the default
    setup's control beside it does not count."""
    tree(tmp_path)
    version = tmp_path / "copilot" / "1.0.1"
    shutil.copy(version / f"{RECIPE}.json", version / f"{RECIPE}@sh=bash.json")
    cells = {c.recipe: c for c in load(tmp_path, version="1.0.1")}
    assert cells[f"{RECIPE}@sh=bash"].control_missing and not cells[RECIPE].control_missing
    shutil.copy(version / f"{CONTROL}.json", version / f"{CONTROL}@sh=bash.json")
    cells = {c.recipe: c for c in load(tmp_path, version="1.0.1")}
    assert not cells[f"{RECIPE}@sh=bash"].control_missing and not cells[f"{RECIPE}@sh=bash"].same_as_control
