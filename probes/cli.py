"""The command line: parse, call, print. Errors become one line and an exit code here alone.
The work is in the modules each command calls (run, matrix, bump, merge, tables,
reclassify, schema); shared options and argument checks are in options.py."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes.commands import options
from probes.commands.options import UsageError, agent_named, recipe_named, spec_of
from probes.errors import Exit, InputError, ProbeError
from probes.stopping import STOPPING, Interrupted, on_stop_signals

if TYPE_CHECKING:
    from probes.catalog.recipes import Recipe
    from probes.evidence.model import Evidence


def tabulate(rows: Sequence[Sequence[object]], **kwargs: Any) -> str:
    from tabulate import tabulate as render  # imported when a table is printed, not at start-up

    return render(rows, **kwargs)


# ---------------------------------------------------------------- run, list, versions


def cmd_run(args: argparse.Namespace) -> int:
    """With --repeat N, N probes; --json then prints a JSON array of their records."""
    s = spec_of(args.spec)
    recipe_named(args.recipe)  # before the registry is asked or anything installed
    from probes.pipeline.run import probe_repeated

    records, path = probe_repeated(str(s), args.recipe, Path(args.results), args.backend, args.repeat)
    if not args.json:
        print(summary(records[-1], path))
    elif args.repeat == 1:
        print(records[0].to_json(), end="")
    else:
        print("[\n" + ",\n".join(r.to_json().rstrip() for r in records) + "\n]")
    return 0


def claim_line(c: dict[str, Any]) -> str:
    """A claim as the run summary shows it: the verdict, and why unless it agrees."""
    from probes.evidence.claims import verdict_of

    verdict = verdict_of(c)
    why = f" ({c['reason']})" if verdict != "agrees" and c.get("reason") else ""
    return f"{verdict if verdict != 'disagrees' else 'DISAGREES'}: {c['source']}: {c['says']}{why}"


def summary(ev: Evidence, path: Path | str) -> str:
    from probes.evidence.claims import applies_recorded
    from probes.report.tables import short

    version = ev.executed_version or "unknown"
    if ev.version_mismatch:
        version += f"   <-- MISMATCH: asked for {ev.requested_version}"
    obs = ", ".join(f"{k}={short(v, as_json=False)}" for k, v in ev.observations.items() if not isinstance(v, (dict, list)))
    repeats = ev.repeats or {}
    rows: list[tuple[str, object]] = [
        ("agent", ev.agent),
        ("requested", ev.requested_version),
        ("executed", version),
        ("recipe", ev.recipe),
        ("outcome", ev.outcome),
        ("observations", obs),
        ("invocations", ", ".join(f"{k} {v}" for k, v in ev.invocations_by_event.items()) or "none"),
        ("model requests", ev.model_request_count),
        ("wall", f"{ev.cli.wall_s:.2f}s" + (" (budget hit)" if ev.cli.timed_out else "")),
        *(
            [("repeats", ", ".join(f"{o} x{n}" for o, n in repeats["outcomes"].items()) + f" in {repeats['runs']} runs")]
            if repeats
            else []
        ),
        ("network", f"{ev.network} ({ev.backend})"),
        *[("claim", claim_line(c)) for c in ev.claims if applies_recorded(c)],
        ("evidence", str(path)),
    ]
    return tabulate(rows, tablefmt="plain")


def cmd_list(args: argparse.Namespace) -> int:
    """The catalog; --json adds what each recipe's classifier shows in a table (its key
    observation) and the parts of the session it reads, from the classifier registry."""
    from probes.catalog.recipes import load_all
    from probes.classify import CLASSIFIERS

    recipes = load_all().values()
    if args.json:
        rows = [
            {
                "name": r.name,
                "question": r.question,
                "agents": r.agents,
                "events": r.canonical_events(),
                "control": r.control,
                "control_of": r.control_of,
                "classifier": r.classifier,
                "key_observation": CLASSIFIERS[r.classifier].key,
                "reads": list(CLASSIFIERS[r.classifier].reads),
                "surface": r.surface,
                "mode": r.mode,
                "compare_with": r.compare_with,
            }
            for r in recipes
        ]
        print(json.dumps(rows, indent=2))
    else:
        print(
            tabulate(
                [(r.name, ",".join(r.agents), control_text(r), r.question) for r in recipes],
                headers=["recipe", "agents", "control", "question"],
            )
        )
    return 0


def control_text(r: Recipe) -> str:
    if r.control_of:
        return f"(control of {r.control_of})"
    c = r.control
    return c if isinstance(c, str) else ", ".join(f"{a}: {n}" for a, n in (c or {}).items())


def cmd_versions(args: argparse.Namespace) -> int:
    from probes.sweep.bump import probed_versions
    from probes.versions.install import installed_versions
    from probes.versions.spec import marked, published

    agent = agent_named(args.agent)
    table = marked(published(agent.package), probed_versions(Path(args.results), agent.name), installed_versions(agent))
    if args.json:
        print(json.dumps(table, indent=2))
    else:
        marks = ("latest", "probed", "cached", "prerelease", "unserved")
        print(
            tabulate(
                [(r["version"], *(m.replace("prerelease", "pre-release") if r[m] else "" for m in marks)) for r in table],
                headers=["version", *[""] * len(marks)],
            )
        )
    return 0


# ---------------------------------------------------------------- committed evidence


def cmd_reclassify(args: argparse.Namespace) -> int:
    """Label committed evidence again with the current classifiers (no CLI is run)."""
    from probes.catalog.recipes import load_all
    from probes.evidence.model import SCHEMA_VERSION
    from probes.evidence.reclassify import reclassify

    changed = upgraded = 0
    for r in reclassify(Path(args.results), load_all()):
        if r.relabelled:
            changed += 1
            print(f"{r.path}: {r.before} -> {r.after}" if r.after != r.before else f"{r.path}: observations")
        else:
            upgraded += 1
            print(f"{r.path}: upgraded (schema_version {SCHEMA_VERSION}, stored compact)")
    print(f"{changed} record(s) changed" + (f", {upgraded} upgraded" if upgraded else ""))
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    from probes.catalog.recipes import load_all
    from probes.report import tables

    results = Path(args.results)
    out = Path(args.output or results / "index.html")
    if args.grid and args.format != "markdown":
        raise InputError(f"--grid is a markdown layout: --format {args.format} has none (json lists every record)")
    if args.format == "html" and args.output:  # refused before anything is read or written
        if out.is_dir():
            raise InputError(f"--output {out} is a directory: name the file to write")
        if not out.parent.is_dir():
            raise InputError(f"--output {out}: no directory {out.parent}")
    cells = tables.load(results, args.agent, args.recipe)
    if not cells:
        raise InputError(f"no evidence in {results} for {args.agent or 'any agent'} {args.recipe or ''}".rstrip())
    recipes = load_all()
    classifiers = {name: r.classifier for name, r in recipes.items()}
    pairs = {name: r.compare_with for name, r in recipes.items() if r.compare_with}  # extension -> command-hook recipe
    known = tables.known_candidates(results, sorted({c.agent for c in cells}))  # the registry snapshots
    if args.format == "json":
        print(tables.as_json(cells), end="")
    elif args.format == "html":
        from probes.evidence.model import write_atomic
        from probes.report.page import html_page

        write_atomic(
            out,
            html_page(cells, classifiers, out.parent, known),
            "table",
            "check --output" if args.output else "check the results directory",
        )
        print(out)
    else:
        print(tables.markdown(cells, classifiers, pairs, known, args.grid), end="")
    if not (args.agent or args.recipe):  # the index covers everything, so only a full table writes it
        tables.write_index(results, cells, classifiers, pairs, known)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from probes.report import tables

    a, b = spec_of(args.a, exact=True), spec_of(args.b, exact=True)
    if a.agent != b.agent:
        raise InputError(f"diff compares two versions of one agent, not {a.agent} and {b.agent}")
    cells = tables.load(Path(args.results), a.agent)
    changes = tables.diff(cells, a.agent, a.version, b.version, args.timings)
    if args.json:
        print(json.dumps(changes, indent=2, sort_keys=True))
    else:
        print(tables.diff_text(changes, a.agent, a.version, b.version, tables.compared(cells, a.agent, a.version, b.version)))
    return 0


def cmd_cite(args: argparse.Namespace) -> int:
    from probes.report import tables
    from probes.report.cite import cite

    s = spec_of(args.spec, exact=True)
    cells = tables.load(Path(args.results), s.agent, args.recipe, s.version, strict=True)
    if not cells:
        raise InputError(
            f"no evidence for {args.spec} {args.recipe} in {args.results}: run `probe run {args.spec} {args.recipe}` first"
        )
    print(cite(cells[0], Path(args.results)), end="")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from probes.evidence.schema import evidence_schema_text

    print(evidence_schema_text(), end="")
    return 0


# ---------------------------------------------------------------- many cells


def cmd_matrix(args: argparse.Namespace) -> int:
    from probes.sweep import matrix

    agent = agent_named(args.agent)
    recipe_named(args.recipe, or_all=True)
    cells = matrix.plan(agent.name, args.versions, args.recipe)
    if args.shard:
        cells = matrix.shard(cells, *args.shard)
    if args.dry_run:
        if args.json:
            print(json.dumps(matrix.as_dicts(cells), indent=2))
        else:
            print(tabulate([(c.spec, c.recipe) for c in cells], headers=["cell", "recipe"]))
        return 0
    from probes.evidence.model import check_writable

    Path(args.results).mkdir(parents=True, exist_ok=True)
    check_writable(Path(args.results))
    cells = matrix.run(cells, Path(args.results), args.jobs, args.repeat)
    failed = [c for c in cells if c.status != "done"]
    if args.json:
        print(json.dumps(matrix.as_dicts(cells), indent=2))
    else:
        print(f"{len(cells) - len(failed)} of {len(cells)} cells ran; evidence in {args.results}")
        if failed:
            print(tabulate([(c.spec, c.recipe, c.reason) for c in failed], headers=["could not run", "recipe", "why"]))
    return 1 if failed else 0


def cmd_bump(args: argparse.Namespace) -> int:
    """Plan, run and report each agent's new releases; the exit status says what changed
    (bump.Night.exit_status)."""
    from probes.sweep import bump

    if not (args.plan or args.agent):
        raise UsageError("bump needs --agent or --plan")
    agents = [agent_named(a).name for a in args.agent or ()]
    if not args.plan:
        recipe_named(args.recipe, or_all=True)
    plans = bump.plans(
        Path(args.results),
        agents or None,
        Path(args.plan) if args.plan else None,
        args.start,
        args.recipe,
        args.prereleases,
        args.versions,
        args.shard,
    )
    if args.dry_run:
        if args.json:
            print(json.dumps({"plans": [p.summary() for p in plans], "matrix": bump.github_matrix(plans, args.shards)}, indent=2))
        else:
            print(
                tabulate(
                    [(p.agent, p.start, p.baseline or "-", ", ".join(p.versions) or "-", len(p.cells), p.already) for p in plans],
                    headers=["agent", "after", "baseline", "new versions", "cells to run", "already probed"],
                )
            )
        return 0
    night = bump.probe_and_report(plans, Path(args.results), args.jobs, args.report_only, args.link_base)
    if args.json:
        print(json.dumps({"plans": night.docs, "verdicts_changed": night.changed, "report": "\n".join(night.reports)}, indent=2))
    else:
        print("\n".join(night.reports), end="")
    return night.exit_status


def cmd_merge(args: argparse.Namespace) -> int:
    from probes.evidence.merge import merge

    if "" in args.dirs:
        raise UsageError("merge DIR: a directory, not ''")
    written, same = merge([Path(d) for d in args.dirs], Path(args.results), args.replace)
    print(f"{written} record(s) merged into {args.results}" + (f", {same} already there" if same else ""))
    return 0


# ---------------------------------------------------------------- commands kept in their modules


def cmd_bisect(args: argparse.Namespace) -> int:
    from probes.sweep.bisect import cmd_bisect as command  # imported when called: `probe run` starts without it

    return command(args)


def cmd_timeline(args: argparse.Namespace) -> int:
    from probes.sweep.fill import cmd_timeline as command

    return command(args)


def cmd_check(args: argparse.Namespace) -> int:
    from probes.check.core import cmd_check as command

    return command(args)


def cmd_cache(args: argparse.Namespace) -> int:
    from probes.versions.cache import cmd_cache as command

    return command(args)


def cmd_recorder(args: argparse.Namespace) -> int:
    from probes.commands.recorder import cmd_recorder as command

    return command(args)


def cmd_import(args: argparse.Namespace) -> int:
    from probes.commands.recorder import cmd_import as command

    return command(args)


# ---------------------------------------------------------------- the parser


def parser() -> argparse.ArgumentParser:
    """Every command and its options (options.parser), each calling its cmd_ function."""
    return options.parser(
        {
            "run": cmd_run,
            "check": cmd_check,
            "list": cmd_list,
            "matrix": cmd_matrix,
            "bump": cmd_bump,
            "merge": cmd_merge,
            "table": cmd_table,
            "diff": cmd_diff,
            "bisect": cmd_bisect,
            "timeline": cmd_timeline,
            "cite": cmd_cite,
            "reclassify": cmd_reclassify,
            "schema": cmd_schema,
            "versions": cmd_versions,
            "cache": cmd_cache,
            "recorder": cmd_recorder,
            "import": cmd_import,
        }
    )


def main(argv: list[str] | None = None) -> int:
    # SIGINT and SIGTERM (Ctrl-C, `timeout`, a cancelled CI job) raise Interrupted once, in
    # this process only; every command unwinds from it within a bound (stopping.py)
    stopper = on_stop_signals()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `probe cite ... | head`: end quietly, as other tools do
    try:
        try:
            args = parser().parse_args(argv)
            status: int = args.func(args)
            held = stopper.settle()
            if held:  # taken during a run directory's removal, and the command ended meanwhile
                raise Interrupted(held)
            return status
        except UsageError as e:
            print(f"probe: {e} (see probe --help)", file=sys.stderr)
            return Exit.INPUT
        except ProbeError as e:
            print(f"probe: {e}", file=sys.stderr)
            return e.exit_code
        except Exception as e:  # a bug: still one line (PROBE_DEBUG=1 shows the traceback)
            if os.environ.get("PROBE_DEBUG"):
                raise
            what = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            print(f"probe: internal error ({what}); PROBE_DEBUG=1 shows where", file=sys.stderr)
            return Exit.HARNESS
    except KeyboardInterrupt as e:  # also one that came while an error above was being said
        name = e.name if isinstance(e, Interrupted) else "SIGINT"
        print(f"probe: interrupted ({name}); no evidence written for the unfinished probe", file=sys.stderr, flush=True)
        return Exit.INTERRUPTED
    finally:
        if argv is None:  # the command line's own process: the interpreter's exit resets handlers to
            for s in STOPPING:  # the default (a signal now would end it as killed), but not SIG_IGN
                signal.signal(s, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
