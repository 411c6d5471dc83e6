#!/usr/bin/env bash
# Policy (Auggie PreToolUse): deny any shell command that runs rm.
payload=$(cat)
if printf '%s' "$payload" | grep -Eq '(^|[^A-Za-z0-9_-])rm[[:space:]]'; then
  echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "policy: rm is not allowed here"}}'
fi
