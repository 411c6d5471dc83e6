"""The docker backend: each CLI version in its own image, each probe in a fresh container
with no network. The same runner as the local backend runs inside; the run directory is
bind-mounted at the same path, so the plan's paths hold on both sides and what the run
leaves (workspace, records, model log) is on the host when the container ends."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shlex
import shutil
import socket
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes import __version__
from probes.backends.base import GRACE_S, BackendRun, Deferred, Launch
from probes.backends.common import read_result, runner_argv
from probes.errors import HarnessError, InputError
from probes.pids import alive
from probes.versions import node

if TYPE_CHECKING:
    from probes.agents.base import Agent
    from probes.runner.contract import Plan

IMAGE_PREFIX = "probe-cli"
PREFIX_IN_IMAGE = Path("/opt/cli")
DEFAULT_BASE = "node:22-bookworm-slim"
TEMPLATE = Path(__file__).parent.parent / "containers" / "cli.Dockerfile"
HOST = socket.gethostname()
# The same rules as the local backend's jail: the image read-only, private scratch space, no
# host socket mounted, the run directory the only writable place, and no privilege: the
# caller's uid (root only if the caller is) with every capability dropped.
JAIL = {
    "read_only": True,
    "tmpfs": {p: "rw,nosuid,nodev,size=256m" for p in ("/tmp", "/var/tmp", "/run")},
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges"],
    "user": f"{os.getuid()}:{os.getgid()}",
    "pids_limit": 4096,
}
JAIL_FILESYSTEM = "read-only image, private /tmp and /run, writable run directory"
JAIL_USER = "no capabilities"


def client() -> Any:
    """The docker SDK client, or one line saying what to do."""
    try:
        import docker  # the SDK takes half a second to import: only when docker is used

        c = docker.from_env()
        c.ping()
        return c
    except Exception as e:  # DockerException, PermissionError, connection refused...
        reason = str(e).splitlines()[0][:160]
        if "Permission denied" in reason:
            raise InputError(
                f"permission denied on the Docker socket ({reason}): add yourself to the docker group or run as root"
            ) from None
        raise InputError(f"no Docker engine answers ({reason}): start dockerd, or set DOCKER_HOST") from None


def ca_bundle() -> Path | None:
    for var in ("SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE"):
        path = os.environ.get(var)
        if path and Path(path).is_file():
            return Path(path)
    return None


# The container's first process: it runs the runner, and ends it (SIGTERM: it stops the
# session as on Ctrl-C) when its standard input, held by the probe, closes: the container
# ends with its probe, even a SIGKILLed one, not at the next probe's clean-up. Ending, it
# takes every process of the container with it (it is PID 1). Standard library only.
LIFELINE = """
import os, signal, subprocess, sys, threading
runner = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
def end(*_):
    runner.send_signal(signal.SIGTERM)
    try:
        runner.wait(10)
    finally:
        os._exit(130)
def watch():
    try:
        while os.read(0, 65536):
            pass
    except OSError:
        pass
    end()
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, lambda *_: threading.Thread(target=end, daemon=True).start())
threading.Thread(target=watch, daemon=True).start()
sys.exit(runner.wait())
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the builder colours a command's stderr
BUILDER_CHATTER = ("Step ", "--->", "Removing intermediate container", "Running in")  # not a command's words


def build_digest() -> str:
    """What an image was built by (the Dockerfile and node.py): one built by another is rebuilt."""
    return hashlib.sha256(TEMPLATE.read_bytes() + Path(node.__file__).read_bytes()).hexdigest()[:16]


