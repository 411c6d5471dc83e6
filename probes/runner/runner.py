"""The runner: one probe session where the CLI runs (on the host, in a private namespace, or
in a container). Standard library only.

    python3 runner.py PLAN.json

It starts the scripted model on loopback, starts the CLI in its own process group with the
plan's argv and environment, watches the hook records while the session runs (to time each
hook process's death), cuts the session at the plan's budget, kills every process of the run
that is still alive, and writes RESULT.json. It knows nothing of recipes or agents.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

try:
    from . import jail
    from .model import ScriptedModel
except ImportError:  # run as a script, with model.py and jail.py beside it
    import jail  # type: ignore[no-redef]
    from model import ScriptedModel  # type: ignore[no-redef]

POLL_S = 0.02


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
        self.seen: dict[str, dict] = {}  # record file -> {"pid", "grandchild_pid"}
        self.died_at: dict[int, float] = {}

    def poll(self) -> None:
        now = time.time()
        for path in self.records.glob("*.json"):
            if path.name not in self.seen or "grandchild_pid" not in self.seen[path.name]:
                try:
                    rec = json.loads(path.read_text())
                except (OSError, ValueError):
                    continue
                self.seen[path.name] = {k: rec[k] for k in ("pid", "grandchild_pid") if k in rec}
        for pids in self.seen.values():
            for pid in pids.values():
                if pid not in self.died_at and not alive(pid):
                    self.died_at[pid] = now

    def pids(self) -> list[int]:
        return sorted({p for pids in self.seen.values() for p in pids.values()})


def enter_jail(spec: dict | None) -> tuple[dict, object]:
    """The filesystem jail (in the private mount namespace the backend made, never in the
    host's), and the preexec function that starts the session's processes unprivileged."""
    if not spec:
        return {"filesystem": "host", "user": "caller"}, None
    if os.readlink("/proc/self/ns/mnt") == spec["host_mount_ns"]:
        return {"filesystem": "host", "user": "caller", "error": "no private mount namespace"}, None
    try:
        described = jail.enter(spec)
    except OSError as e:
        return {"filesystem": "host", "user": "caller", "error": str(e)}, None
    return described, jail.unprivileged(described["user"])


def main(plan_path: str) -> int:
    jail.die_with_parent(signal.SIGTERM)  # probe killed (even by SIGKILL): end the run
    plan = json.loads(Path(plan_path).read_text())
    result: dict = {"network_loopback_up": None}
    if plan.get("bring_up_loopback"):
        result["network_loopback_up"] = loopback_up()
    result["jail"], preexec = enter_jail(plan.get("jail"))
    records = Path(plan["records"])
    records.mkdir(parents=True, exist_ok=True)
    watcher = Watcher(records)
    run_id = plan["run_id"]
    interrupted = []

    def on_signal(signum, _frame):
        interrupted.append(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)

    subagent = (plan["subagent_sentinel"], plan["subagent_script"]) if plan.get("subagent_script") else None
    with ScriptedModel(plan["script"], Path(plan["model_log"]), subagent=subagent, prompts=plan.get("prompt_scripts")) as model:
        env = {k: v.replace("{port}", str(model.port)) for k, v in plan["env"].items()}
        env["PROBE_RUN_ID"] = run_id
        started = time.time()
        deadline = started + float(plan["budget_s"])
        if plan.get("interactive"):
            try:
                from .terminal import drive
            except ImportError:  # run as a script, with terminal.py beside it
                from terminal import drive

            def tick():
                watcher.poll()
                if interrupted:
                    raise KeyboardInterrupt

            try:
                tty, pgids = drive(plan, env, tick, model, started, deadline, preexec)
            except KeyboardInterrupt:  # the drive closed its terminal; the sweep does the rest
                tty, pgids = {"steps": [], "error": "interrupted", "exit_codes": [], "timed_out": False}, []
            result["tty"] = tty
            exit_code, timed_out = (tty["exit_codes"] or [None])[-1], tty["timed_out"]
            Path(plan["stdout"]).write_text(tty["steps"][-1]["screen"] if tty["steps"] else "")
            Path(plan["stderr"]).write_text("")
        else:
            exit_code, timed_out, pgids = None, False, []
            with open(plan["stdout"], "wb") as out, open(plan["stderr"], "wb") as err:
                try:
                    proc = subprocess.Popen(
                        plan["argv"],
                        cwd=plan["cwd"],
                        env=env,
                        stdin=subprocess.DEVNULL,
                        stdout=out,
                        stderr=err,
                        start_new_session=True,
                        preexec_fn=preexec,
                    )
                except OSError as e:
                    result["error"] = f"cannot start {plan['argv'][0]}: {e.strerror}"
                    write_result(plan["result"], result)
                    return 1
            pgids = [proc.pid]
            while proc.poll() is None:
                watcher.poll()
                if interrupted:
                    break
                if time.time() >= deadline:
                    timed_out = True
                    break
                time.sleep(POLL_S)
        cli_ended = time.time()
        watcher.poll()
        left = [p for p in watcher.pids() if alive(p)]
        harness_killed = kill_all(run_id, pgids)
        if not plan.get("interactive"):
            exit_code = proc.wait()
        watcher.poll()
    result.update(
        {
            "exit_code": None if timed_out or interrupted else exit_code,
            "exit_signal": signal.Signals(-exit_code).name if exit_code is not None and exit_code < 0 else None,
            "timed_out": timed_out,
            "interrupted": interrupted[0] if interrupted else None,
            "started_at": started,
            "cli_ended_at": cli_ended,
            "wall_s": round(cli_ended - started, 3),
            "port": model.port,
            "hook_deaths": {str(p): t for p, t in watcher.died_at.items()},
            "alive_at_cli_exit": left,
            "harness_killed": harness_killed,
        }
    )
    write_result(plan["result"], result)
    return 130 if interrupted else 0


def write_result(path: str, result: dict) -> None:
    Path(path + ".tmp").write_text(json.dumps(result))
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
