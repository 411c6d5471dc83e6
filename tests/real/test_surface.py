"""`probe surface` on the installed packages of the pinned versions: the readers find what each
agent declares, at offsets that point at the names. The read is cached beside the install, so
after the first run each test takes about a second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.agents import AGENTS
from probes.surface.model import Surface
from probes.surface.read import surface
from probes.surface.scan import mapped
from probes.versions.install import install
from tests.helpers import CLAUDE, CODEX, COPILOT, RESULTS, probe

GEMINI = "gemini@0.61.0"  # in the CLI cache (tests/real/test_gemini.py probes it)
# the newer agents' pinned versions, which their own tests (tests/real/test_AGENT.py) install
QWEN, PI, DROID, AUGGIE = "qwen@0.24.4", "pi@0.73.1", "droid@0.225.2", "auggie@0.36.0"
OPENCODE, KILO, CLINE = "opencode@1.18.33", "kilo@7.7.7", "cline@3.0.65"


def read(spec: str) -> tuple[Surface, Path]:
    name, version = spec.split("@")
    agent = AGENTS[name]
    prefix = install(agent, version)
    return surface(agent, version, prefix), prefix


def names(s: Surface, kind: str) -> set[str]:
    return {i.name for i in s.of(kind)}


def points_at_names(s: Surface, prefix: Path, kinds: tuple[str, ...] = ("event", "handler_type")) -> None:
    """Each item of `kinds` read from a file has its name at its offset there."""
    items = [i for i in s.items if i.kind in kinds and i.file]
    for rel in {i.file for i in items}:
        assert rel is not None
        with mapped(prefix, rel) as blob:
            for i in (i for i in items if i.file == rel):
                assert i.offset is not None
                assert bytes(blob.data[i.offset : i.offset + len(i.name)]).decode() == i.name, i


def test_claude_declares_its_events_and_handler_types():
    s, prefix = read(CLAUDE)
    assert {"PreToolUse", "PostToolUse", "Stop", "SessionStart", "UserPromptSubmit"} <= names(s, "event")
    assert names(s, "handler_type") >= {"command", "prompt", "agent", "http", "mcp_tool"}
    assert {"command.async", "command.asyncRewake", "http.allowedEnvVars", "mcp_tool.server"} <= names(s, "handler_field")
    assert "PreToolUse.permissionDecision" in names(s, "decision_field")
    assert "CLAUDE_PROJECT_DIR" in names(s, "env")
    assert {"--print", "--plugin-dir", "--mcp-config"} <= names(s, "flag")
    points_at_names(s, prefix)


def test_copilot_declares_its_events():
    s, prefix = read(COPILOT)
    assert {"preToolUse", "postToolUse", "sessionStart", "agentStop", "userPromptSubmitted"} <= names(s, "event")
    assert {"command", "prompt"} <= names(s, "handler_type")
    assert {"--allow-all-tools", "--plugin-dir"} <= names(s, "flag")
    points_at_names(s, prefix, ("event",))


def test_gemini_declares_its_events():
    s, prefix = read(GEMINI)
    assert {"BeforeTool", "AfterTool", "SessionStart", "BeforeModel", "AfterModel", "BeforeToolSelection"} <= names(s, "event")
    assert "command" in names(s, "handler_type")
    assert {"command.command", "command.timeout"} <= names(s, "handler_field")
    assert {"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"} <= names(s, "env")
    points_at_names(s, prefix)


def test_codex_declares_its_events_in_embedded_schemas():
    s, prefix = read(CODEX)
    assert {"PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop", "PermissionRequest"} <= names(s, "event")
    assert names(s, "handler_type") == {"command"}
    assert {"continue", "PreToolUse.permissionDecision"} <= names(s, "decision_field")
    assert "exec --dangerously-bypass-hook-trust" in names(s, "flag")
    points_at_names(s, prefix)


@pytest.mark.parametrize("spec", [CLAUDE, CODEX])
def test_each_flag_names_its_help_line(spec):
    s, _ = read(spec)
    for i in s.of("flag"):
        assert i.help and i.line and i.name.split()[-1] in i.line


def test_bisect_finds_the_first_release_that_declares_an_event(tmp_path):
    """Claude Code 2.1.251 declares PreModelSwitch, 2.1.250 does not (docs/surface.md): two
    installs (cached after the first run), no session."""
    argv = ["--surface", "event:PreModelSwitch", "--from", "2.1.250", "--to", "2.1.251", "--results", str(tmp_path)]
    proc = probe("bisect", "claude", *argv, "--json")
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)
    assert r["status"] == "boundary" and r["exact"] and r["probed"] == ["2.1.250", "2.1.251"]
    assert (r["before"]["value"], r["after"]["value"]) == ("absent", "declared")
    assert r["after"]["where"].startswith("node_modules/@anthropic-ai/claude-code-linux-x64/claude@")


def test_coverage_by_kind_of_the_pinned_claude_and_its_saved_surface(tmp_path):
    """The summary says each kind against the committed evidence; --save writes what probe
    table reads (here into a temporary results directory)."""
    proc = probe("surface", CLAUDE, "--coverage", "--json", "--results", str(RESULTS))
    assert proc.returncode == 0, proc.stderr
    c = json.loads(proc.stdout)
    assert " events declared; payload " in c["summary"] and c["by_kind"]["counts"]["liveness"]["evidence"] >= 1
    assert {"PreToolUse", "Stop"} <= {e["name"] for e in c["by_kind"]["events"] if e["kinds"]["liveness"]["evidence"]}
    assert probe("surface", CLAUDE, "--save", "--results", str(tmp_path)).returncode == 0
    saved = Surface.model_validate_json((tmp_path / "claude" / f"surface-{CLAUDE.split('@')[1]}.json").read_text())
    assert {"PreToolUse", "Stop"} <= names(saved, "event") and not saved.of("flag")


def test_qwen_and_pi_declare_their_events():
    s, prefix = read(QWEN)
    assert {"PreToolUse", "PostToolUseFailure", "TodoCreated", "InstructionsLoaded", "StopFailure"} <= names(s, "event")
    assert {"command", "http", "prompt", "function"} <= names(s, "handler_type")
    assert {"command.command", "command.timeout", "http.url", "prompt.prompt"} <= names(s, "handler_field")
    assert {"continue", "decision", "hookSpecificOutput"} <= names(s, "decision_field")
    assert "QWEN_PROJECT_DIR" in names(s, "env")
    points_at_names(s, prefix)
    s, prefix = read(PI)
    assert {"tool_call", "tool_result", "session_start", "session_shutdown", "input", "agent_end"} <= names(s, "event")
    assert {"tool_call.block", "tool_call.reason"} <= names(s, "decision_field")
    assert not s.of("handler_type")
    points_at_names(s, prefix, ("event",))


def test_droid_and_auggie_declare_claude_shaped_hooks():
    s, prefix = read(DROID)
    assert {"PreToolUse", "PostToolUse", "Stop", "SubagentStop", "SessionEnd"} <= names(s, "event")
    assert names(s, "handler_type") == {"command"}
    assert {"command.command", "command.timeout"} <= names(s, "handler_field")
    assert {"continue", "hookSpecificOutput.permissionDecision", "hookSpecificOutput.updatedInput"} <= names(s, "decision_field")
    assert "FACTORY_PROJECT_DIR" in names(s, "env")
    points_at_names(s, prefix)
    s, prefix = read(AUGGIE)
    assert {"PreToolUse", "PromptSubmit", "beforeShellExecution"} <= names(s, "event")
    assert "UserPromptSubmit" not in names(s, "event")  # its prompt event is PromptSubmit
    assert {"PreToolUse.permissionDecision", "Stop.decision"} <= names(s, "decision_field")
    assert "AUGMENT_PROJECT_DIR" in names(s, "env")
    points_at_names(s, prefix)


def test_opencode_and_kilo_declare_their_plugin_hooks():
    for spec in (OPENCODE, KILO):
        s, prefix = read(spec)
        assert {"tool.execute.before", "tool.execute.after", "chat.message", "event", "session.idle"} <= names(s, "event")
        assert "permission.ask" not in names(s, "event")  # never triggered (FINDINGS)
        assert "tool.execute.before.args" in names(s, "decision_field")
        points_at_names(s, prefix, ("event",))


def test_cline_declares_its_hook_files():
    s, prefix = read(CLINE)
    assert {"TaskStart", "PreToolUse", "PostToolUse", "UserPromptSubmit", "TaskError", "SessionShutdown"} <= names(s, "event")
    assert {"cancel", "contextModification", "overrideInput"} <= names(s, "decision_field")
    points_at_names(s, prefix, ("event", "decision_field"))
