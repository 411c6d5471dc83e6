"""Canonical events, and the PascalCase names Claude Code uses (Copilot accepts them as
aliases and then sends snake_case payloads)."""

CANONICAL_EVENTS = (
    "pre_tool",
    "post_tool",
    "post_tool_failure",
    "session_start",
    "session_end",
    "prompt_submit",
    "stop",
    "subagent_start",
    "subagent_stop",
    "pre_compact",
    "permission_request",
    "notification",
    "error",
    "prompt_transformed",
    "before_model",  # Gemini CLI: BeforeModel, AfterModel, BeforeToolSelection
    "after_model",
    "tool_selection",
)

PASCAL_EVENTS = {
    "pre_tool": "PreToolUse",
    "post_tool": "PostToolUse",
    "post_tool_failure": "PostToolUseFailure",
    "session_start": "SessionStart",
    "session_end": "SessionEnd",
    "prompt_submit": "UserPromptSubmit",
    "stop": "Stop",
    "subagent_start": "SubagentStart",
    "subagent_stop": "SubagentStop",
    "pre_compact": "PreCompact",
    "permission_request": "PermissionRequest",
    "notification": "Notification",
}
