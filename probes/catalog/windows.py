"""The atlas's window per agent (issue 32), kept in one place: probes/catalog/windows.yaml
(PROBE_WINDOWS names another file). A window is the releases of the agent's registry snapshot
(results/<agent>/versions.json) from `from` to the snapshot's newest release, and the
`pinned` versions users name, each probed itself, last when inside the window (docs/ranges.md, "The atlas")."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, ValidationInfo, field_validator

from probes.agents import AGENTS
from probes.errors import InputError
from probes.limits import BadFile, compose_yaml, decode, read_bounded
from probes.versions.spec import SPEC_RE, is_prerelease, semver_key

WINDOWS_MAX_BYTES = 64 * 1024  # five agents' lines are ~2 KiB


def windows_file() -> Path:
    return Path(os.environ.get("PROBE_WINDOWS") or Path(__file__).parent / "windows.yaml")


def _release(v: object) -> str:
    """An exact release, as written (`1.0.60`): no `latest`, no pre-release."""
    text = str(v)
    if not SPEC_RE.fullmatch(f"a@{text}") or text == "latest" or text.startswith("v") or is_prerelease(text):
        raise ValueError(f"{text[:40]!r} is not an exact release (e.g. 1.0.60)")
    return text


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    start: str = Field(alias="from")  # the oldest release of the window
    pinned: list[str] = Field(default_factory=list)  # versions users name: each probed itself (inside: last)
    # versions whose records `probe compact` keeps whole (those the tests read); None: the pinned
    whole: list[str] | None = None

    @field_validator("start", mode="before")
    @classmethod
    def _start(cls, v: object) -> str:
        return _release(v)

    @field_validator("pinned", "whole", mode="before")
    @classmethod
    def _releases(cls, v: object, info: ValidationInfo) -> list[str] | None:
        if v is None and info.field_name == "whole":
            return None
        if not isinstance(v, list):
            raise ValueError(f"{info.field_name} is a list of releases")
        out = [_release(x) for x in v]
        if len(set(out)) != len(out):
            raise ValueError(f"{info.field_name} names a version twice")
        return sorted(out, key=semver_key)

    @property
    def kept_whole(self) -> list[str]:
        """The versions (besides the window's ends) whose records stay whole."""
        return self.pinned if self.whole is None else self.whole


class Windows(RootModel[dict[str, Window]]):
    @field_validator("root")
    @classmethod
    def _agents(cls, v: dict[str, Window]) -> dict[str, Window]:
        unknown = sorted(set(v) - set(AGENTS))
        if unknown:
            raise ValueError(f"unknown agent {unknown[0]!r}: choose from {', '.join(sorted(AGENTS))}")
        return v


def load(path: Path | None = None) -> dict[str, Window]:
    """Every agent's window, or one line saying what is wrong with the file (InputError: exit 2)."""
    path = path or windows_file()
    try:
        data, _ = compose_yaml(decode(read_bounded(path, WINDOWS_MAX_BYTES)))
    except BadFile as e:
        raise InputError(f"invalid windows file {path}: {e}") from None
    except yaml.YAMLError as e:
        raise InputError(f"invalid windows file {path}: not YAML ({str(e).splitlines()[0][:120]})") from None
    if not isinstance(data, dict):
        raise InputError(f"invalid windows file {path}: expected AGENT: {{from: VERSION, pinned: [...]}} per agent")
    try:
        return Windows.model_validate(data).root
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "the file"
        raise InputError(f"invalid windows file {path}: {where}: {err['msg']}") from None


@dataclass(frozen=True)
class Span:
    """A window as releases: `releases` from its start to its end (ascending), and the pinned
    versions (some may lie outside it, some may not be served)."""

    agent: str
    releases: list[str]
    pinned: list[str]

    @property
    def first(self) -> str:
        return self.releases[0]

    @property
    def last(self) -> str:
        return self.releases[-1]


def span(agent: str, window: Window, snapshot: Sequence[str], lo: str | None = None, hi: str | None = None) -> Span:
    """The window's releases in `snapshot` (every version the registry served, any order),
    narrowed to `lo`..`hi` when given; one line when none is left."""
    releases = sorted((v for v in snapshot if not is_prerelease(v)), key=semver_key)
    low = max(semver_key(window.start), semver_key(lo)) if lo else semver_key(window.start)
    chosen = [v for v in releases if low <= semver_key(v) and (hi is None or semver_key(v) <= semver_key(hi))]
    if not chosen:
        asked = f" narrowed to {lo or window.start}..{hi or 'newest'}" if lo or hi else ""
        raise InputError(f"{agent}'s window (from {window.start}){asked} holds no release of results/{agent}/versions.json")
    pinned = [
        p
        for p in window.pinned
        if (lo is None or semver_key(lo) <= semver_key(p)) and (hi is None or semver_key(p) <= semver_key(hi))
    ]
    return Span(agent, chosen, pinned)
