"""The local backend: the runner on this host, inside private network, PID and mount
namespaces when `unshare` allows it (loopback only; every process of the run dies with the
runner), else on the host network, and the evidence says which."""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from probes.backends.base import GRACE_S, PASSED_ENV, BackendRun, Launch
from probes.backends.common import last_words, read_result
from probes.errors import HarnessError
from probes.runner.jail import die_with_parent
from probes.versions.spec import tool

if TYPE_CHECKING:
    from probes.agents.base import Agent
    from probes.runner.contract import Plan


@functools.cache
def isolation_prefix() -> tuple[str, ...]:
    """The `unshare` command that gives a private network and PID namespace, or () if this
    host cannot make one (no unshare, no user namespaces, a restrictive container)."""
    unshare = shutil.which("unshare")
    if not unshare:
        return ()
    cmd = [unshare, "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if os.geteuid() != 0:
        cmd.insert(1, "--map-root-user")
    try:
        ok = subprocess.run([*cmd, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return tuple(cmd) if ok else ()


def runner_env() -> dict[str, str]:
    """The runner's environment: nothing of the caller's but the locale. Every process of the
    run can read the runner's (it is PID 1 of the run), so no credential may be in it."""
    return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **{k: os.environ[k] for k in PASSED_ENV if k in os.environ}}


class LocalBackend:
    name = "local"
    modes = frozenset({"prompt", "interactive"})

    def python(self) -> str:
        return sys.executable

    def node_dir(self) -> str:
        return os.path.dirname(tool("node"))

    def prepare(self, agent: Agent, version: str) -> Path:
        """The prefix the CLI version is installed in (installing it once)."""
        from probes.versions.install import install  # its lock and cache: only when a probe runs

        self.node_dir()  # node missing: say so before installing anything
        return install(agent, version)

    def launch(self, run_dir: Path) -> Launch:
        return LocalLaunch(run_dir, self.python())


class LocalLaunch:
    """The runner, started in its namespaces before the probe has planned, waiting on its
    standard input for the plan: its start-up (a fork, namespaces, an interpreter) overlaps
    the probe's own (imports, recipe, workspace, hooks) instead of following it."""

    def __init__(self, run_dir: Path, python: str):
        self.run_dir, self.prefix = run_dir, isolation_prefix()
        argv = [*self.prefix, python, "-S", "-E", "-s", str(run_dir / "bin" / "runner.py"), "-"]
        with open(run_dir / "runner.err", "wb") as err_file:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=err_file,
                start_new_session=True,
                env=runner_env(),
                # unshare (or the runner) dies with probe, however probe
                # ends; --kill-child then ends the runner's PID namespace
                preexec_fn=functools.partial(die_with_parent, signal.SIGKILL, os.getpid()),
            )

    def cancel(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()  # no plan: the runner leaves
        try:
            self.proc.wait(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def run(self, plan: Plan) -> BackendRun:
        # The jail needs the private mount namespace; the runner checks it has one.
        spec, jail = plan.get("jail"), None
        if self.prefix and spec:
            jail = spec.copy()
            jail["host_mount_ns"] = os.readlink("/proc/self/ns/mnt")
        plan = plan.copy()
        plan["bring_up_loopback"], plan["jail"] = bool(self.prefix), jail
        text = json.dumps(plan).encode()
        (self.run_dir / "plan.json").write_bytes(text)  # what the runner was given, for whoever reads the run
        proc = self.proc
        assert proc.stdin is not None
        try:
            proc.stdin.write(text)
            proc.stdin.close()
        except BrokenPipeError:
            pass  # the runner is gone: its exit and runner.err say why
        try:
            proc.wait(timeout=plan["budget_s"] + GRACE_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise HarnessError(
                f"the runner did not finish within {plan['budget_s'] + GRACE_S:.0f}s; see {self.run_dir}/runner.err"
            ) from None
        except BaseException:  # Ctrl-C or SIGTERM: the runner cleans up, then we leave
            try:
                os.killpg(proc.pid, signal.SIGINT)
            except ProcessLookupError:
                pass  # it had just ended
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            raise
        result = read_result(plan, f"the runner failed (exit {proc.returncode}): {last_words(self.run_dir, 'runner.err')}")
        return BackendRun(result, "isolated" if self.prefix else "host")
