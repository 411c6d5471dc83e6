"""`probe check` on Cline's hook files (one executable per event in .clinerules/hooks and
.cline/hooks), through the real CLI: a deny policy answering `{"cancel": true}`, an audit
logger, and a Python hook the check does not watch (3.0.65 starts it as `python3 FILE`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import probe_cmd, write

CLINE = "cline@3.0.65"

DENY = (
    "#!/bin/sh\npayload=$(cat)\n"
    'if printf \'%s\' "$payload" | grep -q \'rm \'; then echo \'{"cancel": true, "errorMessage": "no rm"}\'; fi\n'
)
AUDIT = "#!/usr/bin/env bash\nmkdir -p .audit && { cat; echo; } >> .audit/log.jsonl\n"
PYTHON = "#!/usr/bin/env python3\nimport sys\nsys.stdin.read()\nopen('py-ran.txt', 'w').close()\n"


@pytest.mark.real
def test_cline_hook_files_deny_audit_and_an_unwatched_python_hook(real_tools, tmp_path):
    files = {".clinerules/hooks/PreToolUse": DENY, ".clinerules/hooks/TaskStart": AUDIT, ".cline/hooks/TaskStart.py": PYTHON}
    folder = write(tmp_path / "repo", files)
    for rel in files:
        (folder / rel).chmod(0o755)
    proc = probe_cmd(
        "check", CLINE, "--hooks", str(folder), "--scenario", "shell-destructive", "--json", results=tmp_path / "out", timeout=240
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["version"] == "3.0.65" and report["steps"][0]["ran"] is False and report["steps"][0]["control_ran"] is True
    verdicts = {h["command"]: (h["verdict"], h["decision"]) for h in report["hooks"]}
    assert verdicts == {
        ".cline/hooks/TaskStart.py": ("not-judged", None),
        ".clinerules/hooks/PreToolUse": ("effective", "cancel"),
        ".clinerules/hooks/TaskStart": ("passive", None),
    }
    from probes.evidence.model import load_evidence

    ev = load_evidence(Path(report["evidence"]))
    changes = ev["observations"]["workspace_changes"]
    assert "probe-victim.txt" not in changes  # not removed
    assert ".audit/log.jsonl" in changes and "py-ran.txt" in changes  # the Python hook ran, unseen: not judged
    # 3.0.65 starts a hook file with its shebang's shell, the file as its script
    started = [(inv["event"], inv["argv"][0].rsplit("/", 1)[-1], inv["argv"][1:]) for inv in ev["invocations"]]
    assert started == [
        ("TaskStart", "bash", ["$RUN/workspace/.clinerules/hooks/TaskStart"]),
        ("PreToolUse", "sh", ["$RUN/workspace/.clinerules/hooks/PreToolUse"]),
    ]
