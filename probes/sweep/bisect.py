"""`probe bisect`'s work (commands/bisect.py): the search (search.py) run on real CLIs, each
version probed as `probe run` probes it (run.probe_repeated), N at a time with --jobs N, the
next round's versions installed meanwhile. The recipe's control is probed on every version
probed (a record already there is read instead): a verdict it shares is not earned."""

from __future__ import annotations

import contextlib
import errno
import math
import multiprocessing
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from probes import progress, stopping
from probes.agents import AGENTS, Agent
from probes.catalog.recipes import get
from probes.catalog.setup import split_stem, stem
from probes.errors import Exit, HostError, InputError, ProbeError
from probes.evidence import unrunnable
from probes.evidence.model import load_evidence
from probes.pipeline import spare
from probes.pipeline.run import probe_repeated
from probes.report.timeline import candidates_of, compact, write_snapshot
from probes.sweep.search import Bisection, Point, last_words, point_json, search
from probes.versions import install, prefixes, spec

PREFETCH_WORKERS = 2  # npm installs beside the probes: more would starve 2 cores


def probe_point(agent: str, version: str, recipe: str, results: str, repeat: int, observation: str | None) -> Point:
    """One version probed `repeat` times (its evidence written), as a Point: its verdict, flaky
    when the runs disagree, skipped (with the reason) when it cannot install or run, or another ran."""
    return probe_checked(agent, version, recipe, results, repeat, observation)[0]


def probe_checked(
    agent: str, version: str, recipe: str, results: str, repeat: int, observation: str | None, control: str | None = None
) -> tuple[Point, Control | None]:
    """One version probed (probe_point) and then, when it ran, the recipe's `control` on it
    (check_control), both before its install is released: one install per version."""
    try:
        point = _probe(agent, version, recipe, results, repeat, observation)
        check = check_control(agent, version, control, results, repeat, point.outcome) if control and not point.skipped else None
        return point, check
    finally:  # done with it: PROBE_CACHE_MAX may evict it while the search goes on
        install.release(AGENTS[agent], version)


def _probe(agent: str, version: str, recipe: str, results: str, repeat: int, observation: str | None) -> Point:
    try:
        records, path, _ = probe_repeated(f"{agent}@{version}", recipe, Path(results), repeat=repeat)  # kept: unchanged
    except HostError:
        raise  # the host's fault, not the release's: never filed as a release that cannot run
    except Exception as e:  # one broken version must not stop the search; a full disk must
        if getattr(e, "errno", None) in (errno.ENOSPC, errno.EDQUOT) or "No space left on device" in str(e):
            raise HostError(f"{agent} {version}: {e}") from None
        return Point(version, reason=str(e) if isinstance(e, ProbeError) else f"{type(e).__name__}: {e}")
    last = records[-1]
    if last.executed_version != version:
        said = last_words(last.cli.stderr_tail or last.cli.stdout_tail) if last.executed_version is None else ""
        why = f"ran {last.executed_version} (version_mismatch)" + (f"; it said: {said}" if said else "")
        if last.executed_version is None:  # a release that cannot say what ran: its reason is what stays
            unrunnable.discard_unknown(path)
            return Point(version, outcome=last.outcome, reason=why, scope="recipe")  # its session's, maybe not the release's
        return Point(version, outcome=last.outcome, reason=why, evidence=str(path))
    values = [r.outcome if observation is None else compact(r.observations.get(observation)) for r in records]
    flaky = tuple(values) if len(set(values)) > 1 else ()
    return Point(version, None if flaky else values[-1], last.outcome, values=flaky, evidence=str(path))


def check_control(agent: str, version: str, control: str, results: str, repeat: int, recipe_outcome: str | None) -> Control:
    """The control on one version: its record in `results` when there is one (reused), else
    probed `repeat` times (its evidence written); outcome None, with the reason, when it
    could not run."""
    had = _outcome(Path(results) / agent / version / f"{control}.json")
    if had is not None:
        return Control(control, version, had, recipe_outcome, reused=True)
    c = _probe(agent, version, control, results, repeat, None)
    return Control(control, version, None if c.skipped else c.outcome, recipe_outcome, c.reason)


