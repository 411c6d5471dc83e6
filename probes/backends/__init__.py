"""Where a probe's processes run (see base.py). BACKENDS maps a name to its backend; the
command line's --backend choices come from its keys."""

from probes.backends.base import Backend, BackendRun, Launch
from probes.backends.docker import DockerBackend
from probes.backends.local import LocalBackend

BACKENDS: dict[str, Backend] = {b.name: b for b in (LocalBackend(), DockerBackend())}

__all__ = ["BACKENDS", "Backend", "BackendRun", "Launch"]
