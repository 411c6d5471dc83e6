"""Containment against a hostile session: the scripted model makes the real CLI run commands
a recipe never meant (read PID 1's environment, write outside the run, reach the Docker
socket), and `probe` is killed with SIGKILL mid-run. Nothing of it may reach the host."""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.helpers import CANARIES, CLAUDE, ROOT, env_with_canaries, leaked, need, processes_with, run_json

pytestmark = pytest.mark.real

UNLABELLED = "unlabelled-build-secret-0011"  # a secret whose name says nothing
DOCKER_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")


def hostile_recipes(tmp_path: Path, token: str, targets: list[str]) -> Path:
    """The shipped recipes plus `escape`: one shell step that tries every way out and prints
    what happened (the output reaches the model, so the evidence keeps it)."""
    d = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", d)
    writes = " ".join(f"{t}/probe-escape-{token}" for t in targets)
    script = "; ".join(
        [
            f"for f in {writes}; do (echo x > $f) 2>/dev/null && echo WROTE:$f || echo REFUSED:$f; done",
            'python3 -c "import socket,sys\nfor p in sys.argv[1:]:\n s=socket.socket(socket.AF_UNIX)\n'
            " try: s.connect(p); print('DOCKER-REACHED:'+p)\n except OSError as e: print('DOCKER-REFUSED:'+p, e.strerror)\" "
            + " ".join(DOCKER_SOCKETS),
            "ls -a ~root 2>&1 | head -3; id -u",
            # every environment this session can read, PID 1's (the runner) first, base64'd
            "echo ENVIRON; cat /proc/1/environ /proc/[0-9]*/environ 2>/dev/null | base64 -w0; echo",
        ]
    )
    body = {
        "question": "a hostile session",
        "agents": ["claude", "copilot"],
        "classifier": "decision",
        "hooks": [{"event": "pre_tool"}],
        "turns": [{"tool": "shell", "command": script}, {"text": "done"}],
    }
    (d / "escape.yaml").write_text(json.dumps({"name": "escape", "control": "escape-control", **body}))
    (d / "escape-control.yaml").write_text(json.dumps({"name": "escape-control", "control_of": "escape", **body}))
    return d


def tool_output(ev: dict) -> str:
    return "\n".join(m["text"] for r in ev["model_requests"] for m in r["messages"])


