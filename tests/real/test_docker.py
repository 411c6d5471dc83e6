"""The docker backend for real: an image per CLI version, probes in containers with no
network, the same verdicts as the local backend (whose evidence is committed in results/)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from probes.evidence.model import load_evidence
from tests.helpers import CLAUDE, COPILOT, ROOT, need

pytestmark = pytest.mark.real
RESULTS = ROOT / "results"
CORE = ("hang-pretool", "crash-pretool", "exit2-pretool", "payload-pretool")


@pytest.fixture(scope="module")
def engine():
    try:
        import docker

        client = docker.from_env()
        client.ping()
    except Exception as e:
        need(False, f"no Docker engine: {e}")
    base = os.environ.get("PROBE_BASE_IMAGE", "node:22-bookworm-slim")
    try:
        client.images.get(base)
    except Exception:
        need(False, f"base image {base} missing: containers/make-base-image.sh and PROBE_BASE_IMAGE")
    return client


def probe(*args, **kw):
    return subprocess.run([sys.executable, "-m", "probes.cli", *args], capture_output=True, text=True, **kw)


@pytest.mark.parametrize("spec", [COPILOT, CLAUDE])
@pytest.mark.parametrize("recipe", CORE)
def test_core_recipes_give_the_local_verdict_in_a_container(spec, recipe, engine, real_tools, tmp_path):
    proc = probe("run", spec, recipe, "--backend", "docker", "--json", "--results", str(tmp_path), timeout=900)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    agent, version = spec.split("@")
    local = load_evidence(RESULTS / agent / version / f"{recipe}.json")
    assert (ev["backend"], ev["network"], ev["executed_version"]) == ("docker", "isolated", version)
    assert ev["image"].startswith("sha256:")
    assert ev["outcome"] == local["outcome"]
    assert engine.images.get(ev["image"]).labels["probe.version"] == version


@pytest.mark.parametrize("spec", ["gemini@0.61.0", "qwen@0.24.4"])
def test_a_cli_that_wants_a_newer_node_than_the_image_runs_on_its_own(spec, engine, real_tools, tmp_path):
    """Gemini CLI asks for Node.js >=20 and Qwen Code >=22; probe-base:bookworm has Debian's 18.
    The image build installs the Node each asks for from npm (versions/node.py), so both run
    (Gemini's image build stopped on "requires Node.js >=20, found 18.20.4" before)."""
    proc = probe("run", spec, "hang-pretool", "--backend", "docker", "--json", "--results", str(tmp_path), timeout=900)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    agent, version = spec.split("@")
    local = load_evidence(RESULTS / agent / version / "hang-pretool.json")
    assert (ev["network"], ev["executed_version"], ev["outcome"]) == ("isolated", version, local["outcome"])
    wanted = {"gemini": "v20.", "qwen": "v22."}[agent]
    node = engine.containers.run(ev["image"], ["/opt/cli/node/bin/node", "--version"], remove=True, network_mode="none")
    assert node.decode().startswith(wanted)


def containers(engine, pid: int) -> list:
    # sparse: no inspection of each, so a container the engine removes meanwhile is no error
    return engine.containers.list(all=True, sparse=True, filters={"label": f"probe.pid={pid}"})


def test_interrupted_run_leaves_no_container(engine, real_tools, tmp_path):
    assert (
        probe(
            "run", CLAUDE, "hang-pretool-control", "--backend", "docker", "--results", str(tmp_path / "warm"), timeout=900
        ).returncode
        == 0
    )  # the image exists
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "probes.cli",
            "run",
            CLAUDE,
            "hang-pretool",
            "--backend",
            "docker",
            "--results",
            str(tmp_path / "results"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 60
    while not containers(engine, proc.pid):
        assert time.time() < deadline, "no container started"
        time.sleep(0.1)
    time.sleep(1.5)  # the hook is hanging now
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert containers(engine, proc.pid) == []
    assert not (tmp_path / "results").exists()


def test_killed_probe_takes_its_container_with_it(engine, real_tools, tmp_path):
    """`kill -9` of `probe run --backend docker`: its container ends within seconds (its
    first process sees the probe's hold on its standard input go), not when its session
    would have, nor at the next docker probe; the engine removes it."""
    assert (
        probe(
            "run", CLAUDE, "hang-pretool-control", "--backend", "docker", "--results", str(tmp_path / "warm"), timeout=900
        ).returncode
        == 0
    )  # the image exists
    proc = subprocess.Popen(
        [sys.executable, "-m", "probes.cli", "run", CLAUDE, "hang-pretool", "--backend", "docker"]
        + ["--results", str(tmp_path / "results")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 60
    while not [c for c in containers(engine, proc.pid) if c.status == "running"]:
        assert time.time() < deadline, "no container started"
        time.sleep(0.1)
    time.sleep(1.5)  # the hook is hanging now
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while containers(engine, proc.pid) and time.time() < deadline:
        time.sleep(0.1)
    assert containers(engine, proc.pid) == []
    assert not (tmp_path / "results").exists()


def test_no_engine_is_one_line(tmp_path):
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no.sock"}
    proc = probe("run", CLAUDE, "hang-pretool", "--backend", "docker", "--results", str(tmp_path / "r"), env=env)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("probe: no Docker engine answers") and "start dockerd" in proc.stderr
    assert not (tmp_path / "r").exists()


HARNESS_TAG = "probe-harness:test"


@pytest.fixture(scope="module")
def harness_image(engine, tmp_path_factory):
    """The top-level Dockerfile, built as a user without a registry builds it (README of
    containers/): on PROBE_BASE_IMAGE, with the host's CA bundle as containers/ca.crt."""
    import shutil

    from probes.backends.docker import ca_bundle

    root = ROOT
    ctx = tmp_path_factory.mktemp("harness-context") / "src"
    shutil.copytree(root, ctx, ignore=shutil.ignore_patterns(".git", ".venv", "results", "__pycache__", "*.egg-info"))
    if ca_bundle():
        shutil.copy(ca_bundle(), ctx / "containers" / "ca.crt")
    base = os.environ.get("PROBE_BASE_IMAGE", "node:22-bookworm-slim")
    image, _ = engine.images.build(
        path=str(ctx), tag=HARNESS_TAG, network_mode="host", rm=True, forcerm=True, buildargs={"BASE_IMAGE": base}
    )
    return image


def test_harness_image_runs_probe(engine, harness_image, real_tools, tmp_path):
    """`probe` inside its own image: the catalog is there, and a probe runs and gives the
    committed verdict (the CLI cache is mounted at the same path, so nothing is downloaded)."""
    from probes.versions.prefixes import cache_root

    out = engine.containers.run(HARNESS_TAG, ["list", "--json"], remove=True)
    assert len(json.loads(out)) == len(list((ROOT / "recipes").glob("*.yaml")))
    cache = cache_root()
    cache.mkdir(parents=True, exist_ok=True)
    out = engine.containers.run(
        HARNESS_TAG,
        ["run", COPILOT, "payload-pretool", "--json"],
        remove=True,
        network_mode="host",
        environment={"PROBE_CACHE": str(cache)},
        volumes={str(cache): {"bind": str(cache), "mode": "rw"}, str(tmp_path): {"bind": "/src/results", "mode": "rw"}},
    )
    ev = json.loads(out)
    agent, version = COPILOT.split("@")
    local = load_evidence(RESULTS / agent / version / "payload-pretool.json")
    assert (ev["executed_version"], ev["outcome"]) == (version, local["outcome"])
    assert (tmp_path / agent / version / "payload-pretool.json").is_file()
