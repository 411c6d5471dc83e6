"""`probe nightly plan|shard|merge|local`: the nightly's whole logic (docs/nightly.md). The
workflow (.github/workflows/nightly.yml) calls plan, one shard per job and merge; `local` runs
the same three steps on this machine, each shard as its own process with its own results
directory, its artifact uploaded and downloaded at the workflow's paths."""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import sys
from pathlib import Path

from tabulate import tabulate

from probes import progress
from probes.agents import AGENTS
from probes.commands.options import add_json, add_progress, add_results, count
from probes.errors import Exit, InputError, UsageError
from probes.evidence.model import write_atomic
from probes.limits import MAX_JOBS, MAX_SHARDS
from probes.stopping import STOP_GRACE_S
from probes.sweep import nightly
from probes.versions.named import agent_named
from probes.versions.spec import bare_versions

STEPS = ("plan", "shard", "merge", "local")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The nightly: plan each agent's new releases in every setup and the atlas's gaps, cut in shards by recipe "
        "group; probe one shard and deliver its artifact; merge the artifacts, compact, tables, FINDINGS checked, "
        "and a report (exit 3 when a verdict or a finding changed); or all of it here (`local`)."
    )
    sub = p.add_subparsers(dest="step", required=True, metavar="{plan,shard,merge,local}")
    plan = sub.add_parser("plan", help="the night's plan (plan.json) and its job matrix")
    shard = sub.add_parser("shard", help="probe one job's share of the plan, deliver it into --out")
    merge = sub.add_parser("merge", help="land the shards' artifacts, then compact, tables, FINDINGS and report")
    local = sub.add_parser("local", help="a whole night here: plan, each shard in its own process, merge")
    for q in (plan, local):
        q.add_argument("--agent", action="append", help="repeat for several agents (default: all 12)")
        q.add_argument("--recipe", action="append", help="repeat for several recipes (default: the catalog); controls come along")
        q.add_argument("--shards", type=count("--shards", 1, MAX_SHARDS), default=4, metavar="N", help="jobs per agent at most")
        q.add_argument("--from", dest="start", type=bare_versions, metavar="V", help="new releases are those after V")
        q.add_argument("--no-atlas", dest="atlas", action="store_false", help="probe the new releases only, no atlas gap")
    plan.add_argument("--output", metavar="FILE", help="write plan.json here (default: print it)")
    shard.add_argument("--plan", required=True, metavar="FILE")
    shard.add_argument("--agent", required=True)
    shard.add_argument("--shard", required=True, metavar="I/N")
    shard.add_argument("--out", required=True, metavar="DIR", help="the artifact directory (uploaded as it is)")
    merge.add_argument("--plan", required=True, metavar="FILE")
    merge.add_argument("artifacts", nargs="*", metavar="ARTIFACT", help="the shards' artifact directories")
    for q in (merge, local):
        q.add_argument("--report", metavar="FILE", help="where report.md goes (default: beside the results directory)")
        q.add_argument("--link-base", default="", help="prefix for evidence links in the report (e.g. a blob URL)")
        q.add_argument("--no-tables", dest="tables", action="store_false", help="leave the tables and page as they are")
    local.add_argument("--work", metavar="DIR", help="runners, uploads and downloads (default: .nightly beside the results)")
    for q in (shard, local):
        q.add_argument("--minutes", type=count("--minutes", 1, 24 * 60), default=60, metavar="M", help="the atlas's bound")
        q.add_argument("--jobs", type=count("--jobs", 1, MAX_JOBS), metavar="N", help="cells at once (default: adaptive)")
    for q in (plan, shard, merge, local):
        add_results(q)
        add_progress(q)
    add_json(plan, "print the plan as JSON (also without --output)")


def handle(args: argparse.Namespace) -> int:
    progress.enable(args.progress)
    step: int = {"plan": do_plan, "shard": do_shard, "merge": do_merge, "local": do_local}[args.step](args)
    return step


def agents_of(args: argparse.Namespace) -> list[str]:
    return [agent_named(a).name for a in args.agent] if args.agent else sorted(AGENTS)


def recipes_of(args: argparse.Namespace) -> list[str]:
    from probes.catalog.names import recipe_named

    for r in args.recipe or ():
        recipe_named(r)
    return list(dict.fromkeys(args.recipe)) if args.recipe else ["all"]


def do_plan(args: argparse.Namespace) -> int:
    night = nightly.plan(Path(args.results), agents_of(args), recipes_of(args), args.shards, args.start, args.atlas)
    text = night.model_dump_json(indent=1) + "\n"
    if args.output:
        write_atomic(Path(args.output), text, "plan", "check --output")
    if args.json or not args.output:
        print(text, end="")
    else:
        print(plan_table(night))
    return Exit.OK


def plan_table(night: nightly.NightPlan) -> str:
    rows = [
        (
            a.agent,
            a.start or "-",
            ", ".join(a.versions) or "-",
            len(a.cells),
            len({c.stem for c in a.cells}),
            len(a.atlas),
            f"{sum(c.cost_s for c in a.cells) / 60:.1f}",
            len(a.shards),
        )
        for a in night.agents
    ]
    heads = ["agent", "after", "new releases", "cells", "records/release", "atlas pairs", "cell min", "jobs"]
    return tabulate(rows, headers=heads)


