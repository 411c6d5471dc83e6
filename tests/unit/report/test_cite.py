"""`probe cite` of a range: an exact boundary below the cited version is a bisected "since",
an open one names the two probed versions it lies between; both boundary records are cited
with their digests. Synthetic evidence trees (our own rendering)."""

from __future__ import annotations

from probes.report.cite import evidence_digest
from tests.helpers import probe
from tests.synthetic import releases, write_points, write_published


def test_cite_since_an_exact_boundary_names_the_release_before_and_cites_both_records(tmp_path):
    root = tmp_path / "results"
    points = {"1.0.0": "allowed", "1.0.4": "allowed", "1.0.5": "denied", "1.0.9": "denied"}
    write_points(root, "copilot", "exit2-pretool", points)
    write_published(root, "copilot", releases("1.0.", 10))
    proc = probe("cite", "copilot@1.0.9", "exit2-pretool", "--results", str(root))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "**Range**: **denied reason lost** on copilot 1.0.5-1.0.9 (2 probed versions)" in out
    assert "since 1.0.5 (bisected: the release before, 1.0.4, gave allowed reason lost)." in out
    for version, what in (("1.0.4", "before"), ("1.0.5", "after")):
        path = root / "copilot" / version / "exit2-pretool.json"
        assert f"- Boundary below, {what}: `{path}` (sha256 `{evidence_digest(path)}`)" in out
    assert "Through 1.0.9" not in out  # nothing probed above it


def test_cite_of_an_open_boundary_says_between_which_probed_versions(tmp_path):
    root = tmp_path / "results"
    points = {"1.0.0": "allowed", "1.0.3": "allowed", "1.0.7": "denied", "1.0.8": "allowed"}
    write_points(root, "copilot", "exit2-pretool", points)
    write_published(root, "copilot", releases("1.0.", 10))
    out = probe("cite", "copilot@1.0.7", "exit2-pretool", "--results", str(root)).stdout
    said = "since 1.0.7 or earlier: the range is open, the change lies between probed versions 1.0.3 (gave allowed reason lost)"
    assert f"{said} and 1.0.7" in out
    assert "`probe bisect copilot exit2-pretool --from 1.0.3 --to 1.0.7`" in out
    assert "Through 1.0.7; 1.0.8 gave allowed reason lost (exact: the next release)." in out
    cited = {line.split("`")[1] for line in out.splitlines() if line.startswith("- Boundary")}
    assert cited == {str(root / "copilot" / v / "exit2-pretool.json") for v in ("1.0.3", "1.0.7", "1.0.8")}


def test_cite_without_a_snapshot_calls_no_boundary_exact(tmp_path):
    root = tmp_path / "results"
    write_points(root, "copilot", "exit2-pretool", {"1.0.4": "allowed", "1.0.5": "denied"})
    out = probe("cite", "copilot@1.0.5", "exit2-pretool", "--results", str(root)).stdout
    assert "the range is open" in out and "bisected" not in out
    first = probe("cite", "copilot@1.0.4", "exit2-pretool", "--results", str(root)).stdout
    assert "since at least 1.0.4, the oldest version probed." in first
