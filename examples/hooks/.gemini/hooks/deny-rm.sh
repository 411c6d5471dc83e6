#!/usr/bin/env bash
# Policy (Gemini CLI BeforeTool): deny any shell command that runs rm.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '(^|[^A-Za-z0-9_-])rm[[:space:]]'; then
  echo '{"decision": "deny", "reason": "policy: rm is not allowed here"}'
fi
