"""The command line: parse, call, print. Errors become one line and an exit code here alone."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from . import __version__
from .backends import BACKENDS
from .errors import InputError, ProbeError
from .limits import MAX_JOBS, MAX_REPEAT, MAX_SHARDS


def tabulate(*args, **kwargs) -> str:
    from tabulate import tabulate as render  # imported when a table is printed, not at start-up

    return render(*args, **kwargs)


def cmd_run(args) -> int:
    """With --repeat N, N probes; --json then prints a JSON array of their records."""
    from .run import probe_repeated

    records, path = probe_repeated(args.spec, args.recipe, Path(args.results), args.backend, args.repeat)
    if not args.json:
        print(summary(records[-1], path))
    else:
        one = records[0].to_json() if args.repeat == 1 else None
        print(one or "[\n" + ",\n".join(r.to_json().rstrip() for r in records) + "\n]", end="" if one else "\n")
    return 0


def summary(ev, path: Path) -> str:
    version = ev.executed_version or "unknown"
    if ev.version_mismatch:
        version += f"   <-- MISMATCH: asked for {ev.requested_version}"
    obs = ", ".join(f"{k}={_short(v)}" for k, v in ev.observations.items() if not isinstance(v, (dict, list)))
    rows = [
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
            [("repeats", ", ".join(f"{o} x{n}" for o, n in ev.repeats["outcomes"].items()) + f" in {ev.repeats['runs']} runs")]
            if ev.repeats
            else []
        ),
        ("network", f"{ev.network} ({ev.backend})"),
        *[
            ("claim", f"{'agrees' if c['agrees'] else 'DISAGREES'}: {c['source']}: {c['says']}")
            for c in ev.claims
            if c["agrees"] is not None
        ],
        ("evidence", str(path)),
    ]
    return tabulate(rows, tablefmt="plain")


def _short(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def cmd_list(args) -> int:
    from .recipes import load_all

    rows = [
        {
            "name": r.name,
            "question": r.question,
            "agents": r.agents,
            "events": r.canonical_events(),
            "control": r.control,
            "control_of": r.control_of,
            "classifier": r.classifier,
            "surface": r.surface,
            "mode": r.mode,
            "compare_with": r.compare_with,
        }
        for r in load_all().values()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(
            tabulate(
                [(r["name"], ",".join(r["agents"]), _control(r), r["question"]) for r in rows],
                headers=["recipe", "agents", "control", "question"],
            )
        )
    return 0


def _control(r: dict) -> str:
    if r["control_of"]:
        return f"(control of {r['control_of']})"
    c = r["control"]
    return c if isinstance(c, str) else ", ".join(f"{a}: {n}" for a, n in c.items())


def cmd_versions(args) -> int:
    from .agents import get
    from .bump import probed_versions
    from .install import installed_versions
    from .spec import marked, published

    agent = get(args.agent)
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


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, from main(), not argparse's usage block
        raise _Usage(message)


def cmd_reclassify(args) -> int:
    """Label committed evidence again with the current classifiers (no CLI is run)."""
    from .claims import judge
    from .classify import SESSION_KEYS, label
    from .evidence import Evidence, load_evidence, write_atomic
    from .limits import warn
    from .recipes import load_all

    recipes, changed = load_all(), 0
    results = Path(args.results)
    if not results.is_dir():
        raise InputError(f"no results directory {results}: run a probe first, or pass --results")
    for path in sorted(results.glob("*/*/*.json")):
        try:
            ev = Evidence.model_validate(load_evidence(path))
        except InputError as e:
            warn(f"skipping {e}")
            continue
        recipe = recipes.get(ev.recipe)
        if recipe is None:
            continue
        data = ev.model_dump(mode="json")
        try:
            outcome, obs = label(recipe.classifier, {k: data[k] for k in SESSION_KEYS})
            claims = judge(recipe.claims, ev.agent, ev.executed_version, outcome, obs)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            # a record that fits the schema but not its classifier: name it, label the rest
            warn(f"skipping {path}: cannot be labelled again ({type(e).__name__}: {e})")
            continue
        if (outcome, obs, claims) != (ev.outcome, ev.observations, ev.claims):
            changed += 1
            print(f"{path}: {ev.outcome} -> {outcome}" if outcome != ev.outcome else f"{path}: observations")
            new = ev.model_copy(update={"outcome": outcome, "observations": obs, "claims": claims})
            write_atomic(path, Evidence.model_validate_json(new.model_dump_json()).to_json())
    print(f"{changed} record(s) changed")
    return 0


def _classifiers() -> dict[str, str]:
    from .recipes import load_all

    return {name: r.classifier for name, r in load_all().items()}


def _pairs() -> dict[str, str]:
    """Extension recipe -> the command-hook recipe asking the same question."""
    from .recipes import load_all

    return {name: r.compare_with for name, r in load_all().items() if r.compare_with}


def cmd_table(args) -> int:
    from . import tables

    results = Path(args.results)
    out = Path(args.output or results / "index.html")
    if args.format == "html" and args.output:  # refused before anything is read or written
        if out.is_dir():
            raise InputError(f"--output {out} is a directory: name the file to write")
        if not out.parent.is_dir():
            raise InputError(f"--output {out}: no directory {out.parent}")
    cells = tables.load(results, args.agent, args.recipe)
    if not cells:
        raise InputError(f"no evidence in {results} for {args.agent or 'any agent'} {args.recipe or ''}".rstrip())
    classifiers = _classifiers()
    if args.format == "json":
        print(tables.as_json(cells), end="")
    elif args.format == "html":
        from .evidence import write_atomic

        write_atomic(
            out,
            tables.html_page(cells, classifiers, out.parent),
            "table",
            "check --output" if args.output else "check the results directory",
        )
        print(out)
    else:
        print(tables.markdown(cells, classifiers, _pairs()), end="")
    if not (args.agent or args.recipe):  # the index covers everything, so only a full table writes it
        tables.write_index(results, cells, classifiers, _pairs())
    return 0


def _split_spec(text: str):
    from .agents import AGENTS
    from .spec import parse_spec

    s = parse_spec(text, AGENTS)
    if s.version == "latest":
        raise InputError(f"{text}: name an exact version (see `probe versions {s.agent}`)")
    return s


def cmd_diff(args) -> int:
    from . import tables

    a, b = _split_spec(args.a), _split_spec(args.b)
    if a.agent != b.agent:
        raise InputError(f"diff compares two versions of one agent, not {a.agent} and {b.agent}")
    cells = tables.load(Path(args.results), a.agent)
    changes = tables.diff(cells, a.agent, a.version, b.version, args.timings)
    if args.json:
        print(json.dumps(changes, indent=2, sort_keys=True))
    else:
        print(tables.diff_text(changes, a.agent, a.version, b.version, tables.compared(cells, a.agent, a.version, b.version)))
    return 0


def cmd_cite(args) -> int:
    from . import tables

    s = _split_spec(args.spec)
    cells = tables.load(Path(args.results), s.agent, args.recipe, s.version, strict=True)
    if not cells:
        raise InputError(
            f"no evidence for {args.spec} {args.recipe} in {args.results}: run `probe run {args.spec} {args.recipe}` first"
        )
    print(tables.cite(cells[0], _classifiers().get(args.recipe)), end="")
    return 0


def cmd_matrix(args) -> int:
    from . import matrix

    part = matrix.parse_shard(args.shard) if args.shard else None  # before the registry is asked
    cells = matrix.plan(args.agent, args.versions, args.recipe)
    if part:
        cells = matrix.shard(cells, *part)
    if args.dry_run:
        if args.json:
            print(json.dumps(matrix.as_dicts(cells), indent=2))
        else:
            print(tabulate([(c.spec, c.recipe) for c in cells], headers=["cell", "recipe"]))
        return 0
    Path(args.results).mkdir(parents=True, exist_ok=True)
    from .evidence import check_writable

    check_writable(Path(args.results))
    cells = matrix.run(cells, Path(args.results), args.jobs or matrix.default_jobs(), args.repeat)
    failed = [c for c in cells if c.status != "done"]
    if args.json:
        print(json.dumps(matrix.as_dicts(cells), indent=2))
    else:
        print(f"{len(cells) - len(failed)} of {len(cells)} cells ran; evidence in {args.results}")
        if failed:
            print(tabulate([(c.spec, c.recipe, c.reason) for c in failed], headers=["could not run", "recipe", "why"]))
    return 1 if failed else 0


def cmd_bump(args) -> int:
    """Plan, run and report each agent's new releases. Exit VERDICTS_CHANGED when a label
    changed, 1 when cells failed and nothing changed, 0 otherwise."""
    from . import bump, matrix
    from .evidence import check_writable

    results = Path(args.results)
    if not 1 <= args.shards <= MAX_SHARDS:
        raise _Usage(f"--shards must be from 1 to {MAX_SHARDS}")
    part = matrix.parse_shard(args.shard) if args.shard else None  # before the registry is asked
    if args.plan:
        plans = bump.from_file(Path(args.plan), results, args.agent)
    elif args.agent:
        plans = [
            bump.plan(a, results, args.start, args.recipe, args.prereleases, args.versions) for a in dict.fromkeys(args.agent)
        ]
    else:
        raise _Usage("bump needs --agent or --plan")
    if part:
        for p in plans:
            p.cells = matrix.shard(p.cells, *part)
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
    if any(p.cells for p in plans) and not args.report_only:
        results.mkdir(parents=True, exist_ok=True)
        check_writable(results)
    reports, docs, changed, failed = [], [], 0, 0
    for p in plans:
        if args.report_only:
            for c in p.cells:
                c.status, c.reason = "failed", "no evidence (its job did not deliver it)"
            done = p.cells
        else:
            done = matrix.run(p.cells, results, args.jobs or matrix.default_jobs()) if p.cells else []
        bad = [c for c in done if c.status != "done"]
        steps = bump.compare(p, results)
        reports.append(bump.report(p, steps, bad, results, args.link_base))
        docs.append(bump.as_json(p, steps, bad))
        changed += docs[-1]["verdicts_changed"]
        failed += len(bad)
    if args.json:
        print(json.dumps({"plans": docs, "verdicts_changed": changed, "report": "\n".join(reports)}, indent=2))
    else:
        print("\n".join(reports), end="")
    return bump.VERDICTS_CHANGED if changed else 1 if failed else 0


def cmd_merge(args) -> int:
    from .merge import merge

    if "" in args.dirs:
        raise _Usage("merge DIR: a directory, not ''")
    written, same = merge([Path(d) for d in args.dirs], Path(args.results), args.replace)
    print(f"{written} record(s) merged into {args.results}" + (f", {same} already there" if same else ""))
    return 0


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="probe", description="Empirical probes of AI coding-agent CLI hook systems.")
    p.add_argument("--version", action="version", version=f"probe {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one recipe against one CLI version")
    r.add_argument("spec", metavar="AGENT@VERSION", help="e.g. copilot@1.0.92, claude@latest")
    r.add_argument("recipe", help="recipe name (see `probe list`)")
    r.add_argument("--backend", choices=sorted(BACKENDS), default="local")
    r.add_argument("--results", default="results", help="evidence directory (default: ./results)")
    r.add_argument("--json", action="store_true", help="print the evidence record on stdout")
    r.add_argument("--repeat", type=int, default=1, help="run the probe N times")
    r.set_defaults(func=cmd_run)

    ls = sub.add_parser("list", help="recipes, with the agents each applies to")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=cmd_list)

    m = sub.add_parser("matrix", help="run recipes across versions of an agent, in parallel")
    m.add_argument("--agent", required=True)
    m.add_argument("--versions", required=True, help="LIST (1.0.80,1.0.81), RANGE (1.0.80..1.0.92) or latest:N")
    m.add_argument("--recipe", default="all", help="a recipe name, or all (default)")
    m.add_argument("--jobs", type=int, default=0, help="worker processes (default: the number of cores)")
    m.add_argument("--repeat", type=int, default=1, help="runs per cell; the table shows the spread")
    m.add_argument("--results", default="results")
    m.add_argument("--shard", metavar="I/N", help="run only slice I of N (disjoint, balanced by expected cost)")
    m.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_matrix)

    b = sub.add_parser(
        "bump",
        help="probe the releases newer than the newest probed one; report what changed",
        description="Probe each agent's releases newer than the newest probed one (or --from), "
        "then compare each with the release before it. Exit 3 when a verdict "
        "changed, 1 when cells failed and none changed, 0 otherwise.",
    )
    b.add_argument("--agent", action="append", help="repeat for several agents")
    b.add_argument(
        "--plan",
        metavar="FILE",
        help="the output of `bump --dry-run --json`: probe and report exactly its versions (with --agent, only those agents')",
    )
    b.add_argument("--from", dest="start", metavar="VERSION", help="probe versions newer than this one")
    b.add_argument("--versions", help="exactly these (LIST or RANGE) instead of every newer release")
    b.add_argument("--recipe", default="all", help="a recipe name, or all (default)")
    b.add_argument("--prereleases", action="store_true", help="include pre-releases")
    b.add_argument("--results", default="results")
    b.add_argument("--jobs", type=int, default=0, help="worker processes (default: the number of cores)")
    b.add_argument("--link-base", default="", help="prefix for evidence links in the report (e.g. a blob URL)")
    b.add_argument("--shard", metavar="I/N", help="run only slice I of N of the cells (a CI job's share)")
    b.add_argument("--shards", type=int, default=1, help="with --dry-run --json: split each agent's cells into N CI jobs")
    b.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")
    b.add_argument(
        "--report-only",
        action="store_true",
        help="report from the evidence in --results, run nothing; missing cells count as failed",
    )
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bump)

    mg = sub.add_parser("merge", help="combine evidence trees (e.g. shards) into one results tree")
    mg.add_argument("dirs", nargs="+", metavar="DIR")
    mg.add_argument("--results", default="results", help="the tree to merge into (default: ./results)")
    mg.add_argument("--replace", action="store_true", help="merged records replace different ones already there")
    mg.set_defaults(func=cmd_merge)

    t = sub.add_parser("table", help="committed evidence as a recipe x version table")
    t.add_argument("--results", default="results")
    t.add_argument("--agent")
    t.add_argument("--recipe")
    t.add_argument("--format", choices=["markdown", "json", "html"], default="markdown")
    t.add_argument("--output", help="where --format html writes (default: RESULTS/index.html)")
    t.set_defaults(func=cmd_table)

    d = sub.add_parser("diff", help="what changed between two versions of an agent")
    d.add_argument("a", metavar="AGENT@V1")
    d.add_argument("b", metavar="AGENT@V2")
    d.add_argument("--results", default="results")
    d.add_argument("--timings", action="store_true", help="also list timing observations (*_s)")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=cmd_diff)

    ci = sub.add_parser("cite", help="a Markdown block an ADR can paste")
    ci.add_argument("spec", metavar="AGENT@VERSION")
    ci.add_argument("recipe")
    ci.add_argument("--results", default="results")
    ci.set_defaults(func=cmd_cite)

    rc = sub.add_parser("reclassify", help="label committed evidence again with the current classifiers")
    rc.add_argument("--results", default="results")
    rc.set_defaults(func=cmd_reclassify)

    v = sub.add_parser("versions", help="versions of an agent: latest, probed, cached, pre-release, unserved")
    v.add_argument("agent")
    v.add_argument("--results", default="results", help="where probed versions are looked up")
    v.add_argument("--json", action="store_true")
    v.set_defaults(func=cmd_versions)
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        args = p.parse_args(argv)
        # Bounds, so a typo cannot ask for a billion workers, runs or shards.
        if not 1 <= getattr(args, "repeat", 1) <= MAX_REPEAT:
            raise _Usage(f"--repeat must be from 1 to {MAX_REPEAT}")
        if not 0 <= getattr(args, "jobs", 0) <= MAX_JOBS:
            raise _Usage(f"--jobs must be from 1 to {MAX_JOBS}")
        if getattr(args, "results", None) == "":  # Path('') is the current directory
            raise _Usage("--results needs a directory, not ''")
        return args.func(args)
    except _Usage as e:
        print(f"probe: {e} (see probe --help)", file=sys.stderr)
        return 2
    except ProbeError as e:
        print(f"probe: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("probe: interrupted; no evidence written for the unfinished probe", file=sys.stderr)
        return 130
    except Exception as e:  # a bug: still one line (PROBE_DEBUG=1 shows the traceback)
        if os.environ.get("PROBE_DEBUG"):
            raise
        what = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        print(f"probe: internal error ({what}); PROBE_DEBUG=1 shows where", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
