"""The command line as a user meets it: exit codes, one-line errors, nothing written."""

from __future__ import annotations

import json

import pytest

from probes.cli import main

from .conftest import probe_cmd


@pytest.mark.parametrize("args, message", [
    (["run", "copilot@1.0", "hang-pretool"], "malformed spec 'copilot@1.0'"),
    (["run", "gemini@1.0.0", "hang-pretool"], "unknown agent 'gemini'"),
    (["run", "copilot@1.0.92;touch /tmp/x", "hang-pretool"], "malformed spec"),
    (["run", "copilot@1.0.92", "no-such-recipe"], "unknown recipe 'no-such-recipe'"),
    (["run", "copilot@1.0.92", "hang-pretool", "--repeat", "0"], "--repeat must be at least 1"),
    (["run", "copilot@1.0.92"], "the following arguments are required"),
    (["frobnicate"], "invalid choice"),
    (["versions", "gemini"], "unknown agent 'gemini'"),
])
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
    from probes import run
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
    assert set(rows["payload-pretool"]["agents"]) == {"copilot", "claude"}


def test_summary_shows_mismatch_loudly():
    from probes.cli import summary
    from probes.evidence import Evidence
    from .test_classify import fixture
    ev = Evidence(**{**fixture("copilot", "1.0.92", "hang-pretool"), "requested_version": "1.0.57",
                     "version_mismatch": True})
    text = summary(ev, "results/x.json")
    assert "MISMATCH: asked for 1.0.57" in text and "fail-open" in text
