"""VS Code's Copilot Chat agent, driven headless (code-server + headless chromium) against the
scripted model: the install costs minutes (about 600 MB), so these run only on demand
(pytest -m vscode) and nightly, never in the default run."""

from __future__ import annotations

import json
import shutil

import pytest

from probes.evidence.model import load_evidence
from probes.runner.vscode_session import BROWSERS
from tests.helpers import need, probe_cmd

pytestmark = pytest.mark.vscode  # not `real`: a `pytest -m real` run does not pay for this install

VSCODE = "vscode@4.139.1"  # code-server 4.139.1: VS Code 1.139.1, Copilot Chat 0.67.0


@pytest.fixture
def run_vscode(real_tools, tmp_path):
    need(any(map(shutil.which, BROWSERS)), "no chromium on PATH (Debian: apt-get install chromium)")

    def run(recipe: str) -> dict:
        proc = probe_cmd("run", VSCODE, recipe, "--json", results=tmp_path / "results", timeout=1200)
        assert proc.returncode == 0, proc.stderr
        ev = json.loads(proc.stdout)
        assert load_evidence(tmp_path / "results" / "vscode" / ev["executed_version"] / f"{recipe}.json") == ev
        assert ev["executed_version"] == ev["requested_version"] == VSCODE.split("@")[1]
        assert ev["network"] == "isolated"
        return ev

    return run


def test_payload_pretool_records_the_hook_s_payload_and_the_versions(run_vscode):
    ev = run_vscode("payload-pretool")
    assert "VS Code 1.139.1" in ev["executed_version_source"]
    assert "Copilot Chat 0.67.0" in ev["executed_version_source"]
    pre = [inv for inv in ev["invocations"] if inv["event"] == "PreToolUse"]
    assert pre and ev["observations"]["tool_name"] == "run_in_terminal"


def test_deny_json_and_its_control_disagree(run_vscode):
    deny, allow = run_vscode("deny-json-pretool"), run_vscode("deny-json-pretool-control")
    assert deny["outcome"] == "denied"
    assert allow["outcome"] != deny["outcome"]


def test_the_docker_backend_is_refused_in_one_line(real_tools):
    proc = probe_cmd("run", "--backend", "docker", VSCODE, "payload-pretool")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "runs with --backend local, not docker" in proc.stderr


def test_a_vs_code_version_runs_the_code_server_release_that_bundles_it(run_vscode, tmp_path):
    proc = probe_cmd("run", "vscode@1.139.1", "deny-json-pretool", "--json", results=tmp_path / "by-vscode", timeout=1200)
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    assert (ev["requested_version"], ev["executed_version"]) == ("1.139.1", "4.139.1")
    assert "VS Code 1.139.1" in ev["executed_version_source"] and not ev["version_mismatch"]
    assert ev["outcome"] == "denied"


def test_probe_check_a_deny_policy_is_effective(real_tools, tmp_path):
    """probe check on VS Code: a flat .github/hooks entry answering in VS Code's deny shape."""
    need(any(map(shutil.which, BROWSERS)), "no chromium on PATH (Debian: apt-get install chromium)")
    deny = (
        '#!/usr/bin/env bash\nif grep -q "rm "; then echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
        '"permissionDecision": "deny", "permissionDecisionReason": "no rm"}}\'; fi\n'
    )
    folder = tmp_path / "repo"
    (folder / ".github" / "hooks").mkdir(parents=True)
    config = {"hooks": {"PreToolUse": [{"type": "command", "command": ".github/hooks/deny.sh", "timeout": 10}]}}
    (folder / ".github" / "hooks" / "hooks.json").write_text(json.dumps(config))
    (folder / ".github" / "hooks" / "deny.sh").write_text(deny)
    (folder / ".github" / "hooks" / "deny.sh").chmod(0o755)
    proc = probe_cmd(
        "check",
        VSCODE,
        "--hooks",
        str(folder),
        "--scenario",
        "shell-destructive",
        "--json",
        "--strict",
        results=tmp_path / "out",
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["steps"] == [{"kind": "shell", "tool": "run_in_terminal", "ran": False, "control_ran": True}]
    [hook] = report["hooks"]
    assert (hook["verdict"], hook["decision"]) == ("effective", "deny"), hook


def test_the_recorder_s_config_is_read_and_answers_nothing_and_its_log_imports(real_tools, tmp_path):
    """`probe recorder` in a driven VS Code (through `probe check`): every hook the shell scenario
    fires is passive, and the log it left (captured, cut at a bound: whole lines only) imports
    with the VS Code and Chat versions read from the install's package.json."""
    need(any(map(shutil.which, BROWSERS)), "no chromium on PATH (Debian: apt-get install chromium)")
    rec = tmp_path / "rec"
    assert probe_cmd("recorder", "vscode", str(rec)).returncode == 0
    proc = probe_cmd("check", VSCODE, "--hooks", str(rec), results=tmp_path / "out", timeout=1200)
    assert proc.returncode == 0, proc.stderr
    ev = load_evidence(tmp_path / "out" / "vscode" / "4.139.1" / "check-shell.json")
    fired = {h["event"]: h["verdict"] for h in ev["observations"]["hooks"] if h["fired"]}
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse"} <= set(fired)
    assert set(fired.values()) == {"passive"}
    captured = ev["observations"]["workspace_changes"][".probe-recorder/log.jsonl"]
    whole = []
    for line in captured.splitlines():
        try:
            json.loads(line)
        except ValueError:
            break
        whole.append(line)
    assert whole
    (tmp_path / "back").mkdir()
    (tmp_path / "back" / "log.jsonl").write_text("".join(f"{line}\n" for line in whole))
    proc = probe_cmd("import", str(tmp_path / "back"), results=tmp_path / "results")
    assert proc.returncode == 0, proc.stderr
    record = load_evidence(tmp_path / "results" / "vscode" / "_recorded" / "1.139.1" / proc.stdout.split("/")[-1].strip())
    assert record["provenance"] == "recorded-by-person" and record["observations"]["event_order"][0] == "SessionStart"
    assert "Copilot Chat 0.67.0" in record["executed_version_source"]
