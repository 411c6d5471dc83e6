"""The runner: one probe session where the CLI runs (on the host, in a private namespace, or
in a container). Standard library only.

    python3 runner.py PLAN.json

It starts the scripted model on loopback, starts the CLI in its own process group with the
plan's argv and environment, watches the hook records while the session runs (to time each
hook process's death), cuts the session at its deadline (cutoff.py), kills every process
of the run that is still alive, and writes RESULT.json. It knows nothing of recipes or agents.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING or __package__:
    from . import jail, untrusted
    from .contract import Failure, Jailed, JailSpec, Plan, Result, TtyRecord
    from .cutoff import Cutoff
    from .model import ScriptedModel
else:  # run as a script (python -S runner.py), with its files beside it
    import jail
    import untrusted
    from contract import Failure, Jailed, JailSpec, Plan, Result, TtyRecord
    from cutoff import Cutoff
    from model import ScriptedModel

POLL_S = 0.02
RECORD_MAX = 64 * 1024 * 1024  # a hook record as the watcher reads it (only its pids are kept)
SETTLE_S = 5.0  # how long the runner waits, after its final kill, to see each hook process gone


def loopback_up() -> bool:
    """Bring `lo` up (a new network namespace starts with it down). True if it is up."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, ifreq))[1]
        if not flags & IFF_UP:
            fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))
    return True


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting to be reaped counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def dying(pid: int) -> bool:
    """Killed but not gone yet: already exiting (PF_EXITING in /proc/PID/stat's flags) or with
    a SIGKILL pending. A CLI that SIGKILLs a hook and exits at once can be seen to end a
    moment before its hook does; that hook was killed by the CLI, not left alive."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            flags = int(f.read().rsplit(b")", 1)[1].split()[6])  # field 9
        if flags & 0x4:  # PF_EXITING
            return True
        with open(f"/proc/{pid}/status", "rb") as f:
            pending = [int(line.split()[1], 16) for line in f if line.startswith((b"SigPnd:", b"ShdPnd:"))]
    except (OSError, ValueError, IndexError):
        return False
    return any(mask & (1 << (signal.SIGKILL - 1)) for mask in pending)


def run_processes(run_id: str) -> list[int]:
    """Processes whose environment carries this run's id: the CLI, its hooks, their children,
    even those that left the process group or session."""
    marker = f"PROBE_RUN_ID={run_id}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            pass
    return [p for p in found if alive(p)]


def kill_all(run_id: str, pgids: list[int]) -> list[int]:
    """SIGKILL the CLI's process groups and every process of the run; return what was alive."""
    killed = set()
    for _ in range(5):  # a dying parent may have just forked
        pids = run_processes(run_id)
        for pgid in pgids:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(POLL_S)
    return sorted(killed)


class Watcher:
    """Times the death of each hook process (and any grandchild it left) from its records."""

    def __init__(self, records: Path):
        self.records = records
        self.seen: dict[str, dict[str, int]] = {}  # record file -> {"pid", "grandchild_pid"}
        self.died_at: dict[int, float] = {}

    def poll(self) -> None:
        """The records directory is the session's: a hook may leave a FIFO, a link or junk
        there. Each is read as untrusted (never followed, never blocking, bounded); what is
        not a record with integer pids is passed over."""
        now = time.time()
        for name in untrusted.names(self.records.parent, self.records.name):
            if not name.endswith(".json"):
                continue
            if name not in self.seen or "grandchild_pid" not in self.seen[name]:
                try:
                    rec = json.loads(untrusted.read(self.records.parent, f"{self.records.name}/{name}", RECORD_MAX))
                    pids = {k: rec[k] for k in ("pid", "grandchild_pid") if k in rec}
                except (untrusted.Refused, ValueError, TypeError):
                    continue
                if all(type(p) is int and p > 0 for p in pids.values()):
                    self.seen[name] = pids
        for pids in self.seen.values():
            for pid in pids.values():
                if pid not in self.died_at and not alive(pid):
                    self.died_at[pid] = now

    def pids(self) -> list[int]:
        return sorted({p for pids in self.seen.values() for p in pids.values()})

    def settle(self, timeout_s: float = SETTLE_S) -> None:
        """After the final kill: poll until every watched process is seen gone (a SIGKILLed
        process takes a while to die; a large one, such as node, longer than the kill loop),
        so every killed hook gets its death time. Bounded: one that will not die keeps none."""
        end = time.time() + timeout_s
        while True:
            self.poll()
            if all(p in self.died_at for p in self.pids()) or time.time() >= end:
                return
            time.sleep(POLL_S)


Preexec = Callable[[], None]


