#!/usr/bin/env bash
# Audit logger (Auggie): one JSON line per hook call, the payload as received.
mkdir -p "$AUGMENT_PROJECT_DIR/.audit"
{ cat; echo; } >> "$AUGMENT_PROJECT_DIR/.audit/auggie.jsonl"
