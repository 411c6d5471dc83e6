"""An agent, or AGENT@VERSION, as a person typed it: the registry's answer, or one line with the
nearest names. Commands check these before they ask a registry or run anything. Offline
commands read `latest` as the newest version probed (newest_probed)."""

from __future__ import annotations

import sys
from pathlib import Path

from probes.agents import AGENTS, Agent, get
from probes.errors import InputError
from probes.suggest import perhaps
from probes.versions.spec import SPEC_RE, Spec, bare, parse_spec, semver_key


def agent_named(name: str) -> Agent:
    """The agent `name`, or the one line of agents.get, with the nearest names."""
    try:
        return get(name)
    except InputError as e:
        raise InputError(f"{e}{perhaps(name, AGENTS)}") from None


def spec_of(text: str) -> Spec:
    """AGENT, AGENT@VERSION or AGENT@vVERSION (AGENT is AGENT@latest), or one line saying why not."""
    m = SPEC_RE.fullmatch(text)
    if m:
        agent_named(m["agent"])
    return parse_spec(text, AGENTS)


def probed_versions(results: Path, agent: str, recipe: str | None = None) -> list[str]:
    """The versions with evidence in `results` for `agent` (a record of `recipe` when given),
    oldest first: read off the directory names, so nothing is parsed."""
    found = []
    for d in (results / agent).glob("*/"):
        name = d.name
        if not (SPEC_RE.fullmatch(f"{agent}@{name}") and name != "latest" and bare(name) == name):
            continue  # _blobs, unknown-<requested>, anything not a version
        if (d / f"{recipe}.json").is_file() if recipe else any(d.glob("*.json")):
            found.append(name)
    return sorted(found, key=semver_key)


def newest_probed(results: Path, s: Spec, recipe: str | None = None) -> Spec:
    """`latest` in an offline command (cite, diff): the newest version with evidence in
    `results` (for `recipe` when given), said on stderr, as no registry is asked."""
    if s.version != "latest":
        return s
    versions = probed_versions(results, s.agent, recipe)
    if not versions:
        what = f"{s.agent} {recipe}" if recipe else s.agent
        raise InputError(f"no evidence for {what} in {results}: `probe run {s.agent}@latest {recipe or 'RECIPE'}` first")
    print(
        f"probe: {s} is {s.agent} {versions[-1]}, the newest probed in {results} "
        f"(the registry's may be newer: probe versions {s.agent})",
        file=sys.stderr,
    )
    return Spec(s.agent, versions[-1])
