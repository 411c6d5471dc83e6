#!/usr/bin/env bash
# Audit logger (Qwen Code): one JSON line per hook call, the payload as received.
mkdir -p "$QWEN_PROJECT_DIR/.audit"
{ cat; echo; } >> "$QWEN_PROJECT_DIR/.audit/qwen.jsonl"
