"""The instrumented hook's body: standard library only, copied into every run beside hook.py,
which every CLI starts and which imports it (so that its bytecode is read, not compiled).

    python3 -S -E -s hook.py KEY

KEY names a registration in hook.json beside this file: {"records": DIR, "hooks": {KEY:
{"event": NATIVE_EVENT, "behavior": {...}}}}. Each invocation writes one record,
DIR/<start ns>-<pid>.json, rewritten atomically as it learns more: at start (argv, cwd, env,
pid), after stdin, on a signal, and at the end. A hook that is killed keeps what it had.

Behaviour keys (all optional): read_stdin (default true), grandchild (leave a sleeping process
behind: "session" in its own session, "group" in the hook's process group, "stdout" in its own
session holding the hook's stdout open), ignore_sigterm, seconds (sleep), hang (sleep
forever), signal (kill itself), stdout (text, or an object printed as JSON), stdout_pad (that
many spaces after it: a very large output), stderr, exit_code.

It starts as fast as Python can (benchmarks/hook_cost.py: a few ms over the interpreter's own
start): imported, its bytecode cached beside it (spare.copy_runner_files); no `json`,
`signal`, `typing` or `os` import (`re`, `enum`, `stat`: 12 ms together); JSON is read with
the C scanner the json package itself uses and written by `dumps` below.
"""

# No `from __future__ import annotations`: importing __future__ costs about 1 ms; annotations
# naming typing-only names are quoted instead.
import posix as os  # what os wraps: importing os itself costs its path, stat and abc modules (2 ms)
import select
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook starts fast
if TYPE_CHECKING:
    import signal
    from json.encoder import encode_basestring_ascii as quote
else:
    try:  # the C modules `signal` and `json` wrap: the same functions, without `enum` and `re`
        import _signal as signal
        from _json import encode_basestring_ascii as quote
    except ImportError:  # an interpreter without them: the same, slower
        import signal
        from json.encoder import encode_basestring_ascii as quote
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import Any

    from .contract import HookBehavior, HookConfig, HookRecord, Parent

HERE = __file__.rpartition("/")[0] or "."  # the plan names this file by its absolute path
EOF_WAIT_S = 0.5  # after a complete JSON document, how long to wait for end of input

SIGNAL_NAMES = {1: "SIGHUP", 2: "SIGINT", 15: "SIGTERM"}  # the ones the hook handles


class _Context:
    """What json's C scanner reads off a JSONDecoder: the defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name)


def _scanner() -> "Callable[[str, int], tuple[Any, int]]":
    try:
        from _json import make_scanner
    except ImportError:
        from json.decoder import JSONDecoder

        return JSONDecoder().raw_decode
    return make_scanner(_Context())  # type: ignore[arg-type]  # it reads only the attributes above


_scan = _scanner()
WHITESPACE = " \t\n\r"


def loads(text: str) -> "Any":
    """json.loads for one document: ValueError when `text` is not exactly one JSON value."""
    start = len(text) - len(text.lstrip(WHITESPACE))
    try:
        value, end = _scan(text, start)
    except StopIteration as e:
        raise ValueError(f"no JSON value at {e.value}") from None
    if text[end:].strip(WHITESPACE):
        raise ValueError(f"extra data at {end}")
    return value


def dumps(value: object, comma: str = ",", colon: str = ":") -> str:
    """json.dumps(value) for what a record holds (dicts with string keys, lists, strings,
    numbers, booleans, None), compact unless given json.dumps's own separators."""
    if isinstance(value, str):
        return str(quote(value))
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else "null"
    if isinstance(value, dict):
        return "{" + comma.join(f"{quote(str(k))}{colon}{dumps(v, comma, colon)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + comma.join(dumps(v, comma, colon) for v in value) + "]"
    raise TypeError(f"not JSON: {type(value).__name__}")


record: "HookRecord"  # set by main before any handler can run
record_path = ""
ignore_sigterm = False


def save() -> None:
    tmp = record_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps(record))
    os.replace(tmp, record_path)


def read_stdin() -> tuple[bytes, bool]:
    """Read stdin until EOF, or until it holds a complete JSON document and no more arrives
    for EOF_WAIT_S (a CLI that never closes stdin must not hang the probe)."""
    fd = sys.stdin.fileno()
    data = b""
    while True:
        try:
            loads(data.decode("utf-8", "replace"))
            wait = EOF_WAIT_S
        except ValueError:
            wait = 5.0
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return data, False
        chunk = os.read(fd, 65536)
        if not chunk:
            return data, True
        data += chunk


