"""What a stored record leaves out because it says nothing: in each invocation and model
request, a key whose value is its empty default below (most hooks exit on their own, are never
signalled and write nothing to stderr; most requests carry no sentinel); and in each model
request after the first, what the request before it said already (AS_BEFORE: the method, path,
model, user agent and tools of a session are the same request after request, and each turn's
messages begin with the last turn's); and in each invocation after the first, each key (and
each key of its payload) whose value the invocation before it had (a hook's argv, cwd, env,
parent and most of its payload repeat). `store.compact` leaves them out, `store.resolve` puts them
back, so a record reads the same either way. A value only counts as the default when it is that
value and of that type (0 is not None, nor False)."""

from __future__ import annotations

import copy
from typing import Any

IMPLIED: dict[str, dict[str, Any]] = {
    "invocations": {
        "stdin_raw": None,
        "stdin_eof": None,
        "exit_code": None,
        "killed_by": None,
        "killed_by_signal": None,
        "signals_received": [],
        "first_signal_offset_s": None,
        "output": None,
        "stderr": None,
        "grandchild": None,
        "surface": "command",
        "extension_result": None,
        "error": None,
    },
    "model_requests": {"sentinels": {}, "reply": None},
}


# A model request's "as_before": N: its first N messages are the request before it's, and
# each key of REPEATED it lacks is that request's (left out only when both had all of them).
AS_BEFORE = "as_before"
REPEATED = ("method", "path", "model", "user_agent", "tools")


# An invocation's "as_before": [name, ...]: each key it lacks that the invocation before it
# has, equal, and "payload.KEY" for each such key of its payload (a key with a dot stays).
PAYLOAD = "payload"


def is_default(value: Any, default: Any) -> bool:
    return type(value) is type(default) and value == default


def leave_out(record: dict[str, Any]) -> None:
    """Remove, in place, each IMPLIED key that holds its default, and what each model request
    and invocation repeats of the one before it (AS_BEFORE)."""
    for key, defaults in IMPLIED.items():
        for item in record.get(key) or []:
            if isinstance(item, dict):
                for name, default in defaults.items():
                    if name in item and is_default(item[name], default):
                        del item[name]
    requests = record.get("model_requests")
    if isinstance(requests, list):
        record["model_requests"] = said_before(requests)
    invocations = record.get("invocations")
    if isinstance(invocations, list):
        record["invocations"] = ran_before(invocations)


def per_run(key: str, value: Any) -> bool:
    """A value that only equals the one before by chance (a timing, a pid, a time, any number
    of a payload's): never left out, so two runs store alike but for their numbers."""
    return key.endswith(("_s", "_ms", "_at")) or key == "pid" or (type(value) in (int, float) and key != "exit_code")


def ran_before(invocations: list[Any]) -> list[Any]:
    """The invocations, each after the first without the keys (and payload keys) whose values
    the one before it had."""
    out: list[Any] = []
    previous: dict[str, Any] | None = None
    for item in invocations:
        if not isinstance(item, dict) or AS_BEFORE in item:
            out.append(item)
            previous = None
            continue
        lean = dict(item)
        same: list[str] = []
        if previous is not None:
            same = [k for k, v in item.items() if k in previous and previous[k] == v and not per_run(k, v)]
            for k in same:
                del lean[k]
            mine, theirs = item.get(PAYLOAD), previous.get(PAYLOAD)
            if PAYLOAD in lean and isinstance(mine, dict) and isinstance(theirs, dict) and AS_BEFORE not in mine:
                keys = [k for k, v in mine.items() if "." not in k and k in theirs and theirs[k] == v and not per_run(k, v)]
                lean[PAYLOAD] = {k: v for k, v in mine.items() if k not in keys}
                same += [f"{PAYLOAD}.{k}" for k in keys]
        if same:
            lean[AS_BEFORE] = same
        out.append(lean)
        previous = item
    return out


def said_before(requests: list[Any]) -> list[Any]:
    """The requests, each after the first without what the one before it said already."""
    out: list[Any] = []
    previous: dict[str, Any] | None = None
    for item in requests:
        if not isinstance(item, dict):
            out.append(item)
            previous = None
            continue
        lean = dict(item)
        if previous is not None and all(k in item and k in previous for k in REPEATED):
            same = [k for k in REPEATED if item[k] == previous[k]]
            n = shared_prefix(item.get("messages"), previous.get("messages"))
            if same or n:
                for k in same:
                    del lean[k]
                if n:
                    lean["messages"] = item["messages"][n:]
                lean[AS_BEFORE] = n
        out.append(lean)
        previous = item
    return out


def shared_prefix(mine: Any, theirs: Any) -> int:
    if not (isinstance(mine, list) and isinstance(theirs, list)):
        return 0
    n = 0
    while n < min(len(mine), len(theirs)) and mine[n] == theirs[n]:
        n += 1
    return n


def put_back(record: dict[str, Any]) -> None:
    """Give, in place, each item of an IMPLIED list the keys it leaves out, as their defaults,
    and each model request and invocation what it took from the one before it (AS_BEFORE)."""
    requests = record.get("model_requests")
    previous: dict[str, Any] | None = None
    for item in requests if isinstance(requests, list) else []:
        if isinstance(item, dict) and AS_BEFORE in item and previous is not None:
            n = item.pop(AS_BEFORE)
            for k in REPEATED:
                if k not in item and k in previous:
                    item[k] = copy.deepcopy(previous[k])
            if isinstance(n, int) and n > 0 and isinstance(previous.get("messages"), list):
                item["messages"] = copy.deepcopy(previous["messages"][:n]) + list(item.get("messages") or [])
        previous = item if isinstance(item, dict) else None
    invocations = record.get("invocations")
    previous = None
    for item in invocations if isinstance(invocations, list) else []:
        if isinstance(item, dict) and isinstance(item.get(AS_BEFORE), list) and previous is not None:
            for name in item.pop(AS_BEFORE):
                key, dot, sub = str(name).partition(".")
                if not dot and key in previous and key not in item:
                    item[key] = copy.deepcopy(previous[key])
                elif dot and key == PAYLOAD and isinstance(item.get(key), dict) and isinstance(previous.get(key), dict):
                    if sub in previous[key] and sub not in item[key]:
                        item[key][sub] = copy.deepcopy(previous[key][sub])
        previous = item if isinstance(item, dict) else None
    for key, defaults in IMPLIED.items():
        items = record.get(key)
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                for name, default in defaults.items():
                    if name not in item:
                        item[name] = [] if default == [] else {} if default == {} else default
