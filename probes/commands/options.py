"""The command line's parser, its shared options and its argument checks. A bad value ends
as one line (UsageError, exit 2, from cli.main) instead of argparse's usage block: counts
are checked by their option's type while parsing, names (agents, recipes, specs) by the
command before it asks a registry or runs anything, with the nearest names."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NoReturn

from probes import __version__
from probes.errors import InputError
from probes.limits import MAX_JOBS, MAX_REPEAT, MAX_SHARDS
from probes.suggest import perhaps

if TYPE_CHECKING:
    from probes.agents import Agent
    from probes.versions.spec import Spec

Command = Callable[[argparse.Namespace], int]

COUNT_RE = re.compile(r"\d{1,9}", re.ASCII)  # ASCII digits only, bounded before int()


class UsageError(Exception):
    """A command line that does not parse: printed as one line, with a pointer to --help."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and exit 2, from main(), not argparse's usage block
        raise UsageError(message)


def count(option: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, so a typo cannot ask for no
    workers or a billion runs."""

    def parse(text: str) -> int:
        if not (COUNT_RE.fullmatch(text) and low <= int(text) <= high):
            raise UsageError(f"{option} must be from {low} to {high}, not {text[:20]!r}")
        return int(text)

    return parse


def results_dir(text: str) -> str:
    """An argparse type: a directory name (Path('') would be the current directory)."""
    if text == "":
        raise UsageError("--results needs a directory, not ''")
    return text


def shard(text: str) -> tuple[int, int]:
    """An argparse type: I/N, checked before the registry is asked."""
    from probes.sweep.matrix import parse_shard

    return parse_shard(text)


# ---------------------------------------------------------------- options several commands take


def add_results(p: argparse.ArgumentParser, help: str = "evidence directory (default: ./results)") -> None:
    p.add_argument("--results", type=results_dir, default="results", help=help)


def add_json(p: argparse.ArgumentParser, help: str = "print JSON") -> None:
    p.add_argument("--json", action="store_true", help=help)


def add_repeat(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--repeat", type=count("--repeat", 1, MAX_REPEAT), default=1, metavar="N", help=help)


def add_jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=count("--jobs", 1, MAX_JOBS),
        metavar="N",
        help=f"cells at once, at most {MAX_JOBS} (default: one per core, more while cores are idle)",
    )


def add_shard(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--shard", metavar="I/N", type=shard, help=help)


def add_shards(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--shards", type=count("--shards", 1, MAX_SHARDS), default=1, metavar="N", help=help)


def add_recipe_choice(p: argparse.ArgumentParser) -> None:
    p.add_argument("--recipe", default="all", help="a recipe name, or all (default)")


def add_dry_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dry-run", action="store_true", help="print the plan, run nothing")


# ---------------------------------------------------------------- names a person types


def agent_named(name: str) -> Agent:
    """The agent `name`, or the one line of agents.get, with the nearest names."""
    from probes.agents import AGENTS, get

    try:
        return get(name)
    except InputError as e:
        raise InputError(f"{e}{perhaps(name, AGENTS)}") from None


def spec_of(text: str, exact: bool = False) -> Spec:
    """AGENT@VERSION (`exact`: not `latest`), or one line saying why not."""
    from probes.agents import AGENTS
    from probes.versions.spec import SPEC_RE, parse_spec

    m = SPEC_RE.fullmatch(text)
    if m:
        agent_named(m["agent"])
    s = parse_spec(text, AGENTS)
    if exact and s.version == "latest":
        raise InputError(f"{text}: name an exact version (see `probe versions {s.agent}`)")
    return s


def recipe_named(name: str, or_all: bool = False) -> str:
    """A recipe in the catalog (read later, once, by what runs it; `or_all`: or `all`), or
    one line: the nearest names, else recipes.get's own (a malformed name, or the known ones)."""
    from probes.catalog.names import NAME_RE, recipe_files, recipes_dir

    if (or_all and name == "all") or (NAME_RE.fullmatch(name) and (recipes_dir() / f"{name}.yaml").exists()):
        return name
    hint = perhaps(name, [p.stem for p in recipe_files()]) if NAME_RE.fullmatch(name) else ""
    if hint:
        raise InputError(f"unknown recipe {name!r}: see `probe list`{hint}")
    from probes.catalog.recipes import get

    get(name)  # raises
    return name


# ---------------------------------------------------------------- the parser


def parser(commands: Mapping[str, Command]) -> argparse.ArgumentParser:
    """Every command, its arguments and help; `commands` names the function each one calls."""
    from probes.agents import AGENTS
    from probes.backends import BACKENDS

    p = Parser(prog="probe", description="Empirical probes of AI coding-agent CLI hook systems.")
    p.add_argument("--version", action="version", version=f"probe {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    agents = " or ".join(AGENTS)

    r = sub.add_parser("run", help="run one recipe against one CLI version")
    r.add_argument("spec", metavar="AGENT@VERSION", help=f"AGENT is {agents}; VERSION an exact published version or latest")
    r.add_argument("recipe", help="recipe name (see `probe list`)")
    r.add_argument("--backend", choices=sorted(BACKENDS), default="local")
    add_results(r)
    add_json(r, "print the evidence record on stdout")
    add_repeat(r, "run the probe N times")
    r.set_defaults(func=commands["run"])

    c = sub.add_parser(
        "check",
        help="run a repository's own hooks through the real CLI (docs/check.md)",
        description="Copy DIR (the agent's hook config and its scripts) into a fresh workspace, watch each "
        "configured command run (the config as written), play a scenario (or your --command lines) with and "
        "without the hooks, and give each hook a verdict. Exit 4 with --strict when a hook is not as its "
        "scenario expects, or a command not as --expect says.",
    )
    c.add_argument("spec", metavar="AGENT@VERSION", help=f"AGENT is {agents}; VERSION an exact published version or latest")
    c.add_argument("--hooks", required=True, metavar="DIR", help="a folder laid out like the repository (.github/hooks, .claude)")
    c.add_argument("--versions", help="instead of the spec's version: LIST (1.0.80,1.0.81), RANGE (1.0.80..1.0.92) or latest:N")
    c.add_argument("--scenario", help="a built-in scenario (docs/check.md) or a YAML file (default: shell)")
    c.add_argument(
        "--command",
        action="append",
        metavar="CMD",
        help="a shell command the model runs (repeatable, in order): a scenario of your own commands",
    )
    c.add_argument(
        "--expect",
        action="append",
        choices=["blocked", "allowed"],
        help="one per --command, in order: what --strict requires of it (its command did not run, or ran)",
    )
    c.add_argument(
        "--strict",
        action="store_true",
        help="exit 4 when a hook is broken, ignored, or not fired where expected, or a command not as --expect says",
    )
    c.add_argument("--progress", action="store_true", help="say each long step on stderr even when it is not a terminal")
    add_results(c, "evidence directory (default: ./probe-check)")
    c.set_defaults(results="probe-check")
    add_json(c, "print the verdicts as JSON (a list with --versions)")
    c.set_defaults(func=commands["check"])

    ls = sub.add_parser("list", help="recipes, with the agents each applies to")
    add_json(ls, "print the recipes as JSON, with their classifiers' key observation and what they read")
    ls.set_defaults(func=commands["list"])

    m = sub.add_parser("matrix", help="run recipes across versions of an agent, in parallel")
    m.add_argument("--agent", required=True)
    m.add_argument("--versions", required=True, help="LIST (1.0.80,1.0.81), RANGE (1.0.80..1.0.92) or latest:N")
    add_recipe_choice(m)
    add_jobs(m)
    add_repeat(m, "runs per cell; the table shows the spread")
    add_results(m)
    add_shard(m, "run only slice I of N (disjoint, balanced by expected cost)")
    add_dry_run(m)
    add_json(m)
    m.set_defaults(func=commands["matrix"])

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
    add_recipe_choice(b)
    b.add_argument("--prereleases", action="store_true", help="include pre-releases")
    add_results(b)
    add_jobs(b)
    b.add_argument("--link-base", default="", help="prefix for evidence links in the report (e.g. a blob URL)")
    add_shard(b, "run only slice I of N of the cells (a CI job's share)")
    add_shards(b, "with --dry-run --json: split each agent's cells into N CI jobs")
    add_dry_run(b)
    b.add_argument(
        "--report-only",
        action="store_true",
        help="report from the evidence in --results, run nothing; missing cells count as failed",
    )
    add_json(b)
    b.set_defaults(func=commands["bump"])

    mg = sub.add_parser("merge", help="combine evidence trees (e.g. shards) into one results tree")
    mg.add_argument("dirs", nargs="+", metavar="DIR")
    add_results(mg, "the tree to merge into (default: ./results)")
    mg.add_argument("--replace", action="store_true", help="merged records replace different ones already there")
    mg.set_defaults(func=commands["merge"])

    t = sub.add_parser("table", help="committed evidence: each recipe's verdicts as version ranges per agent")
    add_results(t)
    t.add_argument("--agent")
    t.add_argument("--recipe")
    t.add_argument("--grid", action="store_true", help="markdown: recipes x versions, one column per version")
    t.add_argument("--format", choices=["markdown", "json", "html"], default="markdown")
    t.add_argument("--output", help="where --format html writes (default: RESULTS/index.html)")
    t.set_defaults(func=commands["table"])

    d = sub.add_parser("diff", help="what changed between two versions of an agent")
    d.add_argument("a", metavar="AGENT@V1")
    d.add_argument("b", metavar="AGENT@V2")
    add_results(d)
    d.add_argument("--timings", action="store_true", help="also list timing observations (*_s)")
    add_json(d)
    d.set_defaults(func=commands["diff"])
    add_ranges(sub, commands)  # bisect, timeline

    ci = sub.add_parser("cite", help="a Markdown block an ADR can paste")
    ci.add_argument("spec", metavar="AGENT@VERSION")
    ci.add_argument("recipe")
    add_results(ci)
    ci.set_defaults(func=commands["cite"])

    rc = sub.add_parser("reclassify", help="label committed evidence again with the current classifiers")
    add_results(rc)
    rc.set_defaults(func=commands["reclassify"])

    sc = sub.add_parser(
        "schema",
        help="the JSON Schema of the evidence record (docs/evidence.schema.json)",
        description="Print the JSON Schema of an evidence record (results/AGENT/VERSION/RECIPE.json), "
        "exported from the harness's own models; docs/evidence.schema.json is this output.",
    )
    sc.set_defaults(func=commands["schema"])

    v = sub.add_parser("versions", help="versions of an agent: latest, probed, cached, pre-release, unserved")
    v.add_argument("agent")
    add_results(v, "where probed versions are looked up")
    add_json(v)
    v.set_defaults(func=commands["versions"])

    ca = sub.add_parser(
        "cache",
        help="installed CLI versions: size, install time, last use; prune them",
        description="List the installed CLI versions (size on disk, bytes only each holds, install "
        "time, last use) or prune them: least recently used first to fit --max (or PROBE_CACHE_MAX), "
        "or the named --version. A version a running probe uses is never removed.",
    )
    ca.add_argument("action", nargs="?", choices=["list", "prune"], default="list")
    ca.add_argument("--agent")
    ca.add_argument("--version", dest="version", metavar="V", help="prune: remove this version (with --agent)")
    ca.add_argument("--max", metavar="SIZE", help="prune: keep at most SIZE (20G, 500M, bytes)")
    add_dry_run(ca)
    add_json(ca, "list: print the versions as JSON")
    ca.set_defaults(func=commands["cache"])

    rec = sub.add_parser(
        "recorder",
        help="a hook config and a stdlib script logging every hook event on a person's own machine",
        description="Write into DIR (new or empty) the agent's hook config registering a recorder script for "
        "every event, the script, and README.txt: copy them into a workspace, use the agent, bring the log back "
        "to `probe import` (docs/recorder.md).",
    )
    rec.add_argument("agent")
    rec.add_argument("dir", metavar="DIR")
    rec.add_argument("--python", default="python3", help="the interpreter's command in the hooks (default: python3; Windows: py)")
    rec.set_defaults(func=commands["recorder"])

    im = sub.add_parser(
        "import",
        help="a recorder's log as evidence (provenance recorded-by-person), apart from driven runs",
        description="Read DIR/.probe-recorder/log.jsonl (or DIR/log.jsonl), check it whole, and write evidence "
        "under RESULTS/<agent>/_recorded/<version>/ (docs/recorder.md).",
    )
    im.add_argument("dir", metavar="DIR")
    add_results(im)
    im.set_defaults(func=commands["import"])
    return p


def add_ranges(sub: argparse._SubParsersAction[Parser], commands: Mapping[str, Command]) -> None:
    """`bisect` and `timeline` (probes/sweep/bisect.py, probes/sweep/fill.py; docs/ranges.md)."""

    def common(c: argparse.ArgumentParser, verb: str) -> None:
        c.add_argument("agent")
        c.add_argument("recipe", help="recipe name (see `probe list`)")
        c.add_argument("--observation", metavar="KEY", help="compare this observation's value, not the outcome label")
        c.add_argument("--prereleases", action="store_true", help="pre-releases are candidates too")
        add_repeat(c, f"probe each version N times; one whose runs disagree stops the {verb} as flaky")
        c.add_argument(
            "--jobs",
            type=count("--jobs", 1, MAX_JOBS),
            default=1,
            metavar="N",
            help="versions probed at once (N points of an interval; default 1)",
        )
        add_results(c)
        add_json(c)

    bi = sub.add_parser(
        "bisect",
        help="find the release where a recipe's verdict changed, in about log2(n) probes",
        description="Probe --from and --to, then halve the published releases between them until two adjacent "
        "ones give different verdicts; the recipe's control is probed on both. Exit 0 when a boundary was found "
        "or the ends agree, 1 when a needed cell could not run or a version was flaky, 2 for bad input.",
    )
    common(bi, "bisect")
    bi.add_argument("--from", dest="start", required=True, metavar="V1", help="an exact published version")
    bi.add_argument("--to", dest="end", required=True, metavar="V2", help="a later published version, or latest")
    bi.set_defaults(func=commands["bisect"])

    tl = sub.add_parser(
        "timeline",
        help="a recipe's verdict as ranges of versions, boundaries exact or open",
        description="From the evidence (offline) unless --fill (bisect every open boundary) or --every K "
        "(probe every K-th release of --versions, then bisect between samples that differ).",
    )
    common(tl, "search")
    tl.add_argument("--versions", metavar="RANGE", help="only these: LIST, RANGE (1.0.57..1.0.92) or latest:N")
    tl.add_argument("--every", type=count("--every", 1, 10000), metavar="K", help="with --versions: sample every K-th release")
    tl.add_argument("--fill", action="store_true", help="bisect every open boundary")
    tl.set_defaults(func=commands["timeline"])
