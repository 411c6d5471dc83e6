"""`probe check` tells the truth, through the real CLIs: a hook that blocks `curl` is
`effective` for a curl command and `passive` for `ls`; a hook that exits 1 or raises is
`broken`, fail-open or fail-closed as the CLI treats it; a malformed JSON answer is `broken`;
`--strict --expect` checks what the author means; and what the model sees of a failing hook
is what it sees without `probe` (the config holds the user's command as written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CLAUDE, CODEX, COPILOT, COPILOT_OLD

pytestmark = pytest.mark.real

CLAUDE_OLD = "claude@2.1.296"
GEMINI = "gemini@0.61.0"
CURL = "curl -s -o fetched.txt file:///etc/hostname; echo ran > curl-ran.txt"
NO_CURL = '#!/bin/sh\ngrep -q curl && { echo "policy: curl is not allowed" >&2; exit 2; }\nexit 0\n'
EXIT_1 = "#!/bin/sh\ncat >/dev/null\nexit 1\n"
RAISES = "#!/usr/bin/env python3\nimport json, sys\njson.load(sys.stdin)\nraise ValueError('the policy file is missing')\n"
MALFORMED = '#!/bin/sh\ncat >/dev/null\necho \'{"permissionDecision": "deny",\'\n'


def folder(tmp_path: Path, agent: str, scripts: dict[str, str]) -> Path:
    """A repository whose pre-tool hooks (matching the shell tool) run these scripts, in the
    agent's own config file."""
    d = tmp_path / "repo"
    hooks = d / "hooks"
    hooks.mkdir(parents=True)
    for name, text in scripts.items():
        (hooks / name).write_text(text)
        (hooks / name).chmod(0o755)
    entries = [f"hooks/{name}" for name in scripts]
    if agent == "copilot":
        config = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": e, "timeoutSec": 10} for e in entries]}}
        path = d / ".github" / "hooks" / "policy.json"
    elif agent == "gemini":
        group = {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": e, "timeout": 10000} for e in entries]}
        config = {"hooks": {"BeforeTool": [group]}}
        path = d / ".gemini" / "settings.json"
    else:
        project = "$CLAUDE_PROJECT_DIR" if agent == "claude" else "$(git rev-parse --show-toplevel)"
        hooks_ = [{"type": "command", "command": f'"{project}"/{e}', "timeout": 10} for e in entries]
        config = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks_}]}}
        path = d / (".claude/settings.json" if agent == "claude" else ".codex/hooks.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))
    return d


def check(spec: str, repo: Path, results: Path, *args: str) -> tuple[int, dict, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "probes.cli", "check", spec, "--hooks", str(repo), "--json", "--results", str(results), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 4), proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("spec", [CLAUDE, CLAUDE_OLD, COPILOT, COPILOT_OLD, GEMINI, CODEX])
def test_a_curl_blocking_hook_is_effective_for_curl_and_passive_for_ls(spec, real_tools, tmp_path):
    repo = folder(tmp_path, spec.split("@")[0], {"no-curl.sh": NO_CURL})
    code, report, progress = check(
        spec, repo, tmp_path / "out", "--command", CURL, "--expect", "blocked", "--strict", "--progress"
    )
    [hook] = report["hooks"]
    assert (hook["verdict"], code) == ("effective", 0), report
    assert report["expectations"] == [{"command": CURL, "expect": "blocked", "ran": False, "control_ran": True, "met": True}]
    assert "the scenario with the hooks" in progress and "(the control)" in progress
    code, report, _ = check(spec, repo, tmp_path / "out", "--command", "ls", "--expect", "allowed", "--strict")
    [hook] = report["hooks"]
    assert (hook["verdict"], code, report["expectations"][0]["met"]) == ("passive", 0, True), report
    # A hook that does not block: --strict --expect blocked fails
    lax = folder(tmp_path / "lax", spec.split("@")[0], {"log.sh": "#!/bin/sh\ncat >/dev/null\n"})
    code, report, _ = check(spec, lax, tmp_path / "out", "--command", CURL, "--expect", "blocked", "--strict")
    assert code == 4 and report["expectations"][0]["ran"] is True and report["hooks"][0]["verdict"] == "passive"


@pytest.mark.parametrize(
    "spec, treated",
    [
        (CLAUDE, "fail-open"),
        (CLAUDE_OLD, "fail-open"),
        (COPILOT, "fail-closed"),
        (COPILOT_OLD, "fail-closed"),
        (GEMINI, "fail-open"),
        (CODEX, "fail-open"),
    ],
)
def test_a_hook_that_exits_1_or_raises_is_broken(spec, treated, real_tools, tmp_path):
    repo = folder(tmp_path, spec.split("@")[0], {"exit-1.sh": EXIT_1, "raises.py": RAISES, "malformed.sh": MALFORMED})
    code, report, _ = check(spec, repo, tmp_path / "out", "--command", "ls", "--strict")
    verdicts = {Path(h["command"].strip('"')).name: (h["verdict"], h["treated"]) for h in report["hooks"]}
    assert verdicts["exit-1.sh"] == ("broken", treated), report
    assert verdicts["raises.py"] == ("broken", treated), report
    assert verdicts["malformed.sh"][0] == "broken", report
    assert code == 4
    raised = next(h for h in report["hooks"] if h["command"].endswith("raises.py"))
    assert "exit 1, an error" in raised["reason"] and "ValueError: the policy file is missing" in raised["reason"]


@pytest.mark.parametrize("spec", [CLAUDE, COPILOT])
def test_what_the_model_sees_of_a_failing_hook_is_what_it_sees_without_probe(spec, real_tools, tmp_path):
    """The same blocking hook, watched and not watched: the tool results the model got are
    the same text, which names the user's command (Claude), never the harness."""
    from probes import check as check_module
    from probes.pipeline.run import resolve

    repo = folder(
        tmp_path, spec.split("@")[0], {"fails.sh": "#!/bin/sh\ncat >/dev/null\necho 'policy engine down' >&2\nexit 2\n"}
    )
    agent, configs, hooks = check_module.prepare(spec.split("@")[0], repo)
    _, requested, version = resolve(spec)
    scenario = check_module.commands_scenario(["ls"])
    keep = {h.key for h in hooks}
    watched = check_module.run_session(agent, requested, version, scenario, repo, configs, hooks, keep)
    plain = check_module.run_session(agent, requested, version, scenario, repo, configs, hooks, keep, watch=False)
    assert watched.records and not plain.records  # the one was watched, the other not
    assert watched.tool_results == plain.tool_results, (watched.tool_results, plain.tool_results)
    seen = json.dumps(watched.model_texts)
    assert "shim" not in seen and "watched-shell" not in seen and "/bin/real-" not in seen
    if spec == CLAUDE:
        assert "hooks/fails.sh" in seen and "policy engine down" in seen
