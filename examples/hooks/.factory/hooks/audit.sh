#!/usr/bin/env bash
# Audit logger (droid): one JSON line per hook call, the payload as received.
mkdir -p "$FACTORY_PROJECT_DIR/.audit"
{ cat; echo; } >> "$FACTORY_PROJECT_DIR/.audit/droid.jsonl"
