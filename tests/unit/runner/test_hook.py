"""The instrumented hook, run as a real subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import probes.runner.hooklib as hook_module
from probes.pipeline.spare import copy_runner_files
from probes.runner.contract import HookRecord
from probes.runner.runner import alive

KEY = "pre"
PAYLOAD = {"toolName": "bash", "toolArgs": {"command": "echo hi"}}


def wait_for(predicate, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


@pytest.fixture
def hook(tmp_path):
    """start(behavior, **popen) -> (Popen, records dir); every started hook is killed after."""
    procs: list[subprocess.Popen] = []

    def start(behavior: dict, stdin=subprocess.PIPE):
        hook_dir = tmp_path / "hook"
        records = tmp_path / "records"
        hook_dir.mkdir(exist_ok=True)
        records.mkdir(exist_ok=True)
        copy_runner_files(hook_dir, ("hook.py", "hooklib.py"), Path(hook_module.__file__).parent)  # as a run has them
        (hook_dir / "hook.json").write_text(
            json.dumps({"records": str(records), "hooks": {KEY: {"event": "preToolUse", "behavior": behavior}}})
        )
        env = {"PATH": os.environ.get("PATH", ""), "PROBE_TEST_MARK": "hook-env"}
        proc = subprocess.Popen(
            [sys.executable, str(hook_dir / "hook.py"), KEY],
            cwd=tmp_path,
            env=env,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        procs.append(proc)
        return proc, records

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe:
                pipe.close()


def the_record(records: Path) -> dict:
    """The one record, checked against the contract the harness reads it by."""
    (path,) = records.glob("*.json")
    record = json.loads(path.read_text())
    assert HookRecord.__required_keys__ <= set(record) <= HookRecord.__required_keys__ | HookRecord.__optional_keys__
    return record


def stdin_read(records: Path) -> bool:
    """The hook's record exists and says stdin has been read."""
    return any("stdin_read_at" in json.loads(p.read_text()) for p in records.glob("*.json"))


def feed(proc, payload=PAYLOAD):
    return proc.communicate(json.dumps(payload).encode(), timeout=5)


def test_default_behaviour(hook, tmp_path):
    proc, records = hook({})
    out, err = feed(proc)
    assert proc.returncode == 0
    assert (out, err) == (b"", b"")
    rec = the_record(records)
    assert rec["key"] == KEY and rec["event"] == "preToolUse"
    assert rec["payload"] == PAYLOAD
    assert rec["stdin_eof"] is True
    assert rec["stdin_raw"] is None
    assert rec["env"]["PROBE_TEST_MARK"] == "hook-env"
    assert rec["argv"] == [str(tmp_path / "hook" / "hook.py"), KEY]
    assert rec["cwd"] == str(tmp_path)
    assert rec["pid"] == proc.pid
    assert rec["exit_code"] == 0
    assert rec["killed_by_signal"] is None
    assert rec["started_at"] <= rec["stdin_read_at"] <= rec["ended_at"]


def test_non_json_stdin_is_kept_raw(hook):
    proc, records = hook({})
    proc.communicate(b"not json", timeout=10)
    rec = the_record(records)
    assert rec["payload"] is None
    assert rec["stdin_raw"] == "not json"
    assert rec["stdin_eof"] is True


def test_stdout_object_is_printed_as_json(hook):
    decision = {"permissionDecision": "deny", "permissionDecisionReason": "probe"}
    proc, records = hook({"stdout": decision})
    out, _ = feed(proc)
    assert proc.returncode == 0
    assert json.loads(out) == decision
    assert json.loads(the_record(records)["output"]) == decision


def test_exit_code_and_stderr(hook):
    proc, records = hook({"exit_code": 2, "stderr": "blocked by probe"})
    out, err = feed(proc)
    assert proc.returncode == 2
    assert out == b"" and err == b"blocked by probe"
    rec = the_record(records)
    assert rec["exit_code"] == 2 and rec["stderr"] == "blocked by probe"


def test_signal_sigkill_keeps_what_it_had(hook):
    proc, records = hook({"signal": "SIGKILL"})
    feed(proc)
    assert proc.returncode == -signal.SIGKILL
    rec = the_record(records)
    assert rec["payload"] == PAYLOAD
    assert rec["crashed_with"] == "SIGKILL"
    assert rec["ended_at"] is None
    assert rec["exit_code"] is None


def test_hang_then_sigterm(hook):
    proc, records = hook({"hang": True})
    proc.stdin.write(json.dumps(PAYLOAD).encode())
    proc.stdin.close()
    wait_for(lambda: stdin_read(records))
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=5)
    assert proc.returncode == -signal.SIGTERM
    rec = the_record(records)
    assert [s["signal"] for s in rec["signals"]] == ["SIGTERM"]
    assert rec["killed_by_signal"] == "SIGTERM"
    assert rec["payload"] == PAYLOAD
    assert rec["started_at"] <= rec["signals"][0]["at"] <= rec["ended_at"]


def test_ignore_sigterm(hook):
    proc, records = hook({"hang": True, "ignore_sigterm": True})
    proc.stdin.close()
    wait_for(lambda: stdin_read(records))
    proc.send_signal(signal.SIGTERM)
    wait_for(lambda: the_record(records).get("signals"))
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(timeout=0.3)
    proc.kill()
    proc.wait(timeout=5)
    assert proc.returncode == -signal.SIGKILL
    rec = the_record(records)
    assert [s["signal"] for s in rec["signals"]] == ["SIGTERM"]
    assert rec["killed_by_signal"] is None
    assert rec["ended_at"] is None


