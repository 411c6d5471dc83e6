"""The matrix's scheduler: longest first (cost learnt from recorded evidence), one cell per
core always, more while a core is idle, never more than the cap; and a real matrix of a few
cells that ends with the committed labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.sweep import matrix
from tests.helpers import CLAUDE, ROOT

FEW = ["hang-pretool-control", "crash-pretool", "payload-pretool", "exit2-pretool"]


@pytest.mark.real
def test_a_real_matrix_runs_each_cell_to_its_committed_label(real_tools, tmp_path):
    agent, version = CLAUDE.split("@")
    cells = [c for c in matrix.cells(agent, [version], "all") if c.recipe in FEW]
    done = matrix.run(cells, tmp_path)  # the default: adaptive
    assert [(c.recipe, c.status) for c in done] == [(c.recipe, "done") for c in cells]
    committed = ROOT / "results" / agent / version
    for c in done:
        assert c.outcome == json.loads((committed / f"{c.recipe}.json").read_text())["outcome"], c.recipe
        assert c.wall_s is not None and c.cpu_s is not None and c.cpu_s > 0
        assert Path(c.evidence or "").is_file()