def do_shard(args: argparse.Namespace) -> int:
    from probes.sweep.matrix import parse_shard
    from probes.sweep.night_shard import run_shard

    parse_shard(args.shard)
    night = nightly.read(Path(args.plan))
    rep = run_shard(night, agent_named(args.agent).name, args.shard, Path(args.results), Path(args.out), args.jobs, args.minutes)
    failed = sum(c.status != "done" for c in rep.cells)
    print(
        f"{rep.agent} {rep.shard}: {len(rep.cells)} cell(s) probed ({failed} failed), {len(rep.bisected)} bisected, "
        f"{len(rep.atlas)} atlas pair(s) filled, {len(rep.atlas_left)} left; {rep.files} file(s) delivered into {args.out} "
        f"in {rep.wall_s:.0f}s ({rep.cpu_s / 60:.1f} CPU-min)"
    )
    return Exit.OK


def report_path(args: argparse.Namespace) -> Path:
    return Path(args.report) if args.report else Path(args.results).resolve().parent / "report.md"


def do_merge(args: argparse.Namespace) -> int:
    from probes.sweep.night_merge import land
    from probes.sweep.night_report import report

    night = nightly.read(Path(args.plan))
    results = Path(args.results)
    out = report_path(args)
    if out.is_dir():
        raise InputError(f"--report {out} is a directory: name the file to write")
    landed = land(night, [Path(a) for a in args.artifacts], results)
    if args.tables:
        tables(results)
    text, changed = report(landed, results, args.link_base)
    write_atomic(out, text, "report", "check --report")
    broke = [t for _, t in landed.findings_changed if not t.holds]
    print(
        f"{len(landed.shards)} of {len(night.matrix)} shard(s) landed ({landed.written} record(s) new, "
        f"{len(landed.refused)} artifact(s) refused); {changed} verdict change(s); "
        f"{len(broke)} FINDINGS check(s) broken; pending {sum(len(v) for v in landed.pending.values())}; report: {out}"
    )
    return Exit.VERDICTS_CHANGED if changed or landed.findings_changed else Exit.OK


def tables(results: Path) -> None:
    """The Markdown tables and the page, as `probe table` and `probe table --format html` write them."""
    for extra in ([], ["--format", "html"]):
        proc = subprocess.run(
            [sys.executable, "-m", "probes.cli", "table", "--results", str(results), *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if proc.returncode != 0:
            raise InputError(f"probe table {' '.join(extra)} failed: {proc.stderr.strip()[-300:]}")


# ---------------------------------------------------------------- local


def child(argv: list[str], last: bool = False) -> int:
    """`probe ARGV` as its own process, ended with this one (a signal here ends it too); its
    output goes to stderr as progress, the `last` step's to stdout as the night's answer."""
    sys.stdout.flush()
    proc = subprocess.Popen([sys.executable, "-m", "probes.cli", *argv], stdout=None if last else sys.stderr)
    try:
        return proc.wait()
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(STOP_GRACE_S * 2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def download(upload: Path, shards: Path) -> None:
    """actions/download-artifact: each artifact's regular files under shards/NAME/, as uploaded."""
    for art in sorted(p for p in upload.iterdir() if p.is_dir() and not p.is_symlink()):
        for f in sorted(art.rglob("*")):
            if f.is_file() and not f.is_symlink():
                dest = shards / art.name / f.relative_to(art)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)


def do_local(args: argparse.Namespace) -> int:
    results = Path(args.results)
    if not results.is_dir():
        raise InputError(f"no results directory {results}")
    work = Path(args.work) if args.work else results.resolve().parent / ".nightly"
    if work.exists():
        if not work.is_dir() or work.is_symlink():
            raise UsageError(f"--work {work} is not a directory")
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(work)  # a night starts from nothing: yesterday's uploads are not today's
    work.mkdir(parents=True)
    plan_file = work / "plan.json"
    argv = ["nightly", "plan", "--results", str(results), "--shards", str(args.shards), "--output", str(plan_file)]
    argv += [f"--agent={a}" for a in agents_of(args)] + [f"--recipe={r}" for r in args.recipe or ()]
    argv += ([f"--from={args.start}"] if args.start else []) + ([] if args.atlas else ["--no-atlas"])
    if (status := child(argv)) != 0:
        return status
    night = nightly.read(plan_file)
    for job in night.matrix:  # each job: a checkout of its own, as a runner has
        runner = work / "runners" / job.name / "results"
        progress.say(f"nightly local: {job.name} ({job.agent} {job.shard}) in {runner.parent}")
        shutil.copytree(results, runner, symlinks=True, ignore=shutil.ignore_patterns("*.html"))
        shard = ["nightly", "shard", "--plan", str(plan_file), "--agent", job.agent, "--shard", job.shard]
        shard += ["--results", str(runner), "--out", str(work / "upload" / job.name), "--minutes", str(args.minutes)]
        shard += ["--jobs", str(args.jobs)] if args.jobs else []
        if child(shard) != 0:
            progress.say(f"nightly local: {job.name} failed; the merge reports it as not delivered")
        shutil.rmtree(runner.parent)
    (work / "upload").mkdir(exist_ok=True)
    download(work / "upload", work / "shards")
    merge = ["nightly", "merge", "--plan", str(plan_file), "--results", str(results), "--report", str(report_path(args))]
    merge += (["--link-base", args.link_base] if args.link_base else []) + ([] if args.tables else ["--no-tables"])
    merge += [str(p) for p in sorted((work / "shards").glob("shard-*"))] if (work / "shards").is_dir() else []
    return child(merge, last=True)
