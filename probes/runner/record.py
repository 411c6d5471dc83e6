"""The recorder's hook (`probe recorder`, docs/recorder.md): standard library only, any OS.

Run by the agent for every hook event as `record.py AGENT EVENT`. It appends one JSON line to
log.jsonl beside itself: the event, the stdin payload, argv, cwd, pid, times, the platform, the
environment's NAMES (never a value), and versions: environment variables whose name says VERSION
and whose value is shaped like a version, and the product and chat versions from the
package.json files of the install the hook's environment names (VSCODE_NLS_CONFIG). It prints
nothing and exits 0 whatever happens, so the session goes on as if no hook were there."""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import sys
import threading
import time
from typing import Any

RECORDER = 1  # the log line's format
STDIN_MAX = 1024 * 1024  # more is cut (stdin_truncated)
STDIN_WAIT_S = 5.0  # a stdin never closed is not waited for longer
VERSION_NAME = re.compile(r"VERSION", re.I)
VERSION_VALUE = re.compile(r"\d+(\.\d+){1,3}([-+.][0-9A-Za-z.-]{1,40})?")
HERE = os.path.dirname(os.path.abspath(__file__))


def now() -> str:
    utc = datetime.timezone.utc  # noqa: UP017  # a person's Python may be older than 3.11
    return datetime.datetime.now(utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def read_stdin() -> tuple[bytes, bool]:
    """stdin's bytes (at most STDIN_MAX + 1; what came in time), and whether end of input was
    seen within STDIN_WAIT_S."""
    chunks: list[bytes] = []
    done: list[bool] = []

    def read() -> None:  # os.read, not sys.stdin: a thread left blocked holds no lock shutdown needs
        size = 0
        try:
            while size <= STDIN_MAX:
                chunk = os.read(0, STDIN_MAX + 1 - size)
                if not chunk:
                    done.append(True)  # end of input seen
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(STDIN_WAIT_S)
    return b"".join(list(chunks)), bool(done)


def package_version(path: str) -> str | None:
    """The "version" of a small package.json, or None."""
    try:
        if os.path.getsize(path) > 1024 * 1024:
            return None
        with open(path, encoding="utf-8") as f:
            value = json.load(f).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and VERSION_VALUE.fullmatch(value) else None


def product_versions() -> dict[str, str]:
    """VS Code's and its bundled Copilot Chat's versions, from the install whose messages file
    VSCODE_NLS_CONFIG names (<app>/out/nls.messages.json beside <app>/package.json)."""
    found: dict[str, str] = {}
    try:
        messages = json.loads(os.environ.get("VSCODE_NLS_CONFIG", "")).get("defaultMessagesFile")
    except (ValueError, AttributeError):
        return found
    if not isinstance(messages, str):
        return found
    app = os.path.dirname(os.path.dirname(messages))
    for key, path in (("vs_code", "package.json"), ("copilot_chat", "extensions/copilot/package.json")):
        version = package_version(os.path.join(app, *path.split("/")))
        if version:
            found[key] = version
    return found


def line(started: str, t0: float) -> dict[str, Any]:
    data, eof = read_stdin()
    truncated = len(data) > STDIN_MAX
    data = data[:STDIN_MAX]
    text = data.decode("utf-8", errors="replace")
    try:
        payload = None if truncated else json.loads(text)
        raw = None
    except ValueError:
        payload, raw = None, text
    if truncated:
        raw = text
    cwd = os.getcwd()
    workspace = os.path.dirname(HERE)
    try:
        cwd_relative = os.path.relpath(cwd, workspace).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        cwd_relative = cwd
    return {
        "recorder": RECORDER,
        "agent": sys.argv[1] if len(sys.argv) > 1 else None,
        "event": sys.argv[2] if len(sys.argv) > 2 else None,
        "argv": sys.argv,
        "cwd": cwd,
        "cwd_relative": cwd_relative,
        "workspace": workspace,
        "home": os.path.expanduser("~"),
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "started_at": started,
        "ended_at": now(),
        "duration_s": round(time.monotonic() - t0, 3),
        "platform": {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "python": platform.python_version(),
        },
        "env_names": sorted(os.environ),
        "env_versions": {k: v for k, v in sorted(os.environ.items()) if VERSION_NAME.search(k) and VERSION_VALUE.fullmatch(v)},
        "product": product_versions(),
        "payload": payload,
        "stdin_raw": raw,
        "stdin_eof": eof,
        "stdin_bytes": len(data),
        "stdin_truncated": truncated,
    }


def main() -> None:
    started, t0 = now(), time.monotonic()
    try:
        text = json.dumps(line(started, t0), ensure_ascii=False, sort_keys=True) + "\n"
        fd = os.open(os.path.join(HERE, "log.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, text.encode("utf-8"))  # one write of one line: concurrent hooks do not interleave
        finally:
            os.close(fd)
    except Exception:  # never disturb the session
        pass


if __name__ == "__main__":
    main()
    os._exit(0)  # at once, even with the stdin reader still waiting; nothing is buffered
