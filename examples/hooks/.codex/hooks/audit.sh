#!/usr/bin/env bash
# Audit logger (Codex): one JSON line per hook call, the payload as received (hooks run in the session's directory).
mkdir -p .audit
{ cat; echo; } >> .audit/codex.jsonl
