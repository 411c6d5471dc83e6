"""Where a probe's processes run (see base.py). BACKENDS maps a name to its backend; the
command line's --backend choices come from its keys."""

from .base import Backend, BackendRun, Launch
from .docker import DockerBackend
from .local import LocalBackend

BACKENDS: dict[str, Backend] = {b.name: b for b in (LocalBackend(), DockerBackend())}

__all__ = ["BACKENDS", "Backend", "BackendRun", "Launch"]