def enter_jail(spec: JailSpec | None) -> tuple[Jailed, Preexec | None]:
    """The filesystem jail (in the private mount namespace the backend made, never in the
    host's), and the preexec function that starts the session's processes unprivileged."""
    if not spec:
        return {"filesystem": "host", "user": "caller"}, None
    if os.readlink("/proc/self/ns/mnt") == spec.get("host_mount_ns"):
        return {"filesystem": "host", "user": "caller", "error": "no private mount namespace"}, None
    try:
        described = jail.enter(spec)
    except OSError as e:
        return {"filesystem": "host", "user": "caller", "error": str(e)}, None
    return described, jail.unprivileged(described["user"])


class CannotStart(Exception):
    pass


class Ended(NamedTuple):
    """How a session ended, and what the final sweep found."""

    exit_code: int | None  # the CLI's (the last terminal's); negative: the signal
    timed_out: bool
    cli_ended_at: float
    alive_at_cli_exit: list[int]  # hook processes still alive when the CLI ended
    harness_killed: list[int]
    tty: TtyRecord | None = None
    disk_full: str | None = None  # which capped directory the session filled


class LiveSession:
    """One session: the plan, the scripted model serving it, the watcher, the clock (cutoff)."""

    def __init__(self, plan: Plan, model: ScriptedModel, preexec: Preexec | None, interrupted: list[str]):
        self.plan, self.model, self.preexec, self.interrupted = plan, model, preexec, interrupted
        self.watcher = Watcher(Path(plan["records"]))
        self.env = {k: v.replace("{port}", str(model.port)) for k, v in plan["env"].items()}
        # a CLI that takes its model's URL only from its command line (Codex's -c overrides)
        plan["argv"] = [a.replace("{port}", str(model.port)) for a in plan["argv"]]
        for step in plan.get("interactive", {"steps": []})["steps"]:
            if "argv" in step:
                step["argv"] = [a.replace("{port}", str(model.port)) for a in step["argv"]]
        for name in plan.get("port_files", []):  # the harness wrote them, before the port was known
            path = Path(name)
            text = untrusted.read(path.parent, path.name, RECORD_MAX).decode()  # no link followed, bounded
            path.write_text(text.replace("{port}", str(model.port)))
        self.env["PROBE_RUN_ID"] = plan["run_id"]
        self.cutoff = Cutoff(plan)  # the CLI starts now

    def sweep(self, pgids: list[int]) -> tuple[float, list[int], list[int]]:
        """The CLI is done: when, which hook processes outlived it, and what had to be killed."""
        cli_ended = time.time()
        self.watcher.poll()
        left = [p for p in self.watcher.pids() if alive(p) and not dying(p)]
        killed = kill_all(self.plan["run_id"], pgids)
        self.watcher.settle()
        return cli_ended, left, killed


@contextmanager
def exit_waiter(pid: int) -> Iterator[Callable[[float], None]]:
    """A wait of at most N seconds that ends the moment `pid` exits (its pidfd turns readable),
    so the CLI's exit is seen at once, not at the next poll. The pidfd is closed on leaving."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # a kernel before 5.3
        yield time.sleep
        return

    def wait(timeout_s: float) -> None:
        select.select([fd], [], [], timeout_s)

    try:
        yield wait
    finally:
        os.close(fd)


def prompt_session(s: LiveSession) -> Ended:
    """The CLI with the plan's argv (a -p prompt), until it ends or the budget does."""
    plan = s.plan
    with open(plan["stdout"], "wb") as out, open(plan["stderr"], "wb") as err:
        try:
            proc = subprocess.Popen(
                plan["argv"],
                cwd=plan["cwd"],
                env=s.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                preexec_fn=s.preexec,
            )
        except OSError as e:
            raise CannotStart(f"cannot start {plan['argv'][0]}: {e.strerror}") from None
    timed_out, interrupt_s = False, plan.get("interrupt_s")
    with exit_waiter(proc.pid) as exited:
        while proc.poll() is None:
            s.watcher.poll()
            if s.interrupted:
                break
            if interrupt_s is not None and (tool_at := s.model.first_tool_at) and time.time() >= tool_at + interrupt_s:
                os.kill(proc.pid, signal.SIGINT)  # a person's Ctrl-C, once (the CLI leads its own session)
                interrupt_s = None
            if s.cutoff.past_deadline():
                timed_out = True
                break
            if s.cutoff.disk_full():
                break
            exited(POLL_S)
    cli_ended, left, killed = s.sweep([proc.pid])
    exit_code = proc.wait()
    s.watcher.poll()
    return Ended(exit_code, timed_out, cli_ended, left, killed, disk_full=s.cutoff.filled)


