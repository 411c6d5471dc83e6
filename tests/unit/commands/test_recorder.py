"""`probe recorder` and `probe import` (docs/recorder.md): the recorder's real script run with a
real VS Code payload, the log imported as evidence apart from driven runs, redacted; bad input
is one line, exit 2, nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probes.cli import main
from probes.evidence.load import load
from probes.evidence.model import load_evidence
from probes.recorder import FOLDER, LOG, PROVENANCE
from tests.helpers import ROOT

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0"  # token-shaped, fake


def committed_payloads() -> list[tuple[str, dict]]:
    record = load_evidence(ROOT / "results" / "vscode" / "4.139.1" / "payload-pretool.json")
    return [(i["event"], i["payload"]) for i in record["invocations"]]


def record(workspace: Path, event: str, payload: object, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The recorder's hook as VS Code runs it: from the workspace root, the payload on stdin."""
    script = workspace / FOLDER / "record.py"
    env = {**os.environ, **(extra_env or {})}
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [sys.executable, str(script), "vscode", event], input=stdin, cwd=workspace, env=env, capture_output=True, text=True
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A person's workspace with the recorder copied in, as README.txt says."""
    rec = tmp_path / "rec"
    assert main(["recorder", "vscode", str(rec)]) == 0
    ws = tmp_path / "ws"
    subprocess.run(["cp", "-r", f"{rec}/.", str(ws)], check=True)
    return ws


def test_recorder_writes_a_hook_for_every_native_event(tmp_path):
    assert main(["recorder", "vscode", str(tmp_path / "rec")]) == 0
    config = json.loads((tmp_path / "rec" / ".github" / "hooks" / "probe-recorder.json").read_text())
    from probes.agents.vscode import EVENTS

    assert set(config["hooks"]) == set(EVENTS.values())
    for event, entries in config["hooks"].items():
        assert entries == [{"type": "command", "command": f"python3 {FOLDER}/record.py vscode {event}", "timeout": 10}]
    assert (tmp_path / "rec" / FOLDER / "record.py").is_file()
    assert "probe import" in (tmp_path / "rec" / "README.txt").read_text()


@pytest.mark.parametrize("agent, config", [("copilot", ".github/hooks/probe-recorder.json"), ("claude", ".claude/settings.json")])
def test_other_agents_get_their_own_config(agent, config, tmp_path):
    assert main(["recorder", agent, str(tmp_path / "rec")]) == 0
    assert f"record.py {agent} " in (tmp_path / "rec" / config).read_text()


def test_round_trip_vscode_payloads(workspace, tmp_path, capsys):
    app = tmp_path / "app"  # an install, as VSCODE_NLS_CONFIG names it in VS Code's hook environment
    (app / "out").mkdir(parents=True)
    (app / "extensions" / "copilot").mkdir(parents=True)
    (app / "package.json").write_text('{"version": "1.139.1"}')
    (app / "extensions" / "copilot" / "package.json").write_text('{"version": "0.67.0"}')
    env = {
        "VSCODE_NLS_CONFIG": json.dumps({"defaultMessagesFile": str(app / "out" / "nls.messages.json")}),
        "PROBE_TEST_API_TOKEN": "canary-value-never-recorded",
        "TERM_PROGRAM_VERSION": "1.139.1",
    }
    payloads = committed_payloads()
    for event, payload in payloads:
        if event == "PreToolUse":
            payload = {**payload, "cwd": str(workspace), "tool_input": {**payload["tool_input"], "command": f"echo {TOKEN}"}}
        proc = record(workspace, event, payload, env)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")  # answers nothing
    assert record(workspace, "Stop", "not json {", env).returncode == 0
    log = (workspace / FOLDER / LOG).read_text()
    assert "canary-value-never-recorded" not in log  # environment values never reach the log
    assert "PROBE_TEST_API_TOKEN" in log

    results = tmp_path / "results"
    capsys.readouterr()
    assert main(["import", str(workspace), "--results", str(results)]) == 0
    written = [Path(p) for p in capsys.readouterr().out.split()]
    assert len(written) == 1 and written[0].parent == results / "vscode" / "_recorded" / "1.139.1"
    text = written[0].read_text()
    assert TOKEN not in text and "canary-value-never-recorded" not in text and str(workspace) not in text
    ev = load_evidence(written[0])
    assert ev["provenance"] == PROVENANCE and ev["outcome"] == "recorded" and ev["backend"] == "person"
    assert ev["executed_version"] == "1.139.1" and "Copilot Chat 0.67.0" in ev["executed_version_source"]
    events = [e for e, _ in payloads]
    assert ev["observations"]["event_order"] == [*events, "Stop"]
    assert ev["invocations_by_event"]["Stop"] == events.count("Stop") + 1
    pre = next(i for i in ev["invocations"] if i["event"] == "PreToolUse")
    assert pre["canonical_event"] == "pre_tool" and pre["cwd_relative"] == "."
    assert pre["payload"]["tool_input"]["command"] == "echo <redacted>" and pre["payload"]["cwd"] == "$WORKSPACE"
    assert "PROBE_TEST_API_TOKEN" in pre["env_names"] and "PROBE_TEST_API_TOKEN" not in pre["env"]
    assert pre["env"]["TERM_PROGRAM_VERSION"] == "1.139.1"
    assert ev["observations"]["fields_by_event"]["PreToolUse"] == sorted(payloads[2][1])
    assert ev["invocations"][-1]["stdin_raw"] == "not json {"
    # kept apart from driven runs: tables never load it
    assert [r for r in load(results)] == []


