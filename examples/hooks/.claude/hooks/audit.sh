#!/usr/bin/env bash
# Audit logger (Claude Code): one JSON line per hook call, the payload as received.
mkdir -p "$CLAUDE_PROJECT_DIR/.audit"
{ cat; echo; } >> "$CLAUDE_PROJECT_DIR/.audit/claude.jsonl"
