"""The search of `probe bisect` (probes/sweep/search.py) against recorded verdicts: a fake probe
over a dict stands for the CLIs (the search is our own logic; the real run is below, marked
`real`), and the command line's bad input."""

from __future__ import annotations

import json

import pytest

from tests.helpers import probe_cmd


@pytest.mark.real
def test_real_bisect_finds_the_cwd_change(real_tools, tmp_path):
    """Copilot started in a subdirectory: hooks ran in the project root on 1.0.71, in the
    session's directory on 1.0.73 (a boundary found by `probe bisect`, committed in results/).
    Over 1.0.70..1.0.75 (4 releases): both ends, the middle, and the control on each version probed."""
    results = tmp_path / "results"
    ends = ("--from", "1.0.70", "--to", "1.0.75")
    proc = probe_cmd("bisect", "copilot", "cwd-subdir", *ends, "--json", "--progress", results=results, timeout=600)
    assert proc.returncode == 0, proc.stderr
    # --progress: a line a round, naming its interval (stderr; stdout stays the JSON)
    assert (
        "probe: bisect round 1 of ~3: cwd-subdir and its control cwd-subdir-control on copilot 1.0.70, 1.0.75 (the ends)\n"
        in proc.stderr
    )
    assert (
        "probe: bisect round 2 of ~3: cwd-subdir and its control cwd-subdir-control on copilot 1.0.71 (between 1.0.70 and 1.0.75)"
        in proc.stderr
    )
    got = json.loads(proc.stdout)
    assert got["candidates"] == ["1.0.70", "1.0.71", "1.0.73", "1.0.75"]
    assert (got["before"]["version"], got["before"]["outcome"]) == ("1.0.71", "project-root")
    assert (got["after"]["version"], got["after"]["outcome"]) == ("1.0.73", "session-cwd")
    assert got["exact"] and got["status"] == "boundary" and len(got["probed"]) <= 4
    # the control on every version probed, oldest first, each differing from the recipe
    assert [c["version"] for c in got["controls"]] == sorted(got["probed"], key=lambda v: [int(x) for x in v.split(".")])
    assert all(c["earned"] for c in got["controls"])
    for v in ("1.0.71", "1.0.73"):
        assert (results / "copilot" / v / "cwd-subdir.json").exists()
        assert (results / "copilot" / v / "cwd-subdir-control.json").exists()
    timeline = probe_cmd("timeline", "copilot", "cwd-subdir", "--json", results=results)
    assert timeline.returncode == 0, timeline.stderr
    assert json.loads(timeline.stdout)["boundaries"][0] == {"before": "1.0.71", "after": "1.0.73", "exact": True}
