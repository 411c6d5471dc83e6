"""Shared fixtures. Tests marked `real` run the real CLIs: they need node, npm and the npm
registry. Outside CI a missing tool skips them with the reason; in CI (CI=true), where
.ci/run provides everything, a missing tool is a failure, never a skip."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

COPILOT = "copilot@1.0.92"
COPILOT_OLD = "copilot@1.0.80"
COPILOT_OLDER = "copilot@1.0.71"
CLAUDE = "claude@2.1.328"
CODEX = "codex@0.171.0"


def need(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must provide this: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def real_tools():
    for tool in ("node", "npm", "git"):
        need(shutil.which(tool) is not None, f"{tool} not on PATH")


def probe_cmd(*args: str, results: Path | None = None, check_json: bool = False, timeout: float = 300):
    """Run the `probe` command line in a subprocess, as a user would."""
    argv = [sys.executable, "-m", "probes.cli", *args]
    if results is not None:
        argv += ["--results", str(results)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


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
