"""What a backend is: where a probe's processes run. It gets a prepared run directory and a
plan, runs probes/runner/runner.py there, and gives back the runner's result and how the run
was isolated; it knows nothing of recipes, and of agents only what installs them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from probes.agents.base import Agent
    from probes.runner.contract import Plan, Result

GRACE_S = 30  # beyond the plan's budget, before the runner itself is presumed stuck
PASSED_ENV = ("LANG", "LC_ALL", "TZ")  # the only variables taken from the caller


@dataclass(frozen=True)
class BackendRun:
    result: Result  # the runner's, its `jail` as the backend made it
    network: str  # "isolated" (loopback only) or "host"
    image: str | None = None  # the image the run's container came from


class Launch(Protocol):
    """A run begun before its plan exists: the runner starts (namespaces, interpreter) while
    the probe still plans, and takes the plan when it is ready."""

    def run(self, plan: Plan) -> BackendRun: ...

    def cancel(self) -> None:
        """The probe will not run (bad input, an install failed): end what was started."""
        ...


@dataclass(frozen=True)
class Deferred:
    """A launch that starts nothing ahead: everything happens when the plan is given."""

    start: Callable[[Plan], BackendRun]

    def run(self, plan: Plan) -> BackendRun:
        return self.start(plan)

    def cancel(self) -> None:
        pass


class Backend(Protocol):
    name: str
    modes: frozenset[str]  # the recipe modes it can run: "prompt" (-p), "interactive" (a terminal)

    def python(self) -> str:
        """The interpreter the runner and the hook run with, where they run."""
        ...

    def node_dir(self) -> str:
        """The directory holding node, where the CLI runs."""
        ...

    def prepare(self, agent: Agent, version: str) -> Path:
        """The CLI version ready to run (installed or built once); its prefix where it runs."""
        ...

    def launch(self, run_dir: Path) -> Launch:
        """Start what can start before the plan exists, in a run directory holding the runner."""
        ...