def test_import_redacts_as_a_driven_run(workspace, tmp_path, capsys, monkeypatch):
    """The caller's secret-named variables' values (URL-encoded too), an Authorization
    header, and a secret-named variable in any case under env_versions: as collect.scrub
    and run.py redact a driven run's."""
    monkeypatch.setenv("PROBE_TEST_DEPLOY_TOKEN", "caller/secret+value")
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_input": {
            "command": "curl -H 'Authorization: Bearer plain-bearer-value' https://h/?t=caller%2fsecret%2bvalue",
            "headers": {"authorization": "Basic dXNlcjpwYXNzd29yZA=="},
            "note": "the caller/secret+value is here",
        },
    }
    assert record(workspace, "PreToolUse", payload).returncode == 0
    log = workspace / FOLDER / LOG
    line = json.loads(log.read_text())
    line["env_versions"] = {"Session_Auth_Version": "1.2.3", "VSCODE_VERSION": "1.139.1"}  # a hand-edited log
    log.write_text(json.dumps(line) + "\n")
    capsys.readouterr()
    assert main(["import", str(workspace), "--results", str(tmp_path / "results")]) == 0
    [path] = [Path(p) for p in capsys.readouterr().out.split()]
    text = path.read_text()
    for clear in ("caller/secret+value", "caller%2fsecret%2bvalue", "plain-bearer-value", "dXNlcjpwYXNzd29yZA", "1.2.3"):
        assert clear not in text, clear
    inv = load_evidence(path)["invocations"][0]
    assert inv["payload"]["tool_input"]["headers"]["authorization"] == "<redacted>"
    assert inv["payload"]["tool_input"]["note"] == "the <redacted> is here"
    assert inv["env"] == {"Session_Auth_Version": "<redacted>", "VSCODE_VERSION": "1.139.1"}


def test_recorder_refuses_a_non_empty_directory(tmp_path, capsys):
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "mine.txt").write_text("x")
    assert main(["recorder", "vscode", str(tmp_path / "rec")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an empty directory" in err
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == ["mine.txt"]


@pytest.mark.parametrize(
    "lines, message",
    [
        (["{not json"], ":1: not a recorder log line (not JSON"),
        (['{"recorder": 1}'], ":1: not a recorder log line (agent: Field required)"),
        ([], "empty"),
    ],
)
def test_bad_logs_are_one_line_and_nothing_written(lines, message, workspace, tmp_path, capsys):
    assert record(workspace, "Stop", {"hook_event_name": "Stop"}).returncode == 0
    log = workspace / FOLDER / LOG
    good = log.read_text()
    log.write_text("".join(line + "\n" for line in lines) if lines else "")
    if lines:  # a good line first: the bad one is named by its line, and nothing is written
        log.write_text(good + "".join(line + "\n" for line in lines))
        message = message.replace(":1:", ":2:")
    results = tmp_path / "results"
    assert main(["import", str(workspace), "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(log) in err
    assert not results.exists()


def test_import_refuses_an_unknown_agent_and_a_missing_log(workspace, tmp_path, capsys):
    assert main(["import", str(tmp_path / "nowhere"), "--results", str(tmp_path / "r")]) == 2
    assert "no .probe-recorder/log.jsonl" in capsys.readouterr().err
    subprocess.run([sys.executable, str(workspace / FOLDER / "record.py"), "nosuch", "Stop"], input="{}", text=True, check=True)
    assert main(["import", str(workspace), "--results", str(tmp_path / "r")]) == 2
    assert "names agent 'nosuch'" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_stdin_never_closed_is_waited_for_5_s_then_recorded(workspace):
    started = time.monotonic()
    with subprocess.Popen(
        [sys.executable, str(workspace / FOLDER / "record.py"), "vscode", "Stop"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workspace,
    ) as proc:
        proc.stdin.write(b'{"hook_event_name": "Stop"')  # no end of input
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0
        took = time.monotonic() - started
        assert proc.stdout.read() == proc.stderr.read() == b""  # no shutdown abort with the reader still waiting
        proc.stdin.close()
    assert 4.5 < took < 15
    line = json.loads((workspace / FOLDER / LOG).read_text())
    assert line["stdin_eof"] is False and line["stdin_raw"] == '{"hook_event_name": "Stop"' and line["payload"] is None
