"""Shared fixtures. Tests marked `real` run the real CLIs: they need node, npm and the npm
registry. Outside CI a missing tool skips them with the reason; in CI (CI=true), where
.ci/run provides everything, a missing tool is a failure, never a skip."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.helpers import RESULTS, need, probe_cmd


@pytest.fixture(scope="session")
def real_tools():
    for tool in ("node", "npm", "git"):
        need(shutil.which(tool) is not None, f"{tool} not on PATH")


@pytest.fixture
def run_probe(real_tools, tmp_path):
    """run_probe("copilot@1.0.92", "hang-pretool") -> (evidence dict, evidence path)."""

    def run(spec: str, recipe: str) -> dict:
        proc = probe_cmd("run", spec, recipe, "--json", results=tmp_path / "results")
        assert proc.returncode == 0, proc.stderr
        ev = json.loads(proc.stdout)
        agent, _ = spec.split("@")
        path = tmp_path / "results" / agent / ev["executed_version"] / f"{recipe}.json"
        from probes.evidence.model import load_evidence

        assert load_evidence(path) == ev  # the record as stored (store.py), its refs resolved
        return ev

    return run


@pytest.fixture
def results(tmp_path):
    dst = tmp_path / "results"
    shutil.copytree(RESULTS, dst, ignore=shutil.ignore_patterns("*.md", "*.html"))
    return dst
