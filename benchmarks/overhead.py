"""A probe against the true floor: the same CLI binary in a bare session.

    python benchmarks/overhead.py [AGENT@VERSION ...] [--runs N] [--recipe R]

For each spec (default copilot@1.0.92 claude@2.1.328; installed first if needed), N times
interleaved:

- **bare**: the CLI started directly (no `probe` process, no runner, no namespaces, no jail,
  no hooks registered) against the scripted model served in this process, with the same
  argv, environment and workspace a probe gives it: one Bash call, then text. The clock runs
  from starting the CLI to its exit.
- **empty hooks**: the same, with the recipe's hooks registered as a probe registers them,
  but each an empty Python script: what the CLI itself spends running that many hooks.
- **probe**: the whole `probe run SPEC RECIPE` process as a user runs it (default recipe
  payload-pretool), from exec to exit; its record's `harness` phases are kept.

Prints the medians, their ratio (the target is 1.25) and the median of each harness phase.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probes.agents import AGENTS
from probes.catalog.recipes import Recipe, get
from probes.pipeline.plan import register_hooks, runner_plan, workspace
from probes.pipeline.rundirs import RunDirs
from probes.runner.model import ScriptedModel
from probes.versions import install

PHASES = ("startup_s", "prepare_s", "launch_s", "cli_s", "teardown_s", "record_s", "total_s")


def bare(spec: str, hooked: str | None = None) -> float:
    """A session of the CLI alone; with `hooked` (a recipe), its hooks registered, each empty."""
    name, version = spec.split("@")
    agent = AGENTS[name]
    prefix = install.install(agent, version)
    none = Recipe(name="bare", question="bare", agents=[name], classifier="payload", control_of="none", hooks=[])
    recipe = get(hooked).for_agent(name) if hooked else none.for_agent(name)
    with tempfile.TemporaryDirectory(prefix="probe-bare-") as tmp:
        run = RunDirs(Path(tmp))
        workspace(run)
        node = str(Path(subprocess.check_output(["node", "-p", "process.execPath"], text=True).strip()).parent)
        env = register_hooks(agent, recipe, run, sys.executable).env if hooked else {}
        (run.bin / "hook.py").write_text("")
        plan = runner_plan(agent, prefix, none.for_agent(name), run, node, env)
        with ScriptedModel(plan["script"], run.root / "model.jsonl", tool_names=plan.get("tool_names")) as model:
            env = {k: v.replace("{port}", str(model.port)) for k, v in plan["env"].items()}
            start = time.perf_counter()
            subprocess.run(plan["argv"], cwd=plan["cwd"], env=env, stdin=subprocess.DEVNULL, capture_output=True, check=True)
            return time.perf_counter() - start


def probe(spec: str, recipe: str, results: str) -> tuple[float, dict[str, float]]:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "probes.cli", "run", spec, recipe, "--results", results, "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wall = time.perf_counter() - start
    return wall, json.loads(out)["harness"]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("specs", nargs="*", default=["copilot@1.0.92", "claude@2.1.328"])
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--recipe", default="payload-pretool")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as results:
        for spec in args.specs:
            probe(spec, args.recipe, results)  # warm: the install, the page cache
            bares, empties, probes, phases = [], [], [], []
            for _ in range(args.runs):
                bares.append(bare(spec))
                empties.append(bare(spec, args.recipe))
                wall, harness = probe(spec, args.recipe, results)
                probes.append(wall)
                phases.append(harness)
            b, e, r = statistics.median(bares), statistics.median(empties), statistics.median(probes)
            print(
                f"{spec:16} bare {b:.2f}s   empty hooks {e:.2f}s   probe run {args.recipe} {r:.2f}s   "
                f"ratio {r / b:.2f} (to empty hooks {r / e:.2f})"
            )
            print("  phases (median): " + ", ".join(f"{k} {statistics.median(h[k] for h in phases):.3f}" for k in PHASES))


if __name__ == "__main__":
    main()
