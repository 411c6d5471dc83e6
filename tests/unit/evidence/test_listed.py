"""A results tree listed while another process removes a folder in it."""

from __future__ import annotations

import shutil
from pathlib import Path

from probes.evidence.load import load
from probes.limits import listed
from tests.helpers import RESULTS, copy_record


def test_a_folder_removed_while_listed_is_listed_again(tmp_path, monkeypatch):
    """pathlib's glob raises FileNotFoundError when a folder it found is gone before it looks
    inside (Python 3.11): two atlas processes sharing results/ met it when one discarded an
    `unknown-2.1.44` folder (the Claude Code atlas, 2026-12-05). The listing is read again."""
    copy_record(RESULTS / "copilot" / "1.0.92" / "hang-pretool.json", tmp_path / "copilot" / "1.0.92" / "hang-pretool.json")
    doomed = tmp_path / "copilot" / "unknown-1.0.93"
    doomed.mkdir()
    real = Path.glob

    def glob_racing(self, pattern):
        if doomed.exists():  # found by the listing, then removed by the other process
            shutil.rmtree(doomed)
            raise FileNotFoundError(2, "No such file or directory", str(doomed))
        return real(self, pattern)

    monkeypatch.setattr(Path, "glob", glob_racing)
    assert listed(tmp_path) == [tmp_path / "copilot" / "1.0.92" / "hang-pretool.json"]
    doomed.mkdir()
    assert [c.version for c in load(tmp_path)] == ["1.0.92"]