class DockerBackend:
    name = "docker"
    modes = frozenset({"prompt"})  # interactive sessions need the local backend's terminal

    def __init__(self) -> None:
        self._client: Any = None  # the docker SDK's client, made on first use
        self.image_id: str | None = None

    @property
    def docker(self) -> Any:
        if self._client is None:
            self._client = client()
        return self._client

    def python(self) -> str:
        return "/usr/bin/python3"

    def node_dir(self) -> str:
        # the Node the image build installed for the CLI (versions/node.py) first, where it did;
        # node:22 images' in /usr/local/bin; Debian's nodejs is in /usr/bin, also on PATH
        return f"{PREFIX_IN_IMAGE / 'node' / 'bin'}:/usr/local/bin"

    def prepare(self, agent: Agent, version: str) -> Path:
        """The image for this version (built once, reused), and the CLI's prefix inside it."""
        import docker  # see client()

        base = os.environ.get("PROBE_BASE_IMAGE", DEFAULT_BASE)
        tag = f"{IMAGE_PREFIX}:{agent.name}-{version}"
        try:
            image = self.docker.images.get(tag)
            if image.labels.get("probe.base") == base and image.labels.get("probe.build") == build_digest():
                self.image_id = image.id
                return PREFIX_IN_IMAGE
        except docker.errors.ImageNotFound:
            pass
        with tempfile.TemporaryDirectory(prefix="probe-build-") as ctx:
            (Path(ctx) / "cli.Dockerfile").write_text(TEMPLATE.read_text())
            shutil.copy(node.__file__, Path(ctx) / "node.py")  # run in the build: the Node the CLI asks for
            ca = ca_bundle()
            if ca:
                (Path(ctx) / "ca.crt").write_bytes(ca.read_bytes())
            seed = agent.seed_command(PREFIX_IN_IMAGE)
            try:
                image, _ = self.docker.images.build(
                    path=ctx,
                    dockerfile="cli.Dockerfile",
                    tag=tag,
                    network_mode="host",
                    rm=True,
                    forcerm=True,
                    buildargs={
                        "BASE_IMAGE": base,
                        "PACKAGE": agent.package,
                        "VERSION": version,
                        "BINARY": str(agent.binary_path(PREFIX_IN_IMAGE).relative_to(PREFIX_IN_IMAGE)),
                        "SEED": f"mkdir -p {PREFIX_IN_IMAGE}/seed-home && {shlex.join(seed)}" if seed else "true",
                    },
                    labels={
                        "probe.agent": agent.name,
                        "probe.version": version,
                        "probe.harness": __version__,
                        "probe.base": base,
                        "probe.build": build_digest(),
                    },
                )
            except docker.errors.BuildError as e:
                # The failing command's own last words (e.g. the Node.js an agent needs) before
                # the builder's "returned a non-zero code".
                said = [ANSI.sub("", x.get("stream", "")).strip() for x in e.build_log if x.get("stream", "").strip()]
                said = [line for line in said if not line.startswith(BUILDER_CHATTER)]
                last = said[-1] if said else str(e)
                hint = (
                    " (no registry? make a base image: containers/make-base-image.sh, then PROBE_BASE_IMAGE=probe-base:bookworm)"
                    if "pull" in str(e).lower() or "not found" in str(e).lower()
                    else ""
                )
                raise HarnessError(f"building {tag} failed: {last[:200]}{hint}") from None
            except docker.errors.APIError as e:
                raise HarnessError(f"building {tag} failed: {e.explanation or e}"[:300]) from None
        self.image_id = image.id
        return PREFIX_IN_IMAGE

    def launch(self, run_dir: Path) -> Launch:
        return Deferred(functools.partial(self.run, run_dir))  # a container starts with its plan

    def run(self, run_dir: Path, plan: Plan) -> BackendRun:
        # network_mode none: only lo, already up. The container is the jail (the runner's
        # own needs a mount namespace it makes itself).
        import docker  # see client()

        plan = plan.copy()
        plan["bring_up_loopback"], plan["jail"] = False, None
        self.remove_orphans()
        container = self.docker.containers.create(
            self.image_id,
            [self.python(), "-S", "-E", "-s", "-c", LIFELINE, *runner_argv(self.python(), run_dir, plan)],
            network_mode="none",
            volumes={str(run_dir): {"bind": str(run_dir), "mode": "rw"}},
            labels={"probe.run": plan["run_id"], "probe.pid": str(os.getpid()), "probe.host": HOST},
            init=False,
            # The lifeline: this process holds the container's standard input, which closes
            # when it ends, however (kill -9 included); not detached, so StdinOnce is set
            stdin_open=True,
            auto_remove=True,  # and a container that has ended is removed by the engine
            **JAIL,
        )
        try:
            lifeline = container.attach_socket(params={"stdin": 1, "stream": 1})
            try:
                try:
                    container.start()
                except docker.errors.APIError as e:
                    raise HarnessError(f"the container did not start: {e.explanation or e}"[:300]) from None
                try:
                    container.wait(timeout=plan["budget_s"] + GRACE_S)
                except docker.errors.NotFound:
                    pass  # it ended and was removed before the wait began
                except Exception:
                    raise HarnessError(f"the container did not finish within {plan['budget_s'] + GRACE_S:.0f}s") from None
            finally:
                lifeline.close()
        finally:  # also on Ctrl-C: no container outlives the probe
            with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
                container.remove(force=True)  # gone already, or its removal under way
        result = read_result(plan, "the runner in the container wrote no result")
        result["jail"] = {"filesystem": JAIL_FILESYSTEM, "user": JAIL_USER}
        return BackendRun(result, "isolated", self.image_id)

    def remove_orphans(self) -> None:
        """Containers of probes on this host that were killed before they could remove them."""
        import docker  # see client()

        # sparse: the list itself, no inspection of each container, one of which the engine
        # may be removing right now (auto_remove): a container gone meanwhile is no error
        for c in self.docker.containers.list(all=True, sparse=True, filters={"label": [f"probe.host={HOST}"]}):
            pid = int((c.attrs.get("Labels") or {}).get("probe.pid", "0") or 0)
            if pid and not alive(pid):
                with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
                    c.remove(force=True)
