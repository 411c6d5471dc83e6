"""The command line as a user meets it: exit codes, one-line errors, nothing written."""

from __future__ import annotations

import pytest

from probes.cli import main


@pytest.mark.real
def test_unwritable_results_via_cli(real_tools, tmp_path, capsys):
    (tmp_path / "file").write_text("")
    assert main(["run", "claude@2.1.328", "hang-pretool", "--results", str(tmp_path / "file" / "r")]) == 2
    assert "is not writable: choose another with --results" in capsys.readouterr().err