def on_signal(signum: int, _frame: "FrameType | None") -> None:
    name = SIGNAL_NAMES.get(signum, str(signum))
    record.setdefault("signals", []).append({"signal": name, "at": time.time()})
    save()
    if signum == signal.SIGTERM and ignore_sigterm:
        return
    record["killed_by_signal"] = name
    record["ended_at"] = time.time()
    save()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def process_start() -> float:
    """When this process started, as wall-clock time: the kernel's start time (clock ticks
    after boot, in /proc/self/stat) set against CLOCK_BOOTTIME, so the time it took Python to
    start counts (a delay measured from it is never short; at most one tick, 10 ms, long).
    time.time() where /proc cannot tell."""
    try:
        with open("/proc/self/stat", "rb") as f:
            ticks = int(f.read().rsplit(b")", 1)[1].split()[19])  # field 22, starttime
        since_start = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
        return time.time() - since_start
    except (OSError, ValueError, IndexError, AttributeError):
        return time.time()


def leave_grandchild(mode: str) -> int:
    """A sleeper the hook does not wait for (see the module doc for the modes)."""
    import subprocess  # here, not at the top: it doubles the hook's start-up time

    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)"],
        stdin=subprocess.DEVNULL,
        stdout=None if mode == "stdout" else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=mode != "group",
    )
    return child.pid


def new_record(key: str, event: str, started: float, main_at: float) -> "HookRecord":
    """What an invocation received, before anything happens: a killed hook still leaves it."""
    return {
        "key": key,
        "event": event,
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "env": {decoded(k): decoded(v) for k, v in os.environ.items()},  # as os.environ decodes them
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "pgid": os.getpgid(0),
        "started_at": started,
        "main_at": main_at,
        "ended_at": None,
        "stdin_raw": None,
        "stdin_eof": None,
        "payload": None,
        "output": None,
        "stderr": None,
        "exit_code": None,
        "killed_by_signal": None,
        "parent": parent(),
    }


def decoded(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def parent() -> "Parent | None":
    """What started this hook: a shell (which one: its inode), or the CLI itself (a shell
    that exec'd the command in place leaves the CLI as the parent)."""
    exe = f"/proc/{os.getppid()}/exe"
    try:
        st = os.stat(exe)
        return {"exe": os.readlink(exe), "dev": st.st_dev, "ino": st.st_ino}
    except OSError:  # gone already, or not ours to read
        return None


def main() -> int:
    global record, record_path, ignore_sigterm
    main_at = time.time()
    started = min(process_start(), main_at)
    key = sys.argv[1] if len(sys.argv) > 1 else ""
    with open(HERE + "/hook.json", encoding="utf-8") as f:
        config: HookConfig = loads(f.read())
    entry = config["hooks"].get(key)
    behavior: HookBehavior = (entry["behavior"] or {}) if entry else {}
    record_path = config["records"] + f"/{time.time_ns()}-{os.getpid()}.json"
    record = new_record(key, entry["event"] if entry else key, started, main_at)
    ignore_sigterm = bool(behavior.get("ignore_sigterm"))
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    save()

    if behavior.get("read_stdin", True):
        raw, eof = read_stdin()
        text = raw.decode("utf-8", "replace")
        record["stdin_eof"] = eof
        try:
            record["payload"] = loads(text)
        except ValueError:
            record["stdin_raw"] = text
        record["stdin_read_at"] = time.time()
        save()
    if behavior.get("grandchild"):
        record["grandchild_pid"] = leave_grandchild(behavior["grandchild"])
        save()
    if behavior.get("seconds"):
        time.sleep(float(behavior["seconds"]))
    while behavior.get("hang"):
        time.sleep(3600)
    if behavior.get("signal"):
        record["crashed_with"] = behavior["signal"]
        save()
        os.kill(os.getpid(), getattr(signal, behavior["signal"]))

    out = behavior.get("stdout")
    if out is not None and not isinstance(out, str):
        out = dumps(out, ", ", ": ")  # as json.dumps prints it: the bytes the CLI has always read
    pad = int(behavior.get("stdout_pad", 0))
    record["output"] = out
    record["output_padding"] = pad
    record["stderr"] = behavior.get("stderr")
    code = record["exit_code"] = int(behavior.get("exit_code", 0))
    record["ended_at"] = time.time()
    save()
    if out or pad:
        sys.stdout.write((out or "") + " " * pad)
        sys.stdout.flush()
    if record["stderr"]:
        sys.stderr.write(record["stderr"])
        sys.stderr.flush()
    return code
