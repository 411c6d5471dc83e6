"""The command line as a user meets it: exit codes, one-line errors, nothing written."""

from __future__ import annotations

import json

import pytest

from probes.agents import AGENTS
from probes.cli import main
from tests.helpers import ROOT, probe_cmd

KNOWN = ", ".join(sorted(AGENTS))  # every agent module, however many there are


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "copilot@1.0", "hang-pretool"], "malformed spec 'copilot@1.0'"),
        (["run", "nosuchagent@1.0.0", "hang-pretool"], "unknown agent 'nosuchagent'"),
        (["run", "copilot@1.0.92;touch /tmp/x", "hang-pretool"], "malformed spec"),
        (["run", "copilot@1.0.92", "no-such-recipe"], "unknown recipe 'no-such-recipe'"),
        (["run", "copilot@1.0.92", "hang-pretool", "--repeat", "0"], "--repeat must be from 1 to 100"),
        (["run", "copilot@1.0.92"], "the following arguments are required"),
        (["frobnicate"], "invalid choice"),
        (["versions", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["run", "claude@2.1.328", "hang-pretool", "--setup", "permissions=yolo"], "claude has no permissions value 'yolo'"),
        (["run", "claude@2.1.328", "hang-pretool", "--setup", "shell=bash"], "'shell=bash' is not KEY=VALUE"),
        (["run", "codex@0.171.0", "hang-pretool", "--setup", "session=interactive"], "codex has no session value"),
        (["cite", "claude@2.1.328", "hang-pretool", "--setup", "sh=zsh"], "claude has no sh value 'zsh'"),
        (["matrix", "--agent", "vscode", "--versions", "4.139.1", "--setup", "permissions=none"], "vscode has no permissions"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("probe: ") and message in err
    assert list(tmp_path.iterdir()) == []  # nothing written, not even results/


def test_unwritable_results_is_an_input_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    from probes.pipeline import run

    with pytest.raises(Exception) as e:
        run.check_writable(blocker / "results")
    assert e.value.exit_code == 2 and "not writable" in str(e.value)


def test_list_json_names_events_and_controls():
    proc = probe_cmd("list", "--json")
    assert proc.returncode == 0
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["hang-pretool"]["control"] == "hang-pretool-control"
    assert rows["hang-pretool"]["events"] == ["pre_tool"]
    assert rows["hang-pretool-control"]["control_of"] == "hang-pretool"
    assert {"copilot", "claude", "vscode"} <= set(rows["payload-pretool"]["agents"])


def test_summary_shows_mismatch_loudly():
    from probes.commands.run import summary
    from probes.evidence.model import Evidence
    from tests.helpers import fixture

    ev = Evidence(**{**fixture("copilot", "1.0.92", "hang-pretool"), "requested_version": "1.0.57", "version_mismatch": True})
    text = summary(ev, "results/x.json")
    assert "MISMATCH: asked for 1.0.57" in text and "fail-open" in text


def test_invalid_recipe_file_names_file_and_line(tmp_path, monkeypatch, capsys):
    import shutil

    recipes = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", recipes)
    (recipes / "hang-pretool.yaml").write_text(
        "name: hang-pretool\nquestion: q\nagents: [copilot]\nclassifier: pretool-liveness\n"
        "control: hang-pretool-control\nhooks:\n  - event: pre_tool\n    behavior: {hang: maybe}\n"
    )
    monkeypatch.setenv("PROBE_RECIPES", str(recipes))
    monkeypatch.chdir(tmp_path)
    assert main(["run", "copilot@1.0.92", "hang-pretool"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"invalid recipe {recipes}/hang-pretool.yaml:8: hooks.0.behavior.hang" in err
    assert main(["list"]) == 2
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("path_dirs, message", [([], "npm not found on PATH")])
def test_missing_npm_is_one_line(path_dirs, message, tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PATH": "/nonexistent", "PROBE_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "probes.cli", "run", "copilot@1.0.92", "hang-pretool", "--results", str(tmp_path / "r")],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stderr == f"probe: {message}: install Node.js and npm (https://nodejs.org) and retry\n"
    assert not (tmp_path / "r").exists()


def test_unreachable_registry_is_one_line_exit_1(tmp_path):
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "npm_config_registry": "http://127.0.0.1:9/",
        "npm_config_fetch_retry_mintimeout": "10",
        "npm_config_fetch_retry_maxtimeout": "50",
        "PROBE_CACHE": str(tmp_path / "cache"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "probes.cli", "run", "copilot@1.0.92", "hang-pretool", "--results", str(tmp_path / "r")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "npm view @github/copilot failed (npm error code ECONNREFUSED)" in proc.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "claude@2.1.328", "hang-pretol"], "unknown recipe 'hang-pretol': see `probe list`. Perhaps you meant hang-"),
        (["run", "claud@2.1.328", "x"], f"unknown agent 'claud': choose one of {KNOWN}. Perhaps you meant claude"),
        (["versions", "copilt"], f"unknown agent 'copilt': choose one of {KNOWN}. Perhaps you meant copilot?"),
        (["matrix", "--agent", "claud", "--versions", "2.1.328"], "Perhaps you meant claude?"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--recipe", "payload-pretol"], "meant payload-pretool"),
        (["bump", "--agent", "claud"], "Perhaps you meant claude?"),
        (["diff", "claude@2.1.328", "claud@2.1.329"], "Perhaps you meant claude?"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--jobs", "0"], "--jobs must be from 1 to 64, not '0'"),
        (["bump", "--agent", "claude", "--jobs", "-1"], "--jobs must be from 1 to 64"),
        (["run", "claude@2.1.328", "hang-pretool", "--repeat", "1_0"], "--repeat must be from 1 to 100"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--repeat", "x"], "--repeat must be from 1 to 100"),
        (["bump", "--agent", "claude", "--shards", "0", "--dry-run"], "--shards must be from 1 to 1000"),
    ],
)
def test_names_and_counts_are_checked_before_anything_runs(args, message, tmp_path, capsys, monkeypatch):
    """A mistyped agent or recipe names the nearest; a count out of bounds is refused by its
    option; neither asks the registry (which is unreachable here) nor writes anything."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("probe: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_probe_help_names_schema_and_no_agent_is_written_into_the_cli():

    proc = probe_cmd("--help")
    assert proc.returncode == 0 and "schema" in proc.stdout and "JSON Schema of the evidence record" in proc.stdout
    probes = ROOT / "probes"
    mine = [
        *probes.glob("classify/*.py"),
        *probes.glob("report/*.py"),
        *probes.glob("evidence/*.py"),
        *probes.glob("commands/*.py"),
    ]
    mine += [probes / f"{m}.py" for m in ("cli", "sweep/bump", "suggest")]
    for path in mine:
        text = path.read_text()
        assert len(text.splitlines()) <= 450, path
        assert '"copilot"' not in text and '"claude"' not in text, f"{path}: agents come from probes.agents.AGENTS"
