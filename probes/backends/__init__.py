"""Where a probe's processes run. A backend gets a prepared run directory and a plan, runs
probes/runner/runner.py there, and returns the runner's result; it knows nothing of recipes."""

from .docker import DockerBackend
from .local import LocalBackend

BACKENDS = {b.name: b for b in (LocalBackend(), DockerBackend())}