class Runner:
    """Probes versions of one recipe, `jobs` at a time, and installs ahead in the background."""

    def __init__(self, agent: Agent, recipe: str, results: Path, jobs: int = 1, repeat: int = 1, observation: str | None = None):
        self.agent, self.recipe, self.results = agent, recipe, results
        self.jobs, self.repeat, self.observation = jobs, repeat, observation
        self.checked: dict[str, Control] = {}  # version -> the recipe's control on it, as probe found it
        # npm installs ahead run in processes, not threads: a signal ends one that waits on an
        # install's lock, where a thread would start that install once the lock is let go,
        # after the signal, and hold this process's exit until npm is done
        self.installer: ProcessPoolExecutor | None = None
        self.pool: ProcessPoolExecutor | None = None
        self.pipes = contextlib.ExitStack()  # SIGPIPE ignored while the pools run
        self.rounds, self.expected = 0, 0  # rounds said so far; how many a search of the candidates takes (0: not known)
        self.seen: dict[str, Point] = {}  # the versions probed with the recipe: the intervals the rounds name

    def probe(self, versions: list[str], recipe: str | None = None, observation: str | None = None) -> list[Point]:
        """The versions probed with `recipe` (the runner's own when None: then its control too,
        on each version that ran, kept in `checked`)."""
        name, obs = recipe or self.recipe, observation if recipe else self.observation
        control = None if recipe else control_of(self.recipe, self.agent.name)
        args = [(self.agent.name, v, name, str(self.results), self.repeat, obs, control) for v in versions]
        what = name + (f" and its control {control}" if control else "")
        on = self.round_line(versions, what) if recipe is None else f"probing {what} on {self.agent.name} {', '.join(versions)}"
        progress.say(on + (f", {self.jobs} at a time" if self.jobs > 1 and len(versions) > 1 else ""))
        if self.jobs == 1 or len(versions) == 1:
            spare.enable()  # this process runs probe after probe too: each leaves the next one's runner started
            return [self.said(*probe_checked(*a), name) for a in args]
        if self.pool is None:
            self.pool = self.new_pool(self.jobs)
        with stopping.held():  # workers are spawned in submit: they start with the signals held
            futures = [self.pool.submit(stopping.in_cell, partial(probe_checked, *a)) for a in args]
        return [self.said(*_result(f), name) for f in futures]

    def round_line(self, versions: list[str], what: str) -> str:
        """`bisect round 2 of ~4: R and its control C on copilot 1.0.58 (between 1.0.49 and 1.0.63)`;
        in a search of another's (timeline --fill) `round 7: ...`: it knows no total."""
        self.rounds, on = self.rounds + 1, f"{what} on {self.agent.name} {', '.join(versions)}"
        if not self.expected:
            return f"round {self.rounds}: {on}"
        key = spec.semver_key
        below = [v for v, p in self.seen.items() if not p.skipped and key(v) < key(min(versions, key=key))]
        above = [v for v, p in self.seen.items() if not p.skipped and key(v) > key(max(versions, key=key))]
        between = f" (between {max(below, key=key)} and {min(above, key=key)})" if below and above else " (the ends)"
        return f"bisect round {self.rounds} of ~{max(self.expected, self.rounds)}: {on}{between}"

    def expect(self, candidates: int) -> None:
        """A search of `candidates` versions is next: rounds from 1, of about 1 + log_(jobs+1) of them."""
        self.rounds = 0
        self.expected = 1 + math.ceil(math.log(max(candidates - 1, 1)) / math.log(self.jobs + 1))

    def new_pool(self, workers: int) -> ProcessPoolExecutor:
        # Spawned, not forked: a fork while another thread runs npm would hand the worker
        # that npm's pipes (its install then never ends, and the worker waits on its lock).
        # A worker ends with the bisect that started it, even when SIGKILLed, and on SIGINT
        # or SIGTERM as the matrix's do (stopping.py).
        self.pipes.enter_context(stopping.quiet_pipes())
        return stopping.process_pool(workers, multiprocessing.get_context("spawn"))

    def say(self, line: str) -> None:
        print(f"probe: {line}", file=sys.stderr, flush=True)

    def said(self, p: Point, check: Control | None, recipe: str) -> Point:
        if recipe == self.recipe:
            self.seen[p.version] = p
        self.say(f"{self.agent.name}@{p.version} {recipe}: {brief(p.value) if not p.skipped else f'skipped ({p.reason})'}")
        if check is not None:
            self.checked[p.version] = check
            got = f"{check.outcome} ({EARNED[check.earned]})" if check.outcome else f"could not run ({check.reason})"
            self.say(f"{self.agent.name}@{p.version} {check.recipe} (control{', reused' if check.reused else ''}): {got}")
        return p

    def prefetch(self, versions: list[str]) -> None:
        todo = [v for v in versions if not prefixes.installed(self.agent, v)]
        if todo and self.installer is None:
            self.installer = self.new_pool(PREFETCH_WORKERS)
        with stopping.held():
            for v in todo:
                assert self.installer is not None
                self.installer.submit(stopping.in_cell, partial(_install_quietly, self.agent.name, v))

    def close(self) -> None:
        if self.installer is not None:
            self.installer.shutdown(wait=True, cancel_futures=True)  # a running npm install finishes
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
        self.pipes.close()

    def stop(self) -> None:
        """Interrupted (or failed): probes and installs stopped within STOP_GRACE_S, the rest dropped."""
        stopping.stop(*(p for p in (self.pool, self.installer) if p is not None))

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None:
            self.close()
        else:
            self.stop()


