"""`probe run AGENT@VERSION RECIPE`: one recipe against one CLI version, and its summary."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from probes import progress
from probes.agents import AGENTS
from probes.backends import BACKENDS
from probes.catalog.names import recipe_named
from probes.catalog.setup import base_of, parse_pairs, setup_line
from probes.commands.options import add_json, add_progress, add_repeat, add_results, add_setup
from probes.errors import Exit
from probes.versions.named import spec_of

if TYPE_CHECKING:
    from probes.evidence.model import Evidence


def add_arguments(r: argparse.ArgumentParser) -> None:
    agents = " or ".join(AGENTS)
    r.add_argument("spec", metavar="AGENT@VERSION", help=f"AGENT is {agents}; VERSION an exact published version or latest")
    r.add_argument("recipe", help="recipe name (see `probe list`)")
    r.add_argument(
        "--backend",
        choices=sorted(BACKENDS),
        default="local",
        help="where the session runs: local, in namespaces on this host (the default), or docker, "
        "in a container (docs/backends.md)",
    )
    add_results(r)
    add_json(r, "print the evidence record on stdout")
    add_repeat(r, "run the probe N times")
    add_setup(r)
    r.add_argument(
        "--update", action="store_true", help="rewrite the stored record even when only measured numbers (timings) changed"
    )
    add_progress(r)


def handle(args: argparse.Namespace) -> int:
    """With --repeat N, N probes; --json then prints a JSON array of their records."""
    s = spec_of(args.spec)
    recipe_named(args.recipe)  # before the registry is asked or anything installed
    setup = parse_pairs(args.setup)
    # the pipeline (run directories, the installer, the runner's hook): imported when a probe
    # runs, so `probe run --help` and a mistyped name answer as fast as before
    from probes.pipeline.run import probe_repeated

    progress.enable(args.progress)
    records, path, written = probe_repeated(
        str(s), args.recipe, Path(args.results), args.backend, args.repeat, setup, update=args.update
    )
    if not args.json:
        print(summary(records[-1], path, kept=not written))
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


def wall_line(ev: Evidence) -> str:
    """The whole wait, then its parts: the CLI's session, the install (when one ran) and the
    harness's own share."""
    budget = " (budget hit)" if ev.cli.timed_out else ""
    h = ev.harness
    if h is None:  # a record made before the phases were timed
        return f"CLI session {ev.cli.wall_s:.1f}s{budget}"
    install = getattr(h, "install_s", None)
    cached = "install 0s (cached)" if not install else f"install {install:.1f}s"
    own = max(0.0, h.total_s - h.cli_s - (install or 0.0))
    return f"{h.total_s:.1f}s in all: CLI session {h.cli_s:.1f}s{budget}, {cached}, harness {own:.1f}s"


def summary(ev: Evidence, path: Path | str, kept: bool = False) -> str:
    """The answer in a sentence, then the facts it rests on, one per row (the names stay:
    docs/commands.md); wrapped to the terminal, whole when piped."""
    # after the run, as claim_line's
    from tabulate import tabulate

    from probes.catalog import recipes
    from probes.evidence.claims import applies_recorded
    from probes.report.answer import answer
    from probes.report.cells import short
    from probes.report.width import columns, wrap

    version = ev.executed_version or "unknown"
    if ev.version_mismatch:
        version += f"   <-- MISMATCH: asked for {ev.requested_version}"
    obs = ", ".join(f"{k}={short(v, as_json=False)}" for k, v in ev.observations.items() if not isinstance(v, (dict, list)))
    repeats = ev.repeats or {}
    where = f"{path} (kept: only timings differ; --update rewrites it)" if kept else str(path)
    rows: list[tuple[str, object]] = [
        ("answer", answer(ev, recipes.get(base_of(ev.recipe)).classifier)),
        ("agent", ev.agent),
        ("requested", ev.requested_version),
        ("executed", version),
        ("recipe", ev.recipe),
        *([("setup", setup_line(ev.setup, ev.setup_key))] if ev.setup else []),
        ("outcome", ev.outcome),
        ("invocations", ", ".join(f"{k} {v}" for k, v in ev.invocations_by_event.items()) or "none"),
        ("model requests", ev.model_request_count),
        ("wall", wall_line(ev)),
        *(
            [("repeats", ", ".join(f"{o} x{n}" for o, n in repeats["outcomes"].items()) + f" in {repeats['runs']} runs")]
            if repeats
            else []
        ),
        ("network", f"{ev.network} ({ev.backend})"),
        *[("claim", claim_line(c)) for c in ev.claims if applies_recorded(c)],
        ("observations", obs + " (all: --json)"),
        ("evidence", where),
    ]
    width = columns()
    pad = max(len(name) for name, _ in rows) + 2
    if width is None:
        return tabulate(rows, tablefmt="plain")
    # tabulate pads the first column; each value is then filled to what is left of the width
    return "\n".join(wrap(f"{name:<{pad}}{value}", width, indent=" " * pad) for name, value in rows)