def test_a_hostile_session_reaches_no_secret_no_host_file_and_no_socket(real_tools, tmp_path):
    token = uuid.uuid4().hex[:12]
    outside = tmp_path / "outside"  # a host directory the session knows the path of
    outside.mkdir()
    targets = ["/tmp", "/var/tmp", "/etc", "/root", str(Path.home()), str(outside), str(Path.cwd())]
    env = env_with_canaries(
        PROBE_RECIPES=str(hostile_recipes(tmp_path, token, targets)), BUILD_LABEL=UNLABELLED, DB_PASSWORD=UNLABELLED + "-pw"
    )
    proc = run_json(CLAUDE, "escape", results=tmp_path / "results", env=env)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    out = tool_output(ev)
    assert "REFUSED:/etc/" in out, out[-1500:]  # the step ran and reported
    # 1. no secret: not the caller's canaries, not an unlabelled value, in no encoding
    assert not leaked([tmp_path / "results"], [proc.stdout, proc.stderr])
    environ = out.split("ENVIRON\n", 1)[1].split("\n", 1)[0]
    decoded = base64.b64decode(environ[: len(environ) // 4 * 4]).decode(errors="replace")
    assert "PATH=" in decoded  # it did read environments (the CLI's, its shell's), redacted in places
    for value in [*CANARIES.values(), UNLABELLED]:
        assert value not in decoded and value not in proc.stdout
    # 2. nothing written on the host: the private /tmp took what it could, the rest refused
    for target in targets:
        assert not Path(f"{target}/probe-escape-{token}").exists(), target
    for target in targets[2:]:
        assert f"REFUSED:{target}/probe-escape-{token}" in out, (target, out[-1500:])
    assert ev["isolation"] == {
        "network": "isolated",
        "user": "nobody" if os.geteuid() == 0 else "no capabilities",
        "filesystem": "read-only host, private /tmp and /run, writable run directory",
        "disk": "tmpfs, 256 MiB each: workspace, home, tmp, records"
        if os.geteuid() == 0
        else "uncapped (probe is not root: no tmpfs can be mounted)",
    }
    # 3. no host socket, while the Docker engine's is there to be reached
    if os.environ.get("CI"):
        need(any(os.path.exists(s) for s in DOCKER_SOCKETS), "a running Docker engine (CI starts dockerd)")
    assert "DOCKER-REACHED:/" not in out
    assert "DOCKER-REFUSED:/var/run/docker.sock No such file" in out


def start(argv: list[str], tmp: Path, mark: str) -> subprocess.Popen:
    env = {**os.environ, "TMPDIR": str(tmp), "PROBE_TEST_MARK": mark}
    return subprocess.Popen(
        [sys.executable, "-m", "probes.cli", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for_hook(tmp: Path, proc: subprocess.Popen, limit_s: float = 60) -> None:
    deadline = time.time() + limit_s
    while not list(tmp.glob("probe-run-*/records/*.json")):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.time() < deadline, "the hook never started"
        time.sleep(0.05)


def control_run(tmp: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """A short probe with its temporary directory in `tmp`: it sweeps what it finds there."""
    argv = [sys.executable, "-m", "probes.cli", "run", CLAUDE, "hang-pretool-control", "--results", str(tmp_path / "results")]
    return subprocess.run(argv, env={**os.environ, "TMPDIR": str(tmp)}, capture_output=True, text=True, timeout=120)


def gone_within(what: str, limit_s: float = 5) -> list[int]:
    deadline = time.time() + limit_s
    while processes_with(what) and time.time() < deadline:
        time.sleep(0.1)
    return processes_with(what)


@pytest.mark.parametrize(
    "command",
    [
        ["run", CLAUDE, "default-timeout-pretool"],
        ["matrix", "--agent", "claude", "--versions", CLAUDE.split("@")[1], "--recipe", "default-timeout-pretool", "--jobs", "2"],
    ],
)
def test_kill_9_of_probe_leaves_no_process_and_the_next_run_removes_its_directory(command, real_tools, tmp_path):
    assert run_json(CLAUDE, "hang-pretool-control", results=tmp_path / "warm").returncode == 0
    tmp, mark = tmp_path / "tmp", uuid.uuid4().hex
    tmp.mkdir()
    proc = start([*command, "--results", str(tmp_path / "results")], tmp, mark)
    wait_for_hook(tmp, proc)
    os.kill(proc.pid, signal.SIGKILL)  # the probe process alone, as the OOM killer would
    proc.wait(timeout=10)
    assert gone_within(mark) == []  # matrix workers
    assert gone_within(str(tmp)) == []  # the runner, the CLI, the hanging hook
    assert list(tmp.glob("probe-run-*"))  # left behind, until the next probe
    after = control_run(tmp, tmp_path)
    assert after.returncode == 0, after.stderr
    assert list(tmp.iterdir()) == []


def test_the_sweep_leaves_live_runs_alone(real_tools, tmp_path):
    tmp, mark = tmp_path / "tmp", uuid.uuid4().hex
    tmp.mkdir()
    live = start(["run", CLAUDE, "hang-pretool", "--results", str(tmp_path / "results")], tmp, mark)
    wait_for_hook(tmp, live)
    (running,) = tmp.glob("probe-run-*")
    # Nothing under probe inherits the caller's environment: not the runner, not the CLI.
    assert [p for p in processes_with(mark) if p != live.pid] == []
    other = control_run(tmp, tmp_path)
    assert other.returncode == 0, other.stderr
    assert running.is_dir() or live.poll() is not None  # only its own end removes it
    _, err = live.communicate(timeout=60)
    assert live.returncode == 0, err
    assert list(tmp.iterdir()) == []
