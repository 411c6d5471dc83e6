"""The session's shells, watched (`probe check`). Standard library only, copied into the run
beside hooklib.py (the instrumented hook), whose record format and helpers it shares.

Inside the run's jail the system's shells (/bin/sh's dash, bash) are this program, bound
over them (jail.py); the real binaries are bound where shim.json says. The CLI's hook config
holds the user's commands exactly as written, so whatever the CLI shows or sends the model
(a failing hook's command line, its stderr) is what it would be without `probe`. Every CLI
starts a hook and a tool's command as `SHELL [options] -c STRING`:

- STRING is a configured hook's command: this process records the invocation as it starts
  (stdin, argv, cwd, env, times), runs the real shell with the same arguments, stdin,
  environment and working directory, records its stdout, stderr, exit code and signal, and
  passes them through unchanged (the same bytes, the same exit code; it dies of the same
  signal). A signal the CLI sends it (its timeout) is sent on to the real shell.
- anything else: one line {pid, ancestors, command, at} is appended to shells.jsonl and the
  real shell replaces this process (exec): what ran in the session, outside hooks, is read
  off that log (a scripted step's command, found in the string its shell was started with).

A hook that is a file (Cline's hook folders) is started as `SHELL FILE` (Cline 3.x names its
shebang's shell; a shebang run by the kernel comes to the same): a shell whose script is a
configured hook file (shim.json `scripts`, by real path) is recorded as that hook's, as above,
unless it runs under a hook already recorded (the kernel running the file `sh -c 'FILE'` named).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from types import FrameType

    from .contract import HookRecord, ShimConfig, ShimEntry
if TYPE_CHECKING or __package__:
    from .hooklib import new_record, process_start, read_stdin
else:  # run from the launcher the check writes, with this directory on sys.path
    from hooklib import new_record, process_start, read_stdin

OUTPUT_KEPT = 1 << 20  # bytes of the command's stdout and stderr kept in the record (all are passed on)
LOGGED_MAX = 64 * 1024  # characters of a shell's command string kept in shells.jsonl
TAKES_ARGUMENT = ("-o", "+o", "-O", "+O", "--rcfile", "--init-file")

record: HookRecord
record_path = ""
child: subprocess.Popen[bytes] | None = None


def operands(args: list[str]) -> tuple[bool, int]:
    """Whether `sh [options] ...` was given -c, and where its first operand is."""
    with_c, i = False, 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if a in TAKES_ARGUMENT:
            i += 2
            continue
        if a.startswith("--") or not a.startswith(("-", "+")) or a in ("-", "+"):
            if not a.startswith("--"):
                break
            i += 1
            continue
        with_c = with_c or (a.startswith("-") and "c" in a[1:])
        i += 1
    return with_c, i


def command_string(args: list[str]) -> str | None:
    """The STRING of `sh [options] -c STRING [name [args]]`, or None when the shell was not
    given -c (a script, an interactive shell)."""
    with_c, i = operands(args)
    return args[i] if with_c and i < len(args) else None


def script_of(args: list[str]) -> str | None:
    """The real path of the script of `sh [options] SCRIPT [args]` (None: -c, or no script),
    as the shell finds it: relative to its working directory."""
    with_c, i = operands(args)
    if with_c or i >= len(args) or args[i] in ("-", "+"):
        return None
    return os.path.realpath(os.path.join(os.getcwd(), args[i]))


def inside_hook(records: str, pids: list[int]) -> bool:
    """Whether one of these processes is a recorded hook's watcher (records are named
    NS-PID.json): a hook file its `sh -c 'FILE'` started, run by the kernel through its
    shebang, is that hook's, not a second invocation."""
    try:
        names = os.listdir(records)
    except OSError:
        return False
    recorded = {n.rsplit("-", 1)[-1].removesuffix(".json") for n in names if n.endswith(".json")}
    return any(str(p) in recorded for p in pids)


def ancestors() -> list[int]:
    """This process's parent, its parent, ... (read from /proc; stops at the namespace's 1)."""
    out: list[int] = []
    pid = os.getppid()
    while pid > 1 and len(out) < 64:
        out.append(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def log_shell(path: str, command: str) -> None:
    line = {"pid": os.getpid(), "ancestors": ancestors(), "command": command[:LOGGED_MAX], "at": time.time()}
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, (json.dumps(line) + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass  # a full or tampered log: the shell still runs, its step reads as not seen


def save() -> None:
    tmp = record_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(record, f)
    os.replace(tmp, record_path)


def on_signal(signum: int, _frame: FrameType | None) -> None:
    """The CLI ends the hook (its timeout): the real shell gets the same signal, the record
    says so, and this process dies of it as the shell would have."""
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


def pick(entries: list[ShimEntry], payload: object) -> ShimEntry:
    """The configured hook this invocation is, when several share one command: the one whose
    event the payload names."""
    if len(entries) > 1 and isinstance(payload, dict):
        named = payload.get("hook_event_name") or payload.get("hookEventName")
        for e in entries:
            if e["event"] == named:
                return e
    return entries[0]


def run_hook(config: ShimConfig, real: str, argv: list[str], entries: list[ShimEntry], started: float, main_at: float) -> int:
    global record, record_path, child
    import subprocess  # here, not at the top: a shell that runs no hook starts without it

    record_path = os.path.join(config["records"], f"{time.time_ns()}-{os.getpid()}.json")
    record = new_record(entries[0]["key"], entries[0]["event"], started, main_at)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    save()
    raw, eof = read_stdin()
    record["stdin_eof"] = eof
    try:
        record["payload"] = json.loads(raw)
    except ValueError:
        record["stdin_raw"] = raw.decode("utf-8", "replace")
    chosen = pick(entries, record["payload"])
    record["key"], record["event"] = chosen["key"], chosen["event"]
    record["stdin_read_at"] = time.time()
    save()
    try:
        child = subprocess.Popen(
            [argv[0], *argv[1:]], executable=real, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError as e:
        record["error"] = f"could not start {argv[0]}: {e.strerror}"
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
    if code < 0:  # the command died of a signal: so does this process, for the CLI to see
        name = signal.Signals(-code).name
        record["crashed_with"] = name
        record["error"] = f"the command died of {name}"
    else:
        record["exit_code"] = code
    save()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code


def main(config_path: str) -> int:
    main_at = time.time()
    started = min(process_start(), main_at)
    with open(config_path, encoding="utf-8") as f:
        config: ShimConfig = json.load(f)
    argv = [sys.argv[0], *sys.argv[1:]]  # the shell's own argv: the path it was started as, then its arguments
    real = config["real"].get(os.path.realpath(argv[0])) or next(iter(config["real"].values()))
    command = command_string(argv[1:])
    entries = config["hooks"].get(command) if command is not None else None
    if command is None and config.get("scripts"):  # a hook file, run as `sh FILE` (Cline 3.x; a shebang)
        script = script_of(argv[1:])
        entries = config["scripts"].get(script or "") if script else None
        entries = None if entries and inside_hook(config["records"], ancestors()) else entries
    if entries:
        return run_hook(config, real, argv, entries, started, main_at)
    if command is not None:
        log_shell(config["log"], command)
    os.execv(real, argv)
    return 127  # not reached
