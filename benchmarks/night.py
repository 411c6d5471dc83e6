"""What a night costs: a whole `probe nightly local` on a copy of results/ with each named
agent's newest release removed (it stands for a new one), then per agent and release the
cells, their cell-minutes as planned, the jobs, and what the shards measured (wall, CPU).
With --model, no probe: a plan for every agent's newest release removed, and the wall time
of a night with one new release of each agent, modelled from the plan's measured costs.

    .venv/bin/python benchmarks/night.py claude [--recipe R ...] [--shards N] [--minutes M]
    .venv/bin/python benchmarks/night.py --model [--shards N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from probes.agents import AGENTS
from probes.sweep.nightly import NightPlan, probed_versions

ROOT = Path(__file__).resolve().parent.parent


def tree_without_newest(dest: Path, agents: list[str]) -> dict[str, str]:
    """A copy of results/ with each agent's newest probed release removed: agent -> release."""
    shutil.copytree(ROOT / "results", dest, ignore=shutil.ignore_patterns("*.html"))
    removed = {}
    for a in agents:
        v = probed_versions(dest, a)[-1]
        shutil.rmtree(dest / a / v)
        (dest / a / f"surface-{v}.json").unlink(missing_ok=True)
        removed[a] = v
    return removed


def probe(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "probes.cli", *args], capture_output=True, text=True)


def model(shards: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        removed = tree_without_newest(results, sorted(AGENTS))
        proc = probe(
            "nightly", "plan", "--no-atlas", "--shards", str(shards), "--results", str(results), "--output", f"{tmp}/p.json"
        )
        assert proc.returncode == 0, proc.stderr
        night = NightPlan.model_validate_json(Path(f"{tmp}/p.json").read_text())
    print("| agent | release | cells | cell-min | jobs | longest job (min) |\n|---|---|---|---|---|---|")
    longest = 0.0
    for a in night.agents:
        mine = [c for c in a.cells if c.version == removed[a.agent]]
        groups: dict[str, float] = {}
        for c in mine:
            lead = a.group_of(c.recipe)
            groups[lead] = groups.get(lead, 0.0) + c.cost_s
        loads = [0.0] * min(shards, len(groups) or 1)
        for g in sorted(groups, key=lambda g: -groups[g]):
            loads[loads.index(min(loads))] += groups[g]
        longest = max(longest, max(loads))
        print(
            f"| {a.agent} | {removed[a.agent]} | {len(mine)} | {sum(c.cost_s for c in mine) / 60:.1f} | "
            f"{len(loads)} | {max(loads) / 60:.1f} |"
        )
    print(f"\nOne new release of each agent, {shards} jobs each at once: the longest job's cells take {longest / 60:.1f} min")


def night(agents: list[str], recipes: list[str], shards: int, minutes: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        removed = tree_without_newest(results, agents)
        args = ["nightly", "local", "--results", str(results), "--shards", str(shards), "--minutes", str(minutes), "--no-tables"]
        args += [f"--agent={a}" for a in agents] + [f"--recipe={r}" for r in recipes]
        load0, t0 = os.getloadavg()[0], time.monotonic()
        proc = probe(*args)
        wall = time.monotonic() - t0
        print(proc.stdout.strip(), f"(exit {proc.returncode}, {wall / 60:.1f} min, load {load0:.1f} -> {os.getloadavg()[0]:.1f})")
        plan = NightPlan.model_validate_json((Path(tmp) / ".nightly" / "plan.json").read_text())
        shards_dir = Path(tmp) / ".nightly" / "shards"
        reps = [json.loads(p.read_text()) for p in sorted(shards_dir.glob("*/shard.json"))]
        print("| agent | release | cells | cell-min planned | jobs | shards' wall (min) | shards' CPU-min |\n" + "|---|" * 7)
        for a in plan.agents:
            mine = [r for r in reps if r["agent"] == a.agent]
            cells = sum(len(r["cells"]) for r in mine)
            print(
                f"| {a.agent} | {removed[a.agent]} | {cells} | {sum(c.cost_s for c in a.cells) / 60:.1f} | {len(a.shards)} | "
                f"{sum(r['wall_s'] for r in mine) / 60:.1f} | {sum(r['cpu_s'] for r in mine) / 60:.1f} |"
            )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("agents", nargs="*", default=["claude"])
    p.add_argument("--recipe", action="append", default=[])
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--minutes", type=int, default=10)
    p.add_argument("--model", action="store_true")
    a = p.parse_args()
    if a.model:
        model(a.shards)
    else:
        night(a.agents, a.recipe, a.shards, a.minutes)


if __name__ == "__main__":
    main()
