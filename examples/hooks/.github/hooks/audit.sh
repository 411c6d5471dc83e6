#!/usr/bin/env bash
# Audit logger (Copilot CLI): one JSON line per hook call, the payload as received.
mkdir -p .audit
{ cat; echo; } >> .audit/copilot.jsonl