def _result(f: Future[tuple[Point, Control | None]]) -> tuple[Point, Control | None]:
    """The point, waited for in steps: a signal's Python handler would wait out an unbounded wait."""
    while True:
        try:
            return f.result(timeout=0.5)
        except TimeoutError:
            continue


def brief(value: str | None, width: int = 120) -> str:
    """A verdict on part of a line (an observation's value may be long; --json has it whole)."""
    text = str(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _install_quietly(agent: str, version: str) -> None:
    """A guess at what the next round probes: a failure here is the probe's to report."""
    try:
        install.install(AGENTS[agent], version)
    except Exception:
        pass


# ---------------------------------------------------------------- the candidates


def candidates(agent: Agent, start: str, end: str, results: Path, prereleases: bool = False) -> list[str]:
    """The published versions from `start` to `end` (both published, start below end; `latest`
    allowed), releases only unless `prereleases`; the registry's list is kept as the snapshot."""
    pub = spec.published(agent.package)
    own = agent.translate_version
    lo = spec.resolve(spec.parse_spec(f"{agent.name}@{start}", AGENTS), agent.package, pub, own)
    hi = spec.resolve(spec.parse_spec(f"{agent.name}@{end}", AGENTS), agent.package, pub, own)
    if spec.semver_key(lo) >= spec.semver_key(hi):
        raise InputError(f"--from {lo} must be older than --to {hi}")
    results.mkdir(parents=True, exist_ok=True)
    write_snapshot(results, agent.name, pub)
    chosen = candidates_of(pub.versions, prereleases)
    inner = [v for v in chosen if spec.semver_key(lo) < spec.semver_key(v) < spec.semver_key(hi)]
    return [lo, *inner, hi]


# ---------------------------------------------------------------- controls


@dataclass(frozen=True)
class Control:
    recipe: str
    version: str
    outcome: str | None  # None: it could not run
    recipe_outcome: str | None
    reason: str | None = None
    reused: bool = False  # read from evidence already there, not probed

    @property
    def earned(self) -> bool | None:
        """The recipe's label differs from its control's (None: not known)."""
        return None if self.outcome is None or self.recipe_outcome is None else self.outcome != self.recipe_outcome


EARNED = {
    True: "differs from the recipe",
    False: "same as the recipe: the hook made no difference here, so this verdict says nothing about the hook",
    None: "could not run",
}


def controls(runner: Runner, recipe: str, points: Sequence[Point]) -> list[Control]:
    """The recipe's control on each point's version that ran, oldest first, once per version:
    as the runner found it when it probed that version, else its record already in the
    runner's results directory, else probed now (its evidence written beside it)."""
    name = control_of(recipe, runner.agent.name)
    ran = {p.version: p for p in points if not p.skipped}
    if not name or not ran:
        return []
    out: dict[str, Control] = {}
    for v, p in ran.items():
        had = runner.checked.get(v) or _reused(name, p, runner.results / runner.agent.name / v / f"{name}.json")
        if had is not None:
            out[v] = had
    todo = [v for v in ran if v not in out]
    for c in runner.probe(todo, recipe=name) if todo else []:
        out[c.version] = Control(name, c.version, None if c.skipped else c.outcome, ran[c.version].outcome, c.reason)
    return [out[v] for v in sorted(out, key=spec.semver_key)]


def _reused(name: str, p: Point, path: Path) -> Control | None:
    had = _outcome(path)
    return Control(name, p.version, had, p.outcome, reused=True) if had is not None else None


def _outcome(path: Path) -> str | None:
    try:
        return str(load_evidence(path)["outcome"]) if path.exists() else None
    except InputError:
        return None


# ---------------------------------------------------------------- the command's work


@dataclass
class Report:
    agent: str
    recipe: str
    observation: str | None
    start: str
    end: str
    bisection: Bisection
    controls: list[Control] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def exit_status(self) -> int:
        """0: a boundary, or the ends agree; 1: a cell that was needed could not run, or a
        version was flaky (no boundary found)."""
        return Exit.OK if self.bisection.status in ("boundary", "agree") else Exit.HARNESS


def bisect(
    agent: Agent,
    recipe: str,
    start: str,
    end: str,
    results: Path,
    observation: str | None = None,
    prereleases: bool = False,
    repeat: int = 1,
    jobs: int = 1,
) -> Report:
    t0 = time.monotonic()
    chosen = candidates(agent, start, end, results, prereleases)
    with Runner(agent, recipe, results, jobs, repeat, observation) as runner:
        runner.expect(len(chosen))
        found = search(chosen, runner.probe, jobs, runner.prefetch)
        checks = controls(runner, recipe, probed_points(found))
    return Report(agent.name, recipe, observation, chosen[0], chosen[-1], found, checks, round(time.monotonic() - t0, 1))


def probed_points(b: Bisection) -> list[Point]:
    """The versions a search probed, and the two of its boundary (the evidence may have
    given them): those a control must answer for."""
    ends = [p for p in (b.before, b.after) if p is not None and b.status == "boundary"]
    return [b.points[v] for v in b.probed if v in b.points] + ends


def as_json(r: Report) -> dict[str, Any]:
    b = r.bisection
    return {
        "agent": r.agent,
        "recipe": r.recipe,
        "observation": r.observation,
        "from": r.start,
        "to": r.end,
        "candidates": b.candidates,
        "probed": b.probed,
        "status": b.status,
        "before": point_json(b.before, r.observation),
        "after": point_json(b.after, r.observation),
        "exact": b.exact,
        "skipped": [{"version": p.version, "reason": p.reason} for p in b.skipped],
        "flaky": {"version": b.flaky.version, "values": list(b.flaky.values), "interval": list(b.interval or ())}
        if b.flaky
        else None,
        "reason": b.reason,
        "controls": [
            {"recipe": c.recipe, "version": c.version, "outcome": c.outcome, "earned": c.earned, "reason": c.reason}
            for c in r.controls
        ],
        "wall_s": r.wall_s,
    }


def text(r: Report) -> str:
    b = r.bisection
    what = r.recipe + (f" ({r.observation})" if r.observation else "")
    lines = [
        f"{r.agent} {what} {r.start}..{r.end}: {len(b.candidates)} candidates, "
        f"{len(b.probed)} probed in {r.wall_s:.0f}s ({', '.join(b.probed)})"
    ]
    if b.status == "boundary" and b.before and b.after:
        exact = "exact: adjacent releases" if b.exact else "open: releases between could not run"
        lines.append(f"boundary: {b.before.version} {brief(b.before.value)} | {b.after.version} {brief(b.after.value)} ({exact})")
        lines.append(f"evidence: {b.before.evidence}, {b.after.evidence}")
    elif b.status == "agree" and b.before:
        lines.append(
            f"the ends agree ({brief(b.before.value)} on both): no boundary to find; changes that come and go between them "
            f"show with `probe timeline {r.agent} {r.recipe} --versions {r.start}..{r.end} --every K`"
        )
    elif b.status == "flaky" and b.flaky:
        lo, hi = b.interval or ("?", "?")
        lines.append(
            f"flaky: {b.flaky.version} gave {' / '.join(b.flaky.values)} in {len(b.flaky.values)} runs, "
            f"between {lo} and {hi}; stopped"
        )
    else:
        lines.append(f"no boundary: {b.reason}")
    for c in r.controls:
        lines.append(f"control {c.recipe} on {c.version}: {c.outcome or c.reason} ({EARNED[c.earned]})")
    for p in b.skipped:
        lines.append(f"skipped {p.version}: {p.reason}")
    return "\n".join(lines)


def control_of(recipe: str, agent: str) -> str | None:
    """The control of a recipe (RECIPE or RECIPE@KEY) on `agent`, in the same setup."""
    name, key = split_stem(recipe)
    control = get(name).control_for(agent)
    return stem(control, key) if control else None