def test_stdin_never_closed_after_complete_json(hook):
    proc, records = hook({})
    start = time.monotonic()
    proc.stdin.write(json.dumps(PAYLOAD).encode())
    proc.stdin.flush()  # and never close it
    proc.wait(timeout=2)
    assert time.monotonic() - start < 2
    assert proc.returncode == 0
    rec = the_record(records)
    assert rec["stdin_eof"] is False
    assert rec["payload"] == PAYLOAD


def test_read_stdin_false(hook):
    proc, records = hook({"read_stdin": False})
    proc.wait(timeout=2)  # stdin left open: the hook does not wait for it
    assert proc.returncode == 0
    rec = the_record(records)
    assert rec["stdin_eof"] is None
    assert rec["payload"] is None and rec["stdin_raw"] is None
    assert "stdin_read_at" not in rec
    assert rec["ended_at"] is not None


@pytest.mark.parametrize("mode", ["session", "group", "stdout"])
def test_grandchild_outlives_hook(hook, request, mode):
    proc, records = hook({"grandchild": mode})
    proc.stdin.write(json.dumps(PAYLOAD).encode())
    proc.stdin.close()
    assert proc.wait(timeout=5) == 0  # the hook exits; a "stdout" grandchild keeps its pipe open
    gpid = the_record(records)["grandchild_pid"]

    def cleanup():
        try:
            os.kill(gpid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    request.addfinalizer(cleanup)
    assert alive(gpid)
    if mode == "group":
        assert os.getpgid(gpid) == the_record(records)["pgid"]
    else:
        assert os.getsid(gpid) == gpid != os.getsid(0)


def test_the_start_is_the_process_start_before_python_ran(hook):
    """started_at is the kernel's start of the process (so the time Python takes to start
    counts in every delay measured from it), no later than when the hook's code began."""
    before = time.time()
    proc, records = hook({})
    feed(proc)
    rec = the_record(records)
    assert before - 0.05 <= rec["started_at"] <= rec["main_at"] <= rec["ended_at"]
    assert rec["main_at"] - rec["started_at"] < 2.0
    assert hook_module.process_start() <= time.time()


JSON_VALUES = [
    PAYLOAD,
    {"a": [1, 2.5, -3e-7, True, False, None], "é": 'line\nbreak "quoted" \u2028 \U0001f600', "": {}},
    [],
    "plain",
    10**30,
    {"nested": {"deep": [[{"x": 1}]]}},
]


@pytest.mark.parametrize("value", JSON_VALUES, ids=range(len(JSON_VALUES)))
def test_its_json_matches_the_json_module(value):
    """The hook's own JSON (no `json` import) reads and writes what json does: stdout objects
    print byte for byte as json.dumps prints them."""
    assert hook_module.dumps(value, ", ", ": ") == json.dumps(value)
    assert json.loads(hook_module.dumps(value)) == value
    assert hook_module.loads(" \n" + json.dumps(value) + "\r\n") == value


@pytest.mark.parametrize("text", ["", "   ", "{", '{"a": 1} {"b": 2}', "nul", '{"a": 1,}', "[1] x"])
def test_its_json_refuses_what_json_refuses(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        hook_module.loads(text)


def test_it_imports_neither_json_nor_signal_nor_enum(tmp_path):
    """What makes its start slow (re and enum, 10 ms) stays out: benchmarks/hook_cost.py."""
    here = str(Path(hook_module.__file__).parent)
    code = f"import sys; sys.path.insert(0, {here!r}); import hooklib; print(*sys.modules, sep=chr(10))"
    out = subprocess.run([sys.executable, "-S", "-E", "-s", "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.split())
    assert not loaded & {"json", "signal", "enum", "re", "typing", "subprocess"}, loaded & {"json", "signal", "enum", "re"}


def test_a_run_s_hook_reads_its_body_s_bytecode_and_compiles_nothing(tmp_path):
    """hook.py imports hooklib.py, whose bytecode the run's files carry (__pycache__, unchecked):
    a call reads it and writes none (benchmarks/hook_cost.py: 2 ms of a call's 10)."""
    copy_runner_files(tmp_path, ("hook.py", "hooklib.py"), Path(hook_module.__file__).parent)
    cached = sorted(p.name for p in (tmp_path / "__pycache__").iterdir())
    assert cached == [f"hooklib.{sys.implementation.cache_tag}.pyc"]
    (tmp_path / "hook.json").write_text(json.dumps({"records": str(tmp_path), "hooks": {}}))
    before = (tmp_path / "__pycache__" / cached[0]).read_bytes()
    argv = [sys.executable, "-S", "-E", "-s", "-v", str(tmp_path / "hook.py"), KEY]
    proc = subprocess.run(argv, input=b"{}", capture_output=True, check=True)
    assert f"matches {tmp_path / 'hooklib.py'}" in proc.stderr.decode(), proc.stderr.decode()[-2000:]
    assert (tmp_path / "__pycache__" / cached[0]).read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "__pycache__").iterdir()) == cached
