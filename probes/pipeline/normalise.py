"""Stable names for the per-run values of a session that are not measurements, so a re-run
whose behaviour did not change writes the same bytes but for the measured numbers (times,
offsets, pids) and the run's identity (run_id, started_at).

    $RUN        the run's private directory (collect.scrub, by its exact path)
    $INSTALL    the CLI version's install prefix (collect.scrub)
    $RUN_SLUG   the run directory as a file name, every character but letters and digits
                as "-" (Claude names its project and notes directories so)
    $RUN_NAME   the run directory's own name (probe-run-XXXXXXXX), wherever it is left
    $RUN_ID     the run's id (PROBE_RUN_ID) inside the session; the record keeps it as run_id
    $WORKSPACE_COMMIT  the workspace's one git commit (its date makes it differ per run),
                full or abbreviated
    $PYTHON     the interpreter the hooks run with (the `_` of a hook's environment, the
                hook command a CLI quotes back)
    $PORT       a loopback port (the scripted model's); $PORT_2, ... for other ports
    $UUID_1     UUIDs (session, prompt, request ids), numbered by first appearance
    $CALL_1     tool-call ids the scripted model made up (toolu_..., call_...), and those
                Qwen Code makes up itself (toolu_<13 digits>_<9 characters>), likewise
    $MODEL_ID   the hash Qwen Code gives its model's configuration (probe-model@<8 hex>)
    $MSG_1      message ids the scripted model made up (msg_..., chatcmpl-...), likewise
    $AGENT_1    Claude's subagent ids (a + 16 hex digits), likewise
    $TRACE_1    W3C trace contexts (traceparent 00-<trace>-<span>-<flags>), likewise
    $CCH, $CC_HASH  the two per-request hashes of the billing line Claude Code puts at the
                top of its system prompt (x-anthropic-billing-header: cc_version=2.1.150.1ad;
                ... cch=9dafa;): otherwise every record's system prompt is a blob of its own

"First appearance" is in the order of the JSON text with sorted keys, so the numbering is
the same however the value was built; equal ids get equal names, so a classifier comparing
ids across invocations sees the same equalities.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# A run directory's name (rundirs.PREFIX and 8 random characters), and its slug (as Claude
# encodes a path, "_" as "-"), e.g. -tmp-probe-run-ab-12cd3
RUN_NAME_RE = re.compile(r"probe-run-[a-z0-9_]{8}(?![A-Za-z0-9_])")
RUN_SLUG_RE = re.compile(r"-(?:[A-Za-z0-9]+-)*probe-run-[a-z0-9-]{8}(?![A-Za-z0-9])")
PORT_RE = re.compile(r"(?<![\w.])(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0):(\d{1,5})(?!\d)")
UUID_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}(?![0-9A-Za-z])")
CALL_RE = re.compile(r"(?<![0-9A-Za-z_])(?:toolu_[0-9a-f]{20}|toolu_[0-9]{13}_[0-9a-z]{9}|call_[0-9a-f]{12})(?![0-9A-Za-z])")
MODEL_ID_RE = re.compile(r"(?<=probe-model@)[0-9a-f]{8}(?![0-9A-Za-z])")  # Qwen's QWEN_CODE_MODEL_IDENTITY
AGENT_RE = re.compile(r"(?<![0-9A-Za-z_])a[0-9a-f]{16}(?![0-9A-Za-z])")
TRACE_RE = re.compile(r"(?<![0-9A-Za-z])00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(?![0-9A-Za-z])")
# Where a record shows the workspace's commit without the run knowing it (schema version 1):
# Claude's git status, "Recent commits:\n<hash> probe workspace" (plan.workspace's message).
WORKSPACE_COMMIT_RE = re.compile(r"(?<![0-9a-f])[0-9a-f]{7,40}(?= probe workspace)")
SHORTEST = 7  # no value the patterns here name is shorter ("[::1]:1", a 7-digit commit)
CCH_RE = re.compile(r"(?<=\bcch=)[0-9a-f]{5}(?=;)")
CC_HASH_RE = re.compile(r"(?<=\bcc_version=)(\d+\.\d+\.\d+)\.[0-9a-f]{3}(?=;)")
MSG_RE = re.compile(r"(?<![0-9A-Za-z_])(?:msg_[0-9a-f]{20}|chatcmpl-[0-9a-f]{12})(?![0-9A-Za-z])")


def slug(path: str) -> str:
    """A path as Claude Code names a directory after it."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


