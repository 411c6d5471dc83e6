"""`probe check` on the agents whose hooks are code: the example folder's plugins (a deny-`rm`
plugin, an audit logger, one that is broken) through the real opencode and pi, each plugin
behind the check's recording wrapper (probes/check/plugins.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT, probe_cmd

EXAMPLE = ROOT / "examples" / "hooks"


def checked(tmp_path: Path, spec: str, folder: Path, *extra: str) -> dict:
    proc = probe_cmd(
        "check", spec, "--hooks", str(folder), "--json", "--scenario", "shell-destructive", *extra,
        results=tmp_path / "out", timeout=300,
    )  # fmt: skip
    assert proc.returncode in (0, 4), proc.stderr
    report = json.loads(proc.stdout)
    assert report["steps"][0]["control_ran"] is True, report
    return report


def by_name(report: dict) -> dict[str, dict]:
    return {Path(h["source"]).stem: h for h in report["hooks"]}


@pytest.mark.real
def test_opencode_plugins_deny_log_and_a_plugin_failing_to_load_fails_open(real_tools, tmp_path):
    report = checked(tmp_path, "opencode@1.18.33", EXAMPLE)
    hooks = by_name(report)
    assert report["steps"][0]["ran"] is False
    assert (hooks["deny-rm"]["verdict"], hooks["deny-rm"]["decision"]) == ("effective", "block (threw)")
    assert hooks["deny-rm"]["event"] == "tool.execute.before" and "recording wrapper" in hooks["deny-rm"]["changed"]
    assert (hooks["audit"]["verdict"], hooks["audit"]["fired"]) == ("passive", 1)
    # beside the deny it looks fail-closed; alone, opencode logs the load error and goes on
    assert (hooks["broken"]["verdict"], hooks["broken"]["treated"]) == ("broken", "fail-open")
    assert "failed to load: Error: ENOENT" in hooks["broken"]["reason"]
    from probes.evidence.model import load_evidence

    ev = load_evidence(Path(report["evidence"]))
    assert "rm probe-victim.txt" in ev["observations"]["workspace_changes"][".opencode/audit.log"]


@pytest.mark.real
def test_opencode_1_1_stops_on_a_plugin_that_fails_to_load(real_tools, tmp_path):
    folder = tmp_path / "repo"
    (folder / ".opencode/plugins").mkdir(parents=True)
    shutil.copy(EXAMPLE / ".opencode/plugins/broken.js", folder / ".opencode/plugins/broken.js")
    (broken,) = checked(tmp_path, "opencode@1.1.11", folder)["hooks"]
    assert (broken["verdict"], broken["treated"]) == ("broken", "fail-closed"), broken


@pytest.mark.real
def test_pi_extensions_deny_log_and_a_throwing_handler_blocks_the_tool(real_tools, tmp_path):
    report = checked(tmp_path, "pi@0.73.1", EXAMPLE)
    hooks = by_name(report)
    assert report["steps"][0]["ran"] is False
    # pi blocks a tool whose tool_call handler throws (its docs: fail-safe), before deny-rm runs
    assert (hooks["broken"]["verdict"], hooks["broken"]["treated"]) == ("broken", "fail-closed")
    assert "tool_call threw Error: ENOENT" in hooks["broken"]["reason"]
    assert (hooks["deny-rm"]["verdict"], hooks["deny-rm"]["decision"]) == ("effective", "block")
    assert "alone" in hooks["deny-rm"]["reason"]
    assert hooks["audit"]["verdict"] == "passive"


@pytest.mark.real
def test_an_opencode_plugin_that_rewrites_the_command_is_effective(real_tools, tmp_path):
    folder = tmp_path / "repo"
    (folder / ".opencode/plugins").mkdir(parents=True)
    (folder / ".opencode/plugins/rewrite.js").write_text(
        "export const Rewrite = async () => ({\n"
        '  "tool.execute.before": async (input, output) => {\n'
        '    if (input.tool === "bash") output.args.command = "echo rewritten > rewritten.txt";\n'
        "  },\n});\n"
    )
    proc = probe_cmd("check", "opencode@1.18.33", "--hooks", str(folder), "--json", results=tmp_path / "out", timeout=300)
    assert proc.returncode == 0, proc.stderr
    (rewrite,) = json.loads(proc.stdout)["hooks"]
    assert (rewrite["verdict"], rewrite["decision"]) == ("effective", "changed args"), rewrite


@pytest.mark.real
def test_kilo_runs_an_opencode_plugin_from_its_own_folder(real_tools, tmp_path):
    folder = tmp_path / "repo"
    (folder / ".kilo/plugins").mkdir(parents=True)
    shutil.copy(EXAMPLE / ".kilo/plugins/deny-rm.js", folder / ".kilo/plugins/deny-rm.js")
    (deny,) = checked(tmp_path, "kilo@7.7.7", folder)["hooks"]
    assert (deny["verdict"], deny["decision"]) == ("effective", "block (threw)"), deny