def interactive_session(s: LiveSession) -> Ended:
    """The CLI in a terminal, driven through the plan's steps (terminal.py)."""
    # Here, not at the top: pexpect and pyte are site-packages, loaded (read_plan) only for an
    # interactive session; a prompt session starts without them.
    if TYPE_CHECKING or __package__:
        from .terminal import drive
    else:  # run as a script, with terminal.py beside it
        from terminal import drive

    def tick() -> None:
        s.watcher.poll()
        if s.interrupted or s.cutoff.disk_full():
            raise KeyboardInterrupt

    plan = s.plan
    tty: TtyRecord
    try:
        tty, pgids = drive(plan, s.env, tick, s.model, s.cutoff.started, s.cutoff.deadline, s.preexec)
    except KeyboardInterrupt:  # the drive closed its terminal; the sweep does the rest
        tty, pgids = {"steps": [], "error": "interrupted", "exit_codes": [], "timed_out": False}, []
    Path(plan["stdout"]).write_text(tty["steps"][-1]["screen"] if tty["steps"] else "")
    Path(plan["stderr"]).write_text("")
    cli_ended, left, killed = s.sweep(pgids)
    s.watcher.poll()
    return Ended((tty["exit_codes"] or [None])[-1], tty["timed_out"], cli_ended, left, killed, tty, s.cutoff.filled)


def read_plan(plan_path: str) -> Plan | None:
    """The plan from its file, or with `-` from standard input: a runner started before its
    probe had planned (backends/local.py) waits here. None: the probe gave up before planning."""
    text = sys.stdin.buffer.read() if plan_path == "-" else Path(plan_path).read_bytes()
    if not text:
        return None
    plan: Plan = json.loads(text)
    if plan.get("interactive") and "pexpect" not in sys.modules:
        import site  # started with -S (fastest); the terminal driver's packages are site-packages

        site.main()
    return plan


def main(plan_path: str) -> int:
    jail.die_with_parent(signal.SIGTERM)  # probe killed (even by SIGKILL): end the run
    plan = read_plan(plan_path)
    if plan is None:
        return 0
    runner_at = time.time()
    loopback = loopback_up() if plan.get("bring_up_loopback") else None
    jailed, preexec = enter_jail(plan.get("jail"))
    Path(plan["records"]).mkdir(parents=True, exist_ok=True)
    interrupted: list[str] = []

    def on_signal(signum: int, _frame: object) -> None:
        interrupted.append(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)

    subagent = (plan["subagent_sentinel"], plan["subagent_script"]) if plan.get("subagent_script") else None
    model_log, prompts = Path(plan["model_log"]), plan.get("prompt_scripts")
    with ScriptedModel(
        plan["script"],
        model_log,
        subagent=subagent,
        prompts=prompts,
        tool_names=plan.get("tool_names"),
        hook_answers=plan.get("hook_answers"),
    ) as model:
        session = LiveSession(plan, model, preexec, interrupted)
        try:
            ended = interactive_session(session) if plan.get("interactive") else prompt_session(session)
        except CannotStart as e:
            failure: Failure = {"network_loopback_up": loopback, "jail": jailed, "error": str(e)}
            write_result(plan["result"], failure)
            return 1
    code, cutoff = ended.exit_code, session.cutoff
    result: Result = {
        "network_loopback_up": loopback,
        "jail": jailed,
        "exit_code": None if ended.timed_out or interrupted or ended.disk_full else code,
        "exit_signal": signal.Signals(-code).name if code is not None and code < 0 else None,
        "timed_out": ended.timed_out,
        "interrupted": interrupted[0] if interrupted else None,
        "runner_at": runner_at,
        "started_at": cutoff.started,
        "cli_ended_at": ended.cli_ended_at,
        "wall_s": round(ended.cli_ended_at - cutoff.started, 3),
        "first_model_request_at": cutoff.first_request_at or cutoff.first_model_request(None),
        "deadline_at": cutoff.deadline,
        "port": model.port,
        "hook_deaths": {str(p): t for p, t in session.watcher.died_at.items()},
        "alive_at_cli_exit": ended.alive_at_cli_exit,
        "harness_killed": ended.harness_killed,
    }
    if ended.tty is not None:
        result["tty"] = ended.tty
    if ended.disk_full:
        result["disk_full"] = ended.disk_full
    write_result(plan["result"], result)
    return 130 if interrupted else 0


def write_result(path: str, result: Result | Failure) -> None:
    Path(path + ".tmp").write_text(json.dumps(result))
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    exit_code = main(sys.argv[1])
    # The run is swept and its result written: the interpreter's own teardown (30 ms of
    # finalizers and frees) would only delay the probe waiting for this process.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exit_code)
