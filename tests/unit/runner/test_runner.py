"""The runner's process handling, with a plain python child (not a coding-agent CLI)."""

from __future__ import annotations

import json
import os
import signal
import sys

from probes.runner.runner import alive
from probes.runner.runner import run_processes as live_processes_of


def test_child_exits_zero(run, tmp_path):
    rc, result, plan = run("""
        import json, os, urllib.request
        req = urllib.request.Request(os.environ["MODEL_URL"] + "/v1/messages",
            data=json.dumps({"max_tokens": 5, "messages": []}).encode(),
            headers={"Content-Type": "application/json"})
        print(os.environ["MODEL_URL"], os.environ["PROBE_RUN_ID"], os.getcwd())
        print(json.load(urllib.request.urlopen(req, timeout=5))["content"][0]["text"])
    """)
    assert rc == 0
    assert result["exit_code"] == 0 and result["exit_signal"] is None
    assert result["timed_out"] is False and result["interrupted"] is None
    assert result["harness_killed"] == [] and result["alive_at_cli_exit"] == []
    assert result["started_at"] <= result["cli_ended_at"]
    port = result["port"]
    assert isinstance(port, int) and port > 0
    assert (tmp_path / "stdout.txt").read_text().splitlines() == [f"http://127.0.0.1:{port} {plan['run_id']} {tmp_path}", "ok"]
    (entry,) = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()]
    assert entry["path"] == "/v1/messages"
    assert not (tmp_path / "result.json.tmp").exists()


def test_budget_cuts_a_child_that_never_ends(run, tmp_path):
    rc, result, plan = run(
        """
        import os, time
        open("child.pid", "w").write(str(os.getpid()))
        time.sleep(3600)
    """,
        budget_s=1,
    )
    child = int((tmp_path / "child.pid").read_text())
    assert rc == 0
    assert result["timed_out"] is True
    assert result["exit_code"] is None
    assert result["exit_signal"] == "SIGKILL"
    assert 0.9 <= result["wall_s"] <= 1.5
    assert child in result["harness_killed"]
    assert not alive(child)
    assert live_processes_of(plan["run_id"]) == []


def test_grandchild_in_own_session_is_killed(run, tmp_path):
    rc, result, plan = run("""
        import subprocess, sys, time
        g = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                             start_new_session=True)
        open("grandchild.pid", "w").write(str(g.pid))
    """)
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    assert rc == 0
    assert result["exit_code"] == 0 and result["timed_out"] is False
    assert result["harness_killed"] == [grandchild]
    assert not alive(grandchild)
    assert live_processes_of(plan["run_id"]) == []


def test_result_and_model_log_are_what_the_contract_says(run, tmp_path):
    """The TypedDicts both sides import (mypy checks the code); here the files themselves."""
    from probes.runner.contract import ModelLogEntry, Result

    rc, result, plan = run("""
        import json, os, urllib.request
        req = urllib.request.Request(os.environ["MODEL_URL"] + "/v1/messages",
            data=json.dumps({"max_tokens": 5, "messages": []}).encode(),
            headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=5).read()
    """)
    assert rc == 0
    assert Result.__required_keys__ <= set(result) <= Result.__required_keys__ | Result.__optional_keys__
    (entry,) = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()]
    assert set(entry) == ModelLogEntry.__required_keys__


def test_a_killed_process_gets_its_death_time_after_the_final_kill(tmp_path):
    """The runner's final sweep waits to see each watched process gone (settle), so a hook
    killed by the harness is never left without a death time."""
    import json as json_
    import signal as signal_
    import subprocess as subprocess_

    from probes.runner.runner import Watcher

    proc = subprocess_.Popen(["sleep", "60"])
    (tmp_path / "1-1.json").write_text(json_.dumps({"pid": proc.pid}))
    watcher = Watcher(tmp_path)
    watcher.poll()
    assert proc.pid not in watcher.died_at
    proc.send_signal(signal_.SIGKILL)
    watcher.settle(timeout_s=5)
    assert proc.pid in watcher.died_at
    proc.wait()


def test_a_process_killed_but_not_yet_gone_counts_as_dying_not_alive():
    """The sweep at the CLI's exit must not count a hook the CLI has just SIGKILLed as left
    alive (it was killed by the CLI): SIGKILLed and not reaped, it is a zombie or dying."""
    import subprocess
    import time

    from probes.runner.runner import dying

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.2)
        assert alive(child.pid) and not dying(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        assert not alive(child.pid) or dying(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not dying(child.pid)  # reaped: no such process
