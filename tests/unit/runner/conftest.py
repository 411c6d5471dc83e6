"""The runner with a plain python child (not a coding-agent CLI), for its process handling
and its budget."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import uuid

import pytest

from probes.runner import runner


@pytest.fixture
def run(tmp_path):
    """run(child_code, budget_s=10, **plan) -> (return code, result dict, plan). Restores the
    signal handlers runner.main installs; kills anything of the run it left behind."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    run_ids = []

    def start(code: str, budget_s: float = 10, **more):
        run_id = "test-" + uuid.uuid4().hex
        run_ids.append(run_id)
        plan = {
            "argv": [sys.executable, "-c", textwrap.dedent(code)],
            "env": {"PATH": os.environ.get("PATH", ""), "MODEL_URL": "http://127.0.0.1:{port}"},
            "cwd": str(tmp_path),
            "budget_s": budget_s,
            "run_id": run_id,
            "script": [{"text": "done"}],
            "records": str(tmp_path / "records"),
            "model_log": str(tmp_path / "model.jsonl"),
            "stdout": str(tmp_path / "stdout.txt"),
            "stderr": str(tmp_path / "stderr.txt"),
            "result": str(tmp_path / "result.json"),
            **more,
        }
        plan_path = tmp_path / "plan.json"
        plan_path.write_text(json.dumps(plan))
        rc = runner.main(str(plan_path))
        return rc, json.loads((tmp_path / "result.json").read_text()), plan

    yield start
    for sig, handler in saved.items():
        signal.signal(sig, handler)
    for run_id in run_ids:
        for pid in runner.run_processes(run_id):
            os.kill(pid, signal.SIGKILL)
