"""`probe check`: a repository's own hooks. Unit tests of reading the configs, the missing
script and bad-input lines, the verdict parts and the shim (run as the CLI runs it); then the
real CLIs with small folders (a deny policy, an audit logger, a malformed JSON answer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import CLAUDE, CODEX, COPILOT, probe_cmd, write

GEMINI = "gemini@0.61.0"


DENY_COPILOT = '#!/usr/bin/env bash\nif grep -q "rm "; then echo \'{"permissionDecision": "deny"}\'; fi\n'


AUDIT = "#!/usr/bin/env bash\nmkdir -p .audit && { cat; echo; } >> .audit/log.jsonl\n"


MALFORMED = '#!/usr/bin/env bash\ncat >/dev/null\necho \'{"hookSpecificOutput": {"permissionDecision": "deny",\'\n'


def checked(tmp_path: Path, spec: str, files: dict, *extra: str) -> tuple[int, dict]:
    folder = write(tmp_path / "repo", files)
    proc = probe_cmd("check", spec, "--hooks", str(folder), "--json", *extra, results=tmp_path / "out", timeout=240)
    assert proc.returncode in (0, 4), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.real
def test_copilot_deny_policy_is_effective_and_the_logger_is_recorded(real_tools, tmp_path):
    hooks = [{"type": "command", "bash": f".github/hooks/{n}.sh", "timeoutSec": 10} for n in ("audit", "deny")]
    files = {
        ".github/hooks/hooks.json": {"version": 1, "hooks": {"preToolUse": hooks}},
        ".github/hooks/audit.sh": AUDIT,
        ".github/hooks/deny.sh": DENY_COPILOT,
    }
    code, report = checked(tmp_path, COPILOT, files, "--scenario", "shell-destructive", "--strict")
    assert code == 0 and report["version"] == COPILOT.split("@")[1], report
    assert report["steps"] == [
        {"kind": "shell", "tool": "bash", "ran": False, "control_ran": True, "command": "rm probe-victim.txt"}
    ]
    audit, deny = report["hooks"]
    assert (audit["verdict"], deny["verdict"], deny["decision"]) == ("passive", "effective", "deny")
    from probes.evidence.model import load_evidence

    ev = load_evidence(Path(report["evidence"]))
    assert ev["surface"] == "user-hooks" and ev["invocation_count"] == 2
    assert "rm probe-victim.txt" in ev["observations"]["workspace_changes"][".audit/log.jsonl"]  # the logger's own record


DENY_GEMINI = '#!/usr/bin/env bash\nif grep -q "rm "; then echo \'{"decision": "deny", "reason": "no rm"}\'; fi\n'


DENY_CODEX = (
    '#!/usr/bin/env bash\nif grep -q "rm "; then echo \'{"hookSpecificOutput": '
    '{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}\'; fi\n'
)


QWEN, DROID, AUGGIE = "qwen@0.24.4", "droid@0.225.2", "auggie@0.36.0"


def claude_shaped(folder: str, var: str, matcher: str, *scripts: str, timeout: int = 10) -> dict:
    """A Claude-shaped settings file (Qwen Code, droid, Auggie) and its scripts: one PreToolUse
    group running each script as "$VAR"/FOLDER/NAME.sh."""
    hooks = [{"type": "command", "command": f'"${var}"/{folder}/{s}.sh', "timeout": timeout} for s in scripts]
    files: dict = {f"{folder}/settings.json": {"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": hooks}]}}}
    files |= {f"{folder}/{s}.sh": {"deny": DENY_CODEX, "audit": AUDIT}[s] for s in scripts}
    return files


@pytest.mark.real
@pytest.mark.parametrize(
    "spec, files, tool",
    [
        (
            GEMINI,
            {
                ".gemini/settings.json": {
                    "hooks": {
                        "BeforeTool": [
                            {
                                "matcher": "run_shell_command",
                                "hooks": [
                                    {"type": "command", "command": '"$GEMINI_PROJECT_DIR"/.gemini/deny.sh', "timeout": 10000}
                                ],
                            }
                        ]
                    }
                },
                ".gemini/deny.sh": DENY_GEMINI,
            },
            "run_shell_command",
        ),
        (
            CODEX,
            {
                ".codex/hooks.json": {
                    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ".codex/deny.sh"}]}]}
                },
                ".codex/deny.sh": DENY_CODEX,
            },
            "exec_command",
        ),
        (QWEN, claude_shaped(".qwen", "QWEN_PROJECT_DIR", "run_shell_command", "deny", timeout=10000), "run_shell_command"),
        (DROID, claude_shaped(".factory", "FACTORY_PROJECT_DIR", "Execute", "deny"), "Execute"),
    ],
    ids=["gemini", "codex", "qwen", "droid"],
)
def test_deny_policy_is_effective_and_the_file_survives(real_tools, tmp_path, spec, files, tool):
    code, report = checked(tmp_path, spec, files, "--scenario", "shell-destructive", "--strict")
    assert code == 0 and report["version"] == spec.split("@")[1], report
    assert report["steps"] == [
        {"kind": "shell", "tool": tool, "ran": False, "control_ran": True, "command": "rm probe-victim.txt"}
    ]
    [deny] = report["hooks"]
    assert (deny["verdict"], deny["decision"], deny["expected"]) == ("effective", "deny", True), deny


@pytest.mark.real
def test_claude_malformed_json_answer_is_reported_and_fails_strict(real_tools, tmp_path):
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": '"$CLAUDE_PROJECT_DIR"/.claude/bad.sh'}]}
    files = {".claude/settings.json": {"hooks": {"PreToolUse": [group]}}, ".claude/bad.sh": MALFORMED}
    code, report = checked(tmp_path, CLAUDE, files, "--strict")
    [bad] = report["hooks"]
    assert bad["decision"] is None and bad["fired"] == 1  # no answer: output that is not the JSON it looks like
    assert (bad["verdict"], bad["treated"]) == ("broken", "fail-open"), bad
    assert bad["reason"].startswith("stdout is not valid JSON")
    assert report["steps"][0]["ran"] is True and code == 4


@pytest.mark.real
def test_claude_hook_past_its_timeout_is_broken_and_nothing_outlives_the_run(real_tools, tmp_path):
    """The CLI's timeout reaches the user's command through the shim (SIGTERM sent on)."""
    files = {
        ".claude/settings.json": {
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 30", "timeout": 2}]}]}
        }
    }
    _, report = checked(tmp_path, CLAUDE, files)
    [hung] = report["hooks"]
    assert (hung["verdict"], hung["treated"]) == ("broken", "fail-open"), hung
    assert hung["reason"].startswith("timed out: killed by the CLI (SIGTERM)")
    from probes.evidence.model import load_evidence

    ev = load_evidence(Path(report["evidence"]))
    assert ev["cleanup"] == {"alive_at_cli_exit": 0, "killed_by_harness": 0} and ev["network"] == "isolated"


@pytest.mark.real
def test_auggie_reads_no_json_deny_beside_a_hook_that_fails(real_tools, tmp_path):
    """Auggie takes the first error exit of a call's hooks as the call's: a JSON deny beside a
    hook that is not executable (exit 126) is not read and the tool runs; alone it blocks."""
    files = claude_shaped(".augment", "AUGMENT_PROJECT_DIR", "launch-process", "deny", timeout=10000)
    group = files[".augment/settings.json"]["hooks"]["PreToolUse"][0]
    group["hooks"].append({"type": "command", "command": '"$AUGMENT_PROJECT_DIR"/.augment/broken', "timeout": 10000})
    files[".augment/broken"] = "#!/usr/bin/env bash\necho '{}'\n"  # no .sh: written 644, not executable
    code, report = checked(tmp_path, AUGGIE, files, "--scenario", "shell-destructive", "--strict")
    assert report["version"] == "0.36.0" and code == 4, report
    assert report["steps"][0]["ran"] is True and report["steps"][0]["control_ran"] is True  # rm ran
    deny, broken = report["hooks"]
    assert (broken["verdict"], broken["exit_code"], broken["treated"]) == ("broken", 126, "fail-open"), broken
    assert deny["verdict"] == "effective" and deny["reason"].startswith("ignored beside .augment/broken"), deny
