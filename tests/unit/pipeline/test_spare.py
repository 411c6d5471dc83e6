"""A worker's spare run (pipeline/spare.py): made while a session runs, taken once by the next
probe, and gone with its process however that ends: no runner and no run directory outlive
it. The real runner, started as every probe starts it, waiting for a plan it never gets; each
case in a process of its own (a spare is its process's)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.helpers import ROOT

HEAD = """
import json, os, sys, time
from probes.backends.local import LocalBackend
from probes.pipeline import spare
from probes.pipeline.steps import RUNNER, RUNNER_FILES
local = LocalBackend()
def state(s):
    bin = s.run.root / "bin"
    return {"dir": str(s.run.root), "runner": os.path.isfile(bin / "runner.py"), "alive": s.launch.proc.poll() is None}
"""


def run(body: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    code = HEAD + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def runners_under(tmp: Path) -> list[str]:
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True).stdout
    return [line for line in ps.splitlines() if str(tmp) in line]


def test_a_spare_is_taken_once_and_a_discarded_one_leaves_nothing(tmp_path):
    proc = run(
        """
        spare.make(local, RUNNER_FILES, RUNNER)
        print(json.dumps({"not enabled": spare.take(local) is None}))
        spare.enable()
        spare.make(local, RUNNER_FILES, RUNNER)
        got = spare.take(local)
        print(json.dumps({"taken": state(got), "again": spare.take(local) is None}))
        got.close()
        print(json.dumps({"closed": not os.path.exists(got.run.root), "ended": got.launch.proc.poll() is not None}))
        spare.make(local, RUNNER_FILES, RUNNER)
        time.sleep(0.5)
        kept = spare.take(local)
        spare.make(local, RUNNER_FILES, RUNNER)
        spare.discard()
        print(json.dumps({"discarded": sorted(os.listdir(os.environ["TMPDIR"])) == []}))
        kept.close()
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert lines[0] == {"not enabled": True}  # a lone `probe run` makes none
    taken = lines[1]["taken"]
    assert taken["runner"] and taken["alive"] and Path(taken["dir"]).parent == tmp_path and lines[1]["again"]
    assert lines[2] == {"closed": True, "ended": True}
    assert lines[3] == {"discarded": False}  # `kept` is still open: only the spare went
    assert list(tmp_path.iterdir()) == [] and runners_under(tmp_path) == []


def test_a_spare_goes_with_its_process_on_exit_and_on_sigkill(tmp_path):
    made = "spare.enable()\nspare.make(local, RUNNER_FILES, RUNNER)\n"
    proc = run(made + "time.sleep(0.5)\nsys.exit(0)\n", tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert list(tmp_path.iterdir()) == [] and runners_under(tmp_path) == []
    # killed, it cannot clean up: its runner dies with it, and the next probe's sweep takes the directory
    proc = run(made + "time.sleep(0.5)\nos.kill(os.getpid(), 9)\n", tmp_path)
    assert proc.returncode == -9
    deadline = time.monotonic() + 10
    while runners_under(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runners_under(tmp_path) == []
    swept = run("from probes.pipeline import rundirs\nprint(len(rundirs.sweep()))\n", tmp_path)
    assert swept.stdout.strip() == "1" and list(tmp_path.iterdir()) == []
