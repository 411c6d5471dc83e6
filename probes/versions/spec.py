"""`AGENT@VERSION` specs and the npm registry: published versions and nearest neighbours."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from probes.errors import HarnessError, InputError

# Matched whole (fullmatch: `$` would let a trailing newline through) and ASCII-only (`\d`
# would take full-width and other Unicode digits); bounded, as a version becomes a path.
# A bare AGENT is AGENT@latest; a `v` may lead an exact version (as release pages write it),
# never `latest`, and is not part of the version (paths and requested_version never hold it).
SPEC_RE = re.compile(
    r"(?P<agent>[a-z][a-z0-9-]{0,31})"
    r"(?:@(?:v(?=\d))?(?P<version>latest|\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.]{1,64})?))?",
    re.ASCII,
)
REGISTRY_TIMEOUT_S = 60


@dataclass(frozen=True)
class Spec:
    agent: str
    version: str  # as asked: exact or "latest"

    def __str__(self) -> str:
        return f"{self.agent}@{self.version}"


def parse_spec(text: str, agents: Collection[str]) -> Spec:
    m = SPEC_RE.fullmatch(text)
    if not m:
        shown = repr(text) if len(text) <= 100 else repr(text[:100]) + "..."
        raise InputError(
            f"malformed spec {shown}: expected AGENT, AGENT@VERSION or AGENT@vVERSION "
            "(an exact version, or latest), e.g. copilot@1.0.92 or copilot"
        )
    if m["agent"] not in agents:
        raise InputError(f"unknown agent {m['agent']!r}: choose one of {', '.join(sorted(agents))}")
    return Spec(m["agent"], m["version"] or "latest")


def bare(version: str) -> str:
    """`v1.0.92` -> `1.0.92`; anything else as it is (checked where it is parsed)."""
    return version[1:] if version[:1] == "v" and version[1:2].isdigit() else version


def bare_versions(selector: str) -> str:
    """A --versions LIST or RANGE, or a --from/--to version, with a leading `v` dropped from
    each version in it (`v1.0.80..v1.0.92` -> `1.0.80..1.0.92`): argparse's `type`."""
    return ",".join("..".join(bare(p.strip()) for p in item.split("..")) for item in selector.split(","))


def tool(name: str) -> str:
    """The path of node or npm, or a one-line error saying what to install."""
    path = shutil.which(name)
    if not path:
        raise InputError(f"{name} not found on PATH: install Node.js and npm (https://nodejs.org) and retry")
    return path


def npm() -> str:
    return tool("npm")


def npm_error(stderr: str) -> str:
    """npm's own one-line reason (its first error line), without the log-file pointer; and
    when a package's build step failed, the compiler's own error (a missing system header)."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith(("npm error", "npm ERR!")) and "complete log" not in ln]
    built = [ln for ln in lines if "fatal error:" in ln]  # e.g. gssapi/gssapi.h: No such file or directory
    first = (errors or lines or ["no output"])[0]
    return f"{first}; a build step failed: {built[0][-160:]}" if built else first


@dataclass(frozen=True)
class Published:
    versions: list[str]  # what the registry serves, in its order
    latest: str
    ever: Sequence[str] = ()  # every version with a publication time, served or since unpublished


def published(package: str) -> Published:
    """Ask the registry npm is configured for (so proxies and CA settings apply)."""
    try:
        proc = subprocess.run(
            [npm(), "view", package, "versions", "dist-tags", "time", "--json", "--fetch-retries=1"],
            capture_output=True,
            text=True,
            timeout=REGISTRY_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise HarnessError(
            f"npm registry did not answer within {REGISTRY_TIMEOUT_S}s for {package}: check network or npm config registry"
        ) from None
    if proc.returncode != 0:
        raise HarnessError(f"npm view {package} failed ({npm_error(proc.stderr)}): check network or npm config registry")
    try:
        data = json.loads(proc.stdout)
        ever = [v for v in data.get("time", {}) if v not in ("created", "modified")]
        return Published(list(data["versions"]), data["dist-tags"]["latest"], ever)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        raise HarnessError(
            f"npm view {package} answered something that is not a package's versions "
            f"({type(e).__name__}): check npm config registry"
        ) from None


SemverKey = tuple[tuple[int, ...], bool, tuple[tuple[int, int, str], ...]]


@functools.cache  # a table sorts thousands of versions, most of them many times
def semver_key(v: str) -> SemverKey:
    """npm (semver) order: 1.0.81-0 < 1.0.81 < 1.0.89-0 < 1.0.89."""
    core, _, pre = v.partition("-")
    nums = tuple(int(x) if x.isdigit() else 0 for x in core.split("."))
    tags = tuple((0, int(x), "") if x.isdigit() else (1, 0, x) for x in pre.split(".")) if pre else ()
    return nums, not pre, tags


def is_prerelease(v: str) -> bool:
    return "-" in v


def nearest(version: str, versions: list[str]) -> tuple[str | None, str | None]:
    """The published versions just below and just above `version` (releases first)."""
    target = semver_key(version)
    releases = [v for v in versions if not is_prerelease(v)] or versions
    below = [v for v in releases if semver_key(v) < target]
    above = [v for v in releases if semver_key(v) > target]
    return (max(below, key=semver_key) if below else None, min(above, key=semver_key) if above else None)


Translate = Callable[[str, "Published | None"], "str | None"]
"""An agent's own version scheme -> its package's version (VS Code 1.139.1 -> code-server
4.139.1), None where the version is the package's; with no registry list (None) it answers
only what it knows offline."""


def resolve(spec: Spec, package: str, pub: Published | None = None, translate: Translate | None = None) -> str:
    """The exact version to install: `latest` resolved, an exact one checked as published, one
    in the agent's own scheme translated (`translate`)."""
    if translate and spec.version != "latest" and (known := translate(spec.version, None)):
        return known
    pub = pub or published(package)
    if spec.version == "latest":
        return pub.latest
    if translate and (found := translate(spec.version, pub)):
        return found
    if spec.version in pub.versions:
        return spec.version
    near = [v for v in nearest(spec.version, pub.versions) if v]
    hint = f"nearest: {', '.join(near)}" if near else "see `probe versions " + spec.agent + "`"
    raise InputError(f"{spec.agent} {spec.version} is not published; {hint}")


def marked(pub: Published, probed: list[str], cached: list[str]) -> list[dict[str, str | bool]]:
    """Oldest first. `unserved`: published once (or probed, or cached) but no longer served by
    the registry, so it cannot be installed again."""
    served = set(pub.versions)
    every = served | set(pub.ever) | set(probed) | set(cached)
    return [
        {
            "version": v,
            "latest": v == pub.latest,
            "probed": v in probed,
            "cached": v in cached,
            "prerelease": is_prerelease(v),
            "unserved": v not in served,
        }
        for v in sorted(every, key=semver_key)
    ]
