"""An agent, or AGENT@VERSION, as a person typed it: the registry's answer, or one line with the
nearest names. Commands check these before they ask a registry or run anything."""

from __future__ import annotations

from probes.agents import AGENTS, Agent, get
from probes.errors import InputError
from probes.suggest import perhaps
from probes.versions.spec import SPEC_RE, Spec, parse_spec


def agent_named(name: str) -> Agent:
    """The agent `name`, or the one line of agents.get, with the nearest names."""
    try:
        return get(name)
    except InputError as e:
        raise InputError(f"{e}{perhaps(name, AGENTS)}") from None


def spec_of(text: str, exact: bool = False) -> Spec:
    """AGENT@VERSION (`exact`: not `latest`), or one line saying why not."""
    m = SPEC_RE.fullmatch(text)
    if m:
        agent_named(m["agent"])
    s = parse_spec(text, AGENTS)
    if exact and s.version == "latest":
        raise InputError(f"{text}: name an exact version (see `probe versions {s.agent}`)")
    return s
