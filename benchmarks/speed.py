"""How much a probe costs over the CLI's own session, on this machine.

    python benchmarks/speed.py [AGENT@VERSION ...] [--runs N] [--recipe R]
    python benchmarks/speed.py --catalog AGENT@VERSION [--jobs N] [--without RECIPE ...]

For each spec, interleaved N times: (a) a bare session: the runner alone driving the CLI
against the scripted model with no hooks registered; (b) `probe run SPEC RECIPE` as a user
runs it (a whole process: start-up, workspace, hooks, evidence). Prints medians and their
ratio. With --catalog: benchmarks/catalog.py (the whole catalog for one version through the
matrix, against its longest cell). Versions must be installed (run any probe on them once
first).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probes import install
from probes.agents import AGENTS
from probes.backends import BACKENDS
from probes.plan import RunDirs, runner_plan, workspace
from probes.recipes import Recipe
from probes.run import RUNNER_FILES


def bare_session(agent, version: str) -> float:
    recipe = Recipe(name="bare", question="bare session", agents=[agent.name], classifier="payload", control_of="none", hooks=[])
    prefix = install.install(agent, version)
    with tempfile.TemporaryDirectory(prefix="probe-bench-") as tmp:
        run = RunDirs(Path(tmp))
        for name in RUNNER_FILES:
            (run.bin / name).write_bytes((Path(install.__file__).parent / "runner" / name).read_bytes())
        workspace(run)
        start = time.perf_counter()
        local = BACKENDS["local"]
        local.run(run.root, runner_plan(agent, prefix, recipe.for_agent(agent.name), run, local.node_dir()))
        return time.perf_counter() - start


def probe_run(spec: str, recipe: str, results: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "probes.cli", "run", spec, recipe, "--results", results], check=True, capture_output=True
    )
    return time.perf_counter() - start


def catalog(argv: list[str]) -> None:
    """The catalog against its longest cell: benchmarks/catalog.py."""
    sys.path.insert(0, str(Path(__file__).parent))
    import catalog as bench

    bench.main(argv)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("specs", nargs="*", default=["copilot@1.0.92", "claude@2.1.328"])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--recipe", default="payload-pretool")
    p.add_argument("--catalog", metavar="AGENT@VERSION", help="the rest of the arguments go to benchmarks/catalog.py")
    args, rest = p.parse_known_args()
    if args.catalog:
        return catalog([args.catalog, *rest])
    with tempfile.TemporaryDirectory() as results:
        for spec in args.specs:
            name, version = spec.split("@")
            bare, probed = [], []
            for _ in range(args.runs):
                bare.append(bare_session(AGENTS[name], version))
                probed.append(probe_run(spec, args.recipe, results))
            b, r = statistics.median(bare), statistics.median(probed)
            print(f"{spec:18} bare session {b:.2f}s   probe run {args.recipe} {r:.2f}s   ratio {r / b:.2f}")


if __name__ == "__main__":
    main()
