"""Safe to run anywhere, safe to publish: no credential written, no network beyond loopback,
no process of a run left behind, no half-written evidence, the same label every time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from probes.catalog.recipes import load_all
from probes.evidence.model import SCHEMA_VERSION
from tests.helpers import (
    CLAUDE,
    COPILOT,
    assert_no_connection_beyond_loopback,
    canary_recipes,
    env_with_canaries,
    leaked,
    processes_with,
    run_json,
)

pytestmark = pytest.mark.real


RECIPES = load_all()


# Recipes whose label could hang on a race (timing, process death, parallelism, loops): every
# CI run repeats them. `pytest -m exhaustive` repeats every shipped recipe but the slow ones
# (they wait out a CLI's long default timeout): about 20 minutes on 2 cores.
RACY = (
    "hang-pretool",
    "hang-session-end",
    "crash-pretool",
    "sigterm-ignored-pretool",
    "grandchild-pretool",
    "grandchild-stdout-pretool",
    "parallel-pretool",
    "stdin-pretool",
    "stop-block-loop",
    "context-two-session-start",
    "subagent-hooks",
)


def repeated(names) -> list:
    return [
        pytest.param(spec, name, marks=[] if name in RACY else [pytest.mark.exhaustive])
        for spec in (COPILOT, CLAUDE)
        for name in sorted(names)
        if spec.split("@")[0] in RECIPES[name].agents and not RECIPES[name].slow
    ]


REPEATED = repeated(RECIPES)


@pytest.mark.parametrize("spec, recipe", REPEATED)
def test_five_runs_one_label_no_canary_no_leftover(spec, recipe, real_tools, tmp_path):
    proc = run_json(spec, recipe, "--repeat", "5", results=tmp_path / "results", env=env_with_canaries())
    assert proc.returncode == 0, proc.stderr
    records = json.loads(proc.stdout)
    assert len(records) == 5
    assert len({r["outcome"] for r in records}) == 1, [r["outcome"] for r in records]
    assert not leaked([tmp_path / "results"], [proc.stdout, proc.stderr])
    for r in records:
        assert r["network"] == "isolated"
        assert processes_with(r["run_id"]) == []


@pytest.mark.parametrize("spec", [COPILOT, CLAUDE])
def test_canaries_in_hook_output_prompt_and_env_are_redacted(spec, real_tools, tmp_path):
    env = env_with_canaries(PROBE_RECIPES=str(canary_recipes(tmp_path)))
    proc = run_json(spec, "canary-pretool", results=tmp_path / "results", env=env)
    assert proc.returncode == 0, proc.stderr
    assert not leaked([tmp_path / "results"], [proc.stdout, proc.stderr])
    ev = json.loads(proc.stdout)
    assert "<redacted>" in json.dumps(ev["invocations"]) and "<redacted>" in json.dumps(ev["model_requests"])
    if spec == CLAUDE:
        assert all(i["env"]["ANTHROPIC_API_KEY"] == "<redacted>" for i in ev["invocations"])


def test_host_network_is_said_when_namespaces_are_unavailable(real_tools, tmp_path, monkeypatch):
    from probes.backends import local
    from probes.pipeline.run import probe

    monkeypatch.setattr(local, "isolation_prefix", lambda: ())
    ev, path = probe(CLAUDE, "hang-pretool-control", tmp_path / "results")
    assert ev.network == "host" and ev.outcome == "allowed"
    assert processes_with(ev.run_id) == []


@pytest.mark.parametrize(
    "spec, recipe", [(COPILOT, "hang-pretool"), (CLAUDE, "hang-pretool"), (CLAUDE, "session-start-resume")]
)  # and in a terminal
def test_ctrl_c_leaves_nothing_running_and_nothing_written(spec, recipe, real_tools, tmp_path):
    assert run_json(spec, "hang-pretool-control", results=tmp_path / "warm").returncode == 0
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "probes.cli", "run", spec, recipe, "--results", str(tmp_path / "results")],
        env={**os.environ, "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 20
    while not processes_with(str(tmp) + "/probe-run-") or not list(tmp.glob("probe-run-*/records/*.json")):
        assert time.time() < deadline, "the hook never started"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does to the foreground group
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip() == "probe: interrupted (SIGINT); no evidence written for the unfinished probe"
    assert not (tmp_path / "results").exists()
    assert list(tmp.iterdir()) == []
    assert processes_with(str(tmp)) == []


def test_concurrent_runs_share_one_install_and_write_whole_evidence(real_tools, tmp_path):
    env = {**os.environ, "PROBE_CACHE": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "probes.cli", "run"]
    jobs = [[CLAUDE, "payload-pretool"], [CLAUDE, "payload-pretool"], [CLAUDE, "exit2-pretool"]]
    procs = [
        subprocess.Popen(
            [*argv, *job, "--results", str(tmp_path / "results")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for job in jobs
    ]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    versions = tmp_path / "cache" / "cli" / "claude"
    assert sorted(p.name for p in versions.iterdir() if p.is_dir()) == ["2.1.328"]
    assert not list(versions.glob(".*partial*"))
    for f in (tmp_path / "results").rglob("*.json"):
        assert json.loads(f.read_text())["schema_version"] == SCHEMA_VERSION
    assert not list((tmp_path / "results").rglob("*.tmp"))


def test_runaway_stop_loop_is_cut_and_its_evidence_stays_small(real_tools, tmp_path):
    proc = run_json("copilot@1.0.71", "stop-block-loop", results=tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    assert ev["outcome"] == "unbounded" and ev["cli"]["timed_out"]
    assert ev["observations"]["stop_invocations"] == ev["invocation_count"] > 30
    assert len(ev["invocations"]) <= 30 and len(ev["model_requests"]) <= 15
    path = tmp_path / "results" / "copilot" / "1.0.71" / "stop-block-loop.json"
    assert path.stat().st_size < 300_000
    assert processes_with(ev["run_id"]) == []


@pytest.mark.parametrize("spec", [COPILOT, CLAUDE])
def test_no_connection_beyond_loopback(spec, real_tools, tmp_path):
    assert_no_connection_beyond_loopback(spec, tmp_path)
