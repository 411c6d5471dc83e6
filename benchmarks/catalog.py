"""The whole catalog of one version through the matrix, against its longest cell.

    python benchmarks/catalog.py AGENT@VERSION [--jobs N] [--without RECIPE ...] [--results DIR]
    python benchmarks/speed.py --catalog AGENT@VERSION ...   (the same)

Runs every recipe of the agent on the version with `matrix.run` (what `probe matrix --recipe
all` runs), default flags unless --jobs, and prints: the wall; the longest cell (its
`cli.wall_s`, as the issue measures it); the CPU time of every process the matrix waited for;
the floor max(longest, CPU / cores); the ratio wall / longest (target 1.25); the load average
before and after (the machine may be shared); and every outcome that differs from the
committed evidence of that version (results/AGENT/VERSION/, or --against DIR: e.g. a `git
archive HEAD results` when the work tree holds uncommitted records), which oversubscription
must not cause. --without leaves a recipe out (e.g. default-timeout-pretool-long, whose 600 s hide
everything else). The version must be installed.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from probes.catalog.recipes import load_all
from probes.limits import EVIDENCE_MAX_BYTES, BadFile, parse_json, read_bounded
from probes.sweep import matrix

COMMITTED = Path(__file__).resolve().parent.parent / "results"


def record(path: Path) -> dict[str, Any] | None:
    try:
        value = parse_json(read_bounded(path, EVIDENCE_MAX_BYTES))
    except BadFile:
        return None
    return value if isinstance(value, dict) else None


def children_cpu_s() -> float:
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def catalog(spec: str, jobs: int | None, without: list[str], results: Path, against: Path = COMMITTED) -> None:
    agent, version = spec.split("@")
    unknown = set(without) - set(load_all())
    if unknown:
        raise SystemExit(f"--without: no recipe {', '.join(sorted(unknown))}")
    cells = [c for c in matrix.cells(agent, [version], "all") if c.recipe not in without]
    load0, cpu0, start = os.getloadavg(), children_cpu_s(), time.perf_counter()
    done = matrix.run(cells, results, jobs)  # the pool's workers are joined: their CPU is counted
    wall, cpu, load1 = time.perf_counter() - start, children_cpu_s() - cpu0, os.getloadavg()
    walls, flips, failed = {}, [], [c for c in done if c.status != "done"]
    for c in done:
        got = record(results / agent / version / f"{c.recipe}.json") if c.status == "done" else None
        if got is None:
            continue
        walls[c.recipe] = float(got.get("cli", {}).get("wall_s") or 0.0)
        before = record(against / agent / version / f"{c.recipe}.json")
        if before is not None and before.get("outcome") != got.get("outcome"):
            flips.append(f"{c.recipe}: {before.get('outcome')} -> {got.get('outcome')}")
    longest = max(walls, key=lambda n: walls[n]) if walls else "-"
    top, ncores = walls.get(longest, 0.0), os.cpu_count() or 1
    floor = max(top, cpu / ncores)
    print(
        f"{spec}: {len(cells)} cells, jobs {jobs or 'default'}{' without ' + ', '.join(without) if without else ''}\n"
        f"  wall {wall:.1f} s; longest cell {longest} {top:.1f} s; ratio {wall / top if top else 0:.2f}\n"
        f"  CPU {cpu:.1f} s over {ncores} cores: floor max(longest, CPU/cores) {floor:.1f} s\n"
        f"  load average before {load0[0]:.2f} {load0[1]:.2f}, after {load1[0]:.2f} {load1[1]:.2f}\n"
        f"  {len(walls) - len(flips)} outcomes as committed; {len(flips)} differ"
        + "".join(f"\n    {f}" for f in flips)
        + (f"\n  {len(failed)} cells failed: " + ", ".join(c.recipe for c in failed) if failed else "")
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("spec", metavar="AGENT@VERSION")
    p.add_argument("--jobs", type=int, help="a hard cap (default: the matrix's own, adaptive)")
    p.add_argument("--without", action="append", default=[], metavar="RECIPE", help="leave this recipe out")
    p.add_argument("--results", help="keep the evidence here (default: a temporary directory)")
    p.add_argument("--against", type=Path, default=COMMITTED, help="the results to compare outcomes with")
    args = p.parse_args(argv)
    if args.results:
        catalog(args.spec, args.jobs, args.without, Path(args.results), args.against)
        return
    with tempfile.TemporaryDirectory(prefix="probe-catalog-") as tmp:
        catalog(args.spec, args.jobs, args.without, Path(tmp), args.against)


if __name__ == "__main__":
    main()
