"""The instrumented shim around a user's own hook command (`probe check`). Standard library
only, copied into the run beside hook.py, whose record format and helpers it shares.

    python3 shim.py KEY

KEY names an entry in shim.json beside this file: {"records": DIR, "hooks": {KEY: {"event":
NATIVE_EVENT, "command": THE USER'S COMMAND, "shell": "bash"}}}. Per invocation it records
what the hook received (stdin, argv, cwd, env, times), runs the user's command with the same
stdin, environment and working directory, records its stdout, stderr, exit code and signal,
and passes them through unchanged: the same bytes on stdout and stderr, the same exit code,
the same signal (it kills itself with it). A signal the CLI sends the shim (its timeout) is
sent on to the command. The record is written at start, so a shim the CLI kills keeps what
it had.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType

    from .contract import HookRecord, ShimConfig
if TYPE_CHECKING or __package__:
    from .hook import new_record, process_start, read_stdin
else:  # run as a script beside hook.py
    from hook import new_record, process_start, read_stdin

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT_KEPT = 1 << 20  # bytes of the command's stdout and stderr kept in the record (all are passed on)

record: HookRecord
record_path = ""
child: subprocess.Popen[bytes] | None = None


def save() -> None:
    tmp = record_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(record, f)
    os.replace(tmp, record_path)


def on_signal(signum: int, _frame: FrameType | None) -> None:
    """The CLI ends the hook (its timeout): the command gets the same signal, the record says
    so, and the shim dies of it as the command would have."""
    name = signal.Signals(signum).name
    record.setdefault("signals", []).append({"signal": name, "at": time.time()})
    if child is not None and child.poll() is None:
        try:
            os.kill(child.pid, signum)
        except OSError:
            pass
    record["killed_by_signal"] = name
    record["ended_at"] = time.time()
    save()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def text(data: bytes) -> str:
    return data[:OUTPUT_KEPT].decode("utf-8", "replace")


def main() -> int:
    global record, record_path, child
    main_at = time.time()
    started = min(process_start(), main_at)
    key = sys.argv[1] if len(sys.argv) > 1 else ""
    with open(os.path.join(HERE, "shim.json"), encoding="utf-8") as f:
        config: ShimConfig = json.load(f)
    entry = config["hooks"][key]
    record_path = os.path.join(config["records"], f"{time.time_ns()}-{os.getpid()}.json")
    record = new_record(key, entry["event"], started, main_at)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    save()

    raw, eof = read_stdin()
    record["stdin_eof"] = eof
    try:
        record["payload"] = json.loads(raw)
    except ValueError:
        record["stdin_raw"] = raw.decode("utf-8", "replace")
    record["stdin_read_at"] = time.time()
    save()
    try:
        child = subprocess.Popen(
            [entry["shell"], "-c", entry["command"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as e:  # no shell: the CLI would have failed to start the command too
        record["error"] = f"could not start {entry['shell']}: {e.strerror}"
        record["exit_code"] = 127
        record["ended_at"] = time.time()
        save()
        return 127
    record["child_pid"] = child.pid
    save()
    out, err = child.communicate(raw)
    code = child.returncode
    record["output"] = text(out)
    record["stderr"] = text(err)
    record["ended_at"] = time.time()
    if code < 0:  # the command died of a signal: so does the shim, for the CLI to see
        name = signal.Signals(-code).name
        record["crashed_with"] = name
        record["error"] = f"the command died of {name}"
        save()
        sys.stdout.buffer.write(out)
        sys.stderr.buffer.write(err)
        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    record["exit_code"] = code
    save()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
