"""The control beside every version a bisect probes (probes/sweep/bisect.py): probed right after
the recipe with the same install, a control record already there read instead, and the
boundary's versions checked even when the evidence gave them. A fake probe_repeated stands for
the CLIs (the control logic is our own)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from probes.agents import AGENTS
from probes.sweep import bisect
from probes.sweep.search import Point, search
from tests.synthetic import write_points

RECIPE, CONTROL = "exit2-pretool", "exit2-pretool-control"
VERSIONS = [f"1.0.{i}" for i in range(9)]


class Fake:
    """exit2-pretool: allowed before 1.0.5, denied from it; its control the other label but on
    1.0.0, where it allows too (that verdict is not earned); 1.0.6 cannot install."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []  # (version, recipe) in the order run
        self.released: list[str] = []

    def probe_repeated(self, spec_text: str, recipe: str, results: Path, repeat: int = 1) -> tuple[list[Any], Path, bool]:
        version = spec_text.split("@")[1]
        self.calls.append((version, recipe))
        if version == "1.0.6":
            raise bisect.ProbeError("npm install failed")
        late = bisect.spec.semver_key(version) >= bisect.spec.semver_key("1.0.5")
        outcome = "denied" if late == (recipe == RECIPE) and version != "1.0.0" else "allowed"
        record = SimpleNamespace(outcome=outcome, executed_version=version, observations={})
        return [record] * repeat, results / "copilot" / version / f"{recipe}.json", True

    def release(self, agent: object, version: str) -> None:
        self.released.append(version)


@pytest.fixture
def fake(monkeypatch):
    f = Fake()
    monkeypatch.setattr(bisect, "probe_repeated", f.probe_repeated)
    monkeypatch.setattr(bisect.install, "release", f.release)
    return f


def test_every_version_probed_gets_its_control_with_one_install(tmp_path, fake):
    write_points(tmp_path, "copilot", CONTROL, {"1.0.4": "denied"})  # already there: read, not run
    with bisect.Runner(AGENTS["copilot"], RECIPE, tmp_path) as runner:
        found = search(VERSIONS, runner.probe, 1, lambda _: None)
        checks = bisect.controls(runner, RECIPE, bisect.probed_points(found))
    assert found.status == "boundary" and found.before and found.after
    assert (found.before.version, found.after.version) == ("1.0.4", "1.0.5")
    probed = [v for v in found.probed if v != "1.0.6"]
    # each version's control runs right after the recipe, before its install is let go
    for v in probed:
        at = fake.calls.index((v, RECIPE))
        if v != "1.0.4":
            assert fake.calls[at + 1] == (v, CONTROL)
    assert (("1.0.4", CONTROL) not in fake.calls) and ("1.0.6", CONTROL) not in fake.calls
    assert sorted(fake.released) == sorted(found.probed)  # one install per version, released once
    assert [c.version for c in checks] == sorted(probed, key=bisect.spec.semver_key)
    by = {c.version: c for c in checks}
    report = bisect.Report("copilot", RECIPE, None, VERSIONS[0], VERSIONS[-1], found, checks)
    assert by["1.0.4"].reused and by["1.0.4"].earned is True
    assert by["1.0.0"].earned is False and all(c.earned for v, c in by.items() if v != "1.0.0")
    assert "control exit2-pretool-control on 1.0.0: allowed (same as the recipe: the hook made" in bisect.text(report)
    assert set(bisect.as_json(report)["controls"][0]) == {"recipe", "version", "outcome", "earned", "reason"}


def test_the_boundary_the_evidence_gave_is_checked_too(tmp_path, fake):
    """A fill or the nightly's narrowing takes known ends from the evidence: not probed again,
    but their control is run when it has no record there (once per version)."""
    known = {"1.0.0": Point("1.0.0", "allowed", "allowed"), "1.0.8": Point("1.0.8", "denied", "denied")}
    with bisect.Runner(AGENTS["copilot"], RECIPE, tmp_path) as runner:
        found = search(VERSIONS, runner.probe, 1, lambda _: None, known)
        checks = bisect.controls(runner, RECIPE, bisect.probed_points(found) + list(known.values()))
    assert "1.0.0" not in found.probed and "1.0.8" not in found.probed
    versions = [c.version for c in checks]
    assert versions == sorted(set(versions), key=bisect.spec.semver_key)
    assert "1.0.0" in versions and "1.0.8" in versions
    assert fake.calls.count(("1.0.8", CONTROL)) == 1 and ("1.0.8", RECIPE) not in fake.calls
