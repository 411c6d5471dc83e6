"""What a backend is: where a probe's processes run. It gets a prepared run directory and a
plan, runs probes/runner/runner.py there, and gives back the runner's result and how the run
was isolated; it knows nothing of recipes, and of agents only what installs them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..agents.base import Agent
    from ..runner.contract import Plan, Result

GRACE_S = 30  # beyond the plan's budget, before the runner itself is presumed stuck
PASSED_ENV = ("LANG", "LC_ALL", "TZ")  # the only variables taken from the caller


@dataclass(frozen=True)
class BackendRun:
    result: Result  # the runner's, its `jail` as the backend made it
    network: str  # "isolated" (loopback only) or "host"
    image: str | None = None  # the image the run's container came from


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

    def run(self, run_dir: Path, plan: Plan) -> BackendRun: ...
