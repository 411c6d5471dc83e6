"""How much a probe costs over the CLI's own session, on this machine.

    python benchmarks/speed.py [AGENT@VERSION ...] [--runs N] [--recipe R]
    python benchmarks/speed.py --catalog AGENT@VERSION [--jobs 2]

For each spec, interleaved N times: (a) a bare session: the runner alone driving the CLI
against the scripted model with no hooks registered; (b) `probe run SPEC RECIPE` as a user
runs it (a whole process: start-up, workspace, hooks, evidence). Prints medians and their
ratio. With --catalog: the whole catalog for one version through `probe matrix --jobs N`,
against its floor: every session's bare time plus its configured waits (hook timeouts it
hangs through, sleeps), spread over the jobs. Versions must be installed (run any probe on
them once first).
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


def configured_wait(recipe) -> float:
    """Seconds a recipe's hooks are told to take: a hang lasts its timeout (or the budget when
    none is set), a sleep its seconds."""
    total = 0.0
    for hook in recipe.hooks:
        b = hook.behavior if not isinstance(hook.behavior, dict) else next(iter(hook.behavior.values()))
        if b.hang:
            total += hook.timeout_s or recipe.budget_s
        elif b.seconds:
            total += b.seconds
    return total


def catalog(spec: str, jobs: int) -> None:
    from probes.recipes import load_all

    name, version = spec.split("@")
    recipes = [r for r in load_all().values() if name in r.agents]
    floor = statistics.median(bare_session(AGENTS[name], version) for _ in range(3))
    bound = (len(recipes) * floor + sum(configured_wait(r) for r in recipes)) / jobs
    with tempfile.TemporaryDirectory() as results:
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "probes.cli",
                "matrix",
                "--agent",
                name,
                "--versions",
                version,
                "--jobs",
                str(jobs),
                "--results",
                results,
            ],
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - start
    print(
        f"{spec}: {len(recipes)} recipes with --jobs {jobs} in {wall:.1f}s; floor {bound:.1f}s "
        f"({len(recipes)} x {floor:.2f}s bare + {sum(configured_wait(r) for r in recipes):.0f}s of waits, over {jobs} jobs)"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("specs", nargs="*", default=["copilot@1.0.92", "claude@2.1.328"])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--recipe", default="payload-pretool")
    p.add_argument("--catalog", metavar="AGENT@VERSION")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    if args.catalog:
        return catalog(args.catalog, args.jobs)
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
