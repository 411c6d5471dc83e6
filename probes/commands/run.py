"""`probe run AGENT@VERSION RECIPE`: one recipe against one CLI version, and its summary."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes.agents import AGENTS
from probes.backends import BACKENDS
from probes.catalog.names import recipe_named
from probes.catalog.setup import parse_pairs, setup_line
from probes.commands.options import add_json, add_repeat, add_results, add_setup
from probes.errors import Exit
from probes.versions.named import spec_of

if TYPE_CHECKING:
    from probes.evidence.model import Evidence


def add_arguments(r: argparse.ArgumentParser) -> None:
    agents = " or ".join(AGENTS)
    r.add_argument("spec", metavar="AGENT@VERSION", help=f"AGENT is {agents}; VERSION an exact published version or latest")
    r.add_argument("recipe", help="recipe name (see `probe list`)")
    r.add_argument("--backend", choices=sorted(BACKENDS), default="local")
    add_results(r)
    add_json(r, "print the evidence record on stdout")
    add_repeat(r, "run the probe N times")
    add_setup(r)


def handle(args: argparse.Namespace) -> int:
    """With --repeat N, N probes; --json then prints a JSON array of their records."""
    s = spec_of(args.spec)
    recipe_named(args.recipe)  # before the registry is asked or anything installed
    setup = parse_pairs(args.setup)
    # the pipeline (run directories, the installer, the runner's hook): imported when a probe
    # runs, so `probe run --help` and a mistyped name answer as fast as before
    from probes.pipeline.run import probe_repeated

    records, path = probe_repeated(str(s), args.recipe, Path(args.results), args.backend, args.repeat, setup)
    if not args.json:
        print(summary(records[-1], path))
    elif args.repeat == 1:
        print(records[0].to_json(), end="")
    else:
        print("[\n" + ",\n".join(r.to_json().rstrip() for r in records) + "\n]")
    return Exit.OK


def claim_line(c: dict[str, Any]) -> str:
    """A claim as the run summary shows it: the verdict, and why unless it agrees."""
    # the claims, tables and tabulate load the evidence models (pydantic): imported once the
    # run is done, so `probe run` starts the runner without them (pipeline/run.py)
    from probes.evidence.claims import verdict_of

    verdict = verdict_of(c)
    why = f" ({c['reason']})" if verdict != "agrees" and c.get("reason") else ""
    return f"{verdict if verdict != 'disagrees' else 'DISAGREES'}: {c['source']}: {c['says']}{why}"


def summary(ev: Evidence, path: Path | str) -> str:
    # after the run, as claim_line's
    from tabulate import tabulate

    from probes.evidence.claims import applies_recorded
    from probes.report.cells import short

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
        *([("setup", setup_line(ev.setup, ev.setup_key))] if ev.setup else []),
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