@dataclass
class Names:
    """The per-run values of one session and their stable names, numbered as first seen."""

    known: Mapping[str, str]  # an exact value -> its name (paths, the run id)
    commit: re.Pattern[str] = WORKSPACE_COMMIT_RE  # the workspace's commit, any abbreviation
    numbered: dict[str, dict[str, str]] = field(default_factory=dict)  # kind -> value -> name
    shortest: int = field(init=False)  # no text shorter holds a value to name

    def __post_init__(self) -> None:
        self.shortest = min([SHORTEST, *map(len, self.known)])

    def number(self, kind: str, value: str, first: str | None = None) -> str:
        seen = self.numbered.setdefault(kind, {})
        if value not in seen:
            n = len(seen) + 1
            seen[value] = first if (first and n == 1) else f"${kind}_{n}"
        return seen[value]

    def text(self, s: str) -> str:
        if len(s) < self.shortest:  # keys, roles, tool names: many texts
            return s
        for value, name in self.known.items():  # longest first (see normalise)
            if value in s:
                s = s.replace(value, name)
        s = self.commit.sub("$WORKSPACE_COMMIT", s)
        s = RUN_SLUG_RE.sub("$RUN_SLUG", s)
        s = RUN_NAME_RE.sub("$RUN_NAME", s)
        s = PORT_RE.sub(lambda m: f"{m.group(1)}:{self.number('PORT', m.group(2), '$PORT')}", s)
        s = TRACE_RE.sub(self.numbering("TRACE"), s)
        s = UUID_RE.sub(self.numbering("UUID"), s)
        s = AGENT_RE.sub(self.numbering("AGENT"), s)
        s = CALL_RE.sub(self.numbering("CALL"), s)
        s = MODEL_ID_RE.sub("$MODEL_ID", s)
        if "cc_version=" in s:
            s = CC_HASH_RE.sub(r"\1.$CC_HASH", CCH_RE.sub("$CCH", s))
        return MSG_RE.sub(self.numbering("MSG"), s)

    def numbering(self, kind: str) -> Callable[[re.Match[str]], str]:
        return lambda m: self.number(kind, m.group())


def normalise(data: Any, known: Mapping[str, str], workspace_commit: str | None = None) -> Any:
    """`data` (JSON values) with every per-run value written as its stable name. `known` maps
    exact values (a path, the run id) to names; the rest is found by its shape, and the
    workspace's commit (when known) by its first 7 digits. Keys are rewritten too (a path may
    be one). Applying it twice changes nothing more."""
    names = Names({v: known[v] for v in sorted((v for v in known if v), key=len, reverse=True)})
    if workspace_commit:
        names.commit = re.compile(rf"(?<![0-9a-f]){re.escape(workspace_commit[:7])}[0-9a-f]{{0,57}}(?![0-9a-f])")

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return names.text(v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):  # numbered in sorted order, kept in its own order
            done = {k: (names.text(k), walk(v[k])) for k in sorted(v)}
            return dict(done[k] for k in v)
        return v

    return walk(data)


def known_values(run_root: str | None, run_id: str | None, python: str | None) -> dict[str, str]:
    """The exact values a run knows of itself, beyond $RUN and $INSTALL (collect.scrub
    writes those first): its directory's slug and name, its id, the hooks' interpreter."""
    known: dict[str, str] = {}
    if run_root:
        known[slug(run_root)] = "$RUN_SLUG"
        known[run_root.rstrip("/").rsplit("/", 1)[-1]] = "$RUN_NAME"
    if run_id:
        known[run_id] = "$RUN_ID"
    if python:
        known[python] = "$PYTHON"
    return known


# How plan.hook_command starts the hook, as a CLI quotes it back ("Stop hook error from
# command: /path/python3 -S -E -s $RUN/bin/hook.py 0-stop")
HOOK_COMMAND_RE = re.compile(r"(/[^\s\"'\\]*python[0-9.]*) -S -E -s \$RUN/bin/hook\.py")


def hook_python(record: dict[str, Any]) -> str | None:
    """The hooks' interpreter as a record shows it: the `_` of a hook's environment (the
    program its shell ran), when it is a python; else the hook command a CLI quoted."""
    for inv in record.get("invocations") or []:
        env = inv.get("env") if isinstance(inv, dict) else None
        exe = env.get("_") if isinstance(env, dict) else None
        if isinstance(exe, str) and exe.startswith("/") and exe.rsplit("/", 1)[-1].startswith("python"):
            return exe
    m = HOOK_COMMAND_RE.search(json.dumps(record, ensure_ascii=False))
    return m.group(1) if m else None
