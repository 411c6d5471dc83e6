"""A tool call's arguments, filled from a script step by what the tool's input schema asks
for (every agent's names for a command, a path, a prompt...). Standard library only (the
runner's side)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .contract import ScriptStep

Schema = dict[str, Any]  # a tool's input schema


def tool_arguments(step: ScriptStep, schema: Schema) -> dict[str, Any]:
    """Fill the arguments a tool's schema asks for from a script step."""
    props = (schema or {}).get("properties") or {}
    path = step.get("path", "probe-file.txt")
    values: dict[str, Any] = {
        "command": step.get("command", ""),
        "cmd": step.get("command", ""),  # Codex's exec_command
        "description": "probe step",
        "explanation": "probe step",  # VS Code's run_in_terminal also requires `goal`
        "goal": "probe step",
        "instruction": "probe step",  # Gemini CLI's replace
        "path": path,
        "file_path": path,
        "filePath": path,  # VS Code's file tools (camelCase)
        "file_text": step.get("content", "probe\n"),
        "content": step.get("content", "probe\n"),
        "file_content": step.get("content", "probe\n"),  # Auggie's save-file
        "old_str": step.get("old", "probe"),
        "old_string": step.get("old", "probe"),
        "new_str": step.get("new", "probed"),
        "new_string": step.get("new", "probed"),
        "oldString": step.get("old", "probe"),
        "newString": step.get("new", "probed"),
        "oldText": step.get("old", "probe"),  # pi's edit before 0.63.2 (then `edits`, below)
        "newText": step.get("new", "probed"),
        "startLine": 1,
        "endLine": 50,
        "prompt": step.get("prompt", "Reply with the word done."),
        "message": step.get("prompt", "Reply with the word done."),  # Codex's spawn_agent
        "subagent_type": "general-purpose",
        "agent_type": "general-purpose",
        "name": "probe-subagent",
        # droid's Execute refuses a call without both (0.225.2: "missing required parameters"),
        # though its schema requires only the command; low: a step writes a file in the workspace
        "riskLevelReason": "probe step",
        "riskLevel": "low",
        "requires_approval": False,  # Cline 2.x's execute_command
    }
    args = {k: v for k, v in values.items() if k in props}
    if "commands" in props:  # Cline 3.x's run_commands: a list of commands, nothing else
        args["commands"] = [step.get("command", "")]
    elif step.get("tool") == "shell" and "cmd" not in props:
        args["command"] = step.get("command", "")
        if "mode" in props:
            args["mode"] = "sync"
        if "initial_wait" in props:
            args["initial_wait"] = 60
    if "files" in props:  # Cline 3.x's read_files: a list of {path}
        args["files"] = [{"path": path}]
    if "new_text" in props:  # Cline 3.x's editor: creates a file, or replaces old_text once
        edit = step.get("tool") == "edit_file"
        args["new_text"] = step.get("new", "probed") if edit else step.get("content", "probe\n")
        if edit:
            args["old_text"] = step.get("old", "probe")
    if "max_wait_seconds" in props:  # Auggie's launch-process requires cwd; wait, or it runs in the background
        args |= {"cwd": ".", "wait": True, "max_wait_seconds": 60}
    if "str_replace_entries" in props:  # Auggie's str-replace-editor: a command and a list of {old_str, new_str}
        args["command"] = "str_replace"
        args["str_replace_entries"] = [{"old_str": step.get("old", "probe"), "new_str": step.get("new", "probed")}]
    if "edits" in props:  # pi's edit (0.73.1): a list of {oldText, newText}
        args["edits"] = [{"oldText": step.get("old", "probe"), "newText": step.get("new", "probed")}]
    if step.get("escalate") and "sandbox_permissions" in props:  # Codex's exec_command: asks for approval
        args |= {"sandbox_permissions": "require_escalated", "justification": "probe step"}
    given = step.get("input", {})  # as written; null leaves a filled argument out
    return {k: v for k, v in (args | given).items() if v is not None}
