#!/usr/bin/env bash
# Audit logger (Gemini CLI): one JSON line per hook call, the payload as received.
mkdir -p "$GEMINI_PROJECT_DIR/.audit"
{ cat; echo; } >> "$GEMINI_PROJECT_DIR/.audit/gemini.jsonl"
