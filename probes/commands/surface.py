"""`probe surface AGENT@VERSION`: the hook surface an installed version declares, read from the
package itself (docs/surface.md); `--diff AGENT@V1 AGENT@V2`: items added and removed;
`--coverage`: each declared event, handler type and field beside the recipes that probe it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from probes.commands.options import add_json, add_results
from probes.errors import Exit, InputError
from probes.surface.model import KINDS, PLURAL, Surface


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("specs", nargs="+", metavar="AGENT@VERSION", help="one version; two with --diff")
    p.add_argument("--diff", action="store_true", help="compare two versions of one agent: items added and removed")
    p.add_argument(
        "--coverage", action="store_true", help="each declared event, handler type and field beside the recipes that probe it"
    )
    p.add_argument(
        "--save",
        action="store_true",
        help="also write the events, handler types and fields and decision fields read to RESULTS/AGENT/surface-VERSION.json "
        "(what probe table's coverage reads)",
    )
    add_results(p, "evidence directory --coverage looks in and --save writes to (default: ./results)")
    add_json(p)


def load(text: str) -> Surface:
    """Install the version (cached) and read its surface (cached)."""
    from probes.pipeline.run import resolve  # the registry and the installer: only now
    from probes.surface.read import check_agent, surface
    from probes.versions.install import install
    from probes.versions.named import spec_of

    spec = spec_of(text)
    check_agent(spec.agent)
    agent, _, version = resolve(str(spec))
    return surface(agent, version, install(agent, version))


def surface_text(s: Surface) -> str:
    counts = s.counts()
    lines = [f"{s.agent} {s.version}: " + ", ".join(f"{counts[k]} {PLURAL[k]}" for k in KINDS)]
    for kind in KINDS:
        items = s.of(kind)
        if items:
            lines.append(f"{PLURAL[kind]}:")
            lines += [f"  {i.name:<36} {i.where()}{'  (heuristic)' if i.heuristic else ''}" for i in items]
    lines += [f"note: {n}" for n in s.notes]
    return "\n".join(lines)


def handle(args: argparse.Namespace) -> int:
    if args.diff and args.coverage:
        raise InputError("--diff and --coverage are separate views: give one")
    if args.save and args.diff:
        raise InputError("--save writes one version's surface: not with --diff")
    want = 2 if args.diff else 1
    if len(args.specs) != want:
        raise InputError(
            "--diff compares two versions: AGENT@V1 AGENT@V2"
            if args.diff
            else "surface reads one AGENT@VERSION (two with --diff)"
        )
    if args.diff:
        from probes.surface.diff import diff_text, surface_diff
        from probes.versions.named import spec_of

        a, b = (spec_of(t) for t in args.specs)
        if a.agent != b.agent:
            raise InputError(f"--diff compares two versions of one agent, not {a.agent} and {b.agent}")
        d = surface_diff(load(args.specs[0]), load(args.specs[1]))
        print(json.dumps(d, indent=2) if args.json else diff_text(d))
        return Exit.OK
    s = load(args.specs[0])
    if args.save:
        from probes.surface.saved import save

        print(f"probe: saved {save(s, Path(args.results))}", file=sys.stderr)
    if args.coverage:
        from probes.catalog.recipes import load_all
        from probes.surface.coverage import coverage, coverage_text

        c = coverage(s, load_all(), Path(args.results))
        print(json.dumps(c, indent=2) if args.json else coverage_text(c))
        return Exit.OK
    print(s.model_dump_json(indent=2, exclude_none=True) if args.json else surface_text(s))
    return Exit.OK
