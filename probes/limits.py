"""Bounded input: every YAML or JSON file the harness reads goes through here, so a hostile
or broken file costs a bounded amount of memory and time and ends as one line, never as a
traceback or a machine out of memory. And what a recipe may name: paths inside the run, no
loader or module-path variables."""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RECIPE_MAX_BYTES = 256 * 1024  # shipped recipes are under 2 KiB
EVIDENCE_MAX_BYTES = 8 * 1024 * 1024  # the biggest committed record is ~140 KiB (sampled sessions)
BLOB_MAX_BYTES = EVIDENCE_MAX_BYTES  # one value a record refers to (store.py); the biggest is ~22 KiB
EXPANDED_MAX_BYTES = 4 * EVIDENCE_MAX_BYTES  # all a record's refs expand to (a ref may repeat)
PLAN_MAX_BYTES = 1024 * 1024  # a `bump --dry-run --json` plan: versions and shard jobs
YAML_MAX_DEPTH = 32  # shipped recipes nest 9 deep
JSON_MAX_DEPTH = 64  # committed evidence nests 8 deep
HOOK_CONFIG_MAX_BYTES = 1024 * 1024  # one hook config file `probe check` reads (the examples are under 1 KiB)
HOOK_CONFIGS_MAX = 32  # hook config files in a --hooks folder (an agent reads one to three)
HOOKS_PER_CONFIG_MAX = 100  # command hooks in one config file
HOOKS_MAX = 200  # command hooks in all: each is installed, run and reported in every session
MAX_SHARDS = 1000  # a CI matrix is capped at 256 jobs; shards cost a list of loads each
MAX_REPEAT = 100
MAX_JOBS = 64
LIST_TRIES = 5  # a results tree listed again when a folder vanished while it was listed


def listed(root: Path, pattern: str = "*/*/*.json") -> list[Path]:
    """`root.glob(pattern)`, sorted, listed again when a folder vanished midway: pathlib
    raises FileNotFoundError for it (Python 3.11), and another `probe` process sharing the
    results removes an `unknown-V` folder once its record is discarded (unrunnable.py)."""
    for _ in range(LIST_TRIES - 1):
        try:
            return sorted(root.glob(pattern))
        except FileNotFoundError:
            continue
    return sorted(root.glob(pattern))


class BadFile(ValueError):
    """A file that is not what it should be; the caller names it in its own words."""


def read_bounded(path: Path, limit: int, follow: bool = True) -> bytes:
    """A regular file's bytes, at most `limit`. O_NONBLOCK so a FIFO cannot hang the open,
    fstat on the opened descriptor so a device or FIFO is refused before one byte is read,
    O_NOFOLLOW (unless `follow`) so a symlink is refused rather than read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow and os.path.islink(path):
            raise BadFile("a symlink, not a regular file") from None
        raise BadFile(f"cannot read: {e.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadFile("not a regular file")
        if st.st_size > limit:
            raise BadFile(f"{st.st_size} bytes, over the limit of {limit}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)  # the size may grow between fstat and read
    except OSError as e:
        raise BadFile(f"cannot read: {e.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise BadFile(f"over the limit of {limit} bytes")
    return data


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadFile(f"not UTF-8 at byte {e.start}") from None


def json_depth(value: Any) -> int:
    """Nesting depth, walked iteratively (a deep value must not exhaust the stack here)."""
    deepest, todo = 0, [(value, 1)]  # (a value, its depth)
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if d > JSON_MAX_DEPTH:
                break
            todo += [(x, d + 1) for x in (v.values() if isinstance(v, dict) else v) if isinstance(x, (dict, list))]
    return deepest


def load_json(path: Path, limit: int, follow: bool = True) -> Any:
    """Parsed JSON from a bounded regular file; BadFile says why not."""
    return parse_json(read_bounded(path, limit, follow))


def parse_json(data: bytes) -> Any:
    """UTF-8 JSON no deeper than JSON_MAX_DEPTH; BadFile says why not."""
    text = decode(data)
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadFile(f"nested deeper than {JSON_MAX_DEPTH}") from None
    except ValueError as e:  # JSONDecodeError, or an integer too long to convert
        raise BadFile(f"not JSON: {str(e).splitlines()[0]}") from None
    if json_depth(value) > JSON_MAX_DEPTH:
        raise BadFile(f"nested deeper than {JSON_MAX_DEPTH}")
    return value


def compose_yaml(text: str) -> tuple[object, object]:
    """(data, node tree) of one safe YAML document; yaml.YAMLError says why not. No anchors or
    aliases (no recipe needs them; they are what makes a billion-laughs file expand) and no
    deeper than YAML_MAX_DEPTH: both checked on the parser's events, before any node is
    composed or constructed. libyaml parses when present (ten times faster: `probe list`
    reads every recipe), the pure-Python parser otherwise."""
    import yaml  # here, not at the top: most readers read only JSON (evidence, records), yaml costs ~20 ms
    from yaml.composer import ComposerError

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = 0  # collections open around the next node
    deeper = f"nested deeper than {YAML_MAX_DEPTH}"
    try:
        for event in yaml.parse(text, Loader=loader):
            mark: Any = event.start_mark
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise ComposerError(None, None, "anchors and aliases (&, *) are not allowed", mark)
            if isinstance(event, yaml.NodeEvent) and depth >= YAML_MAX_DEPTH:
                raise ComposerError(None, None, deeper, mark)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as e:
        if e.problem != "exceeded maximum nesting depth":  # libyaml's own bound (1000), met scanning ahead
            raise
        raise ComposerError(None, None, deeper, e.problem_mark) from None
    composer = loader(text)
    try:
        node = composer.get_single_node()
        return (composer.construct_document(node) if node is not None else None), node
    finally:
        composer.dispose()


def nul_at(data: object) -> tuple[Any, ...] | None:
    """Where the first string (key or value) holding NUL is: no argv, env or file name can."""
    todo: list[tuple[tuple[Any, ...], object]] = [((), data)]
    while todo:
        loc, v = todo.pop()
        items: Any = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in items:
            if (isinstance(k, str) and "\0" in k) or (isinstance(x, str) and "\0" in x):
                return (*loc, k)
            todo.append(((*loc, k), x))
    return None


def yaml_line(node: Any, loc: Sequence[Any]) -> int | None:
    """The 1-based line of the YAML node at `loc` (as deep as it exists), for error messages."""
    import yaml  # as in compose_yaml: only a YAML reader pays for it

    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        if node is None:
            break
        line = node.start_mark.line + 1
    return line


# ---------------------------------------------------------------- what a recipe may name

# Variables that make a program load code or files from outside the run (the dynamic
# loader, Node and Python module paths, shell start-up files) or move it out of its private
# home: a recipe must not set them. No shipped recipe does.
ENV_DENIED = (
    "PATH",
    "HOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUSERBASE",
    "BASH_ENV",
    "ENV",
)
ENV_DENIED_PREFIXES = ("LD_", "DYLD_")
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


def inside(path: str | None, what: str, base: str) -> str | None:
    """A path that stays inside `base`: relative, without NUL, not climbing out with `..`.
    `cwd` is inside the workspace and the other paths inside `cwd` (where the CLI starts),
    so every file a recipe names is in the workspace whatever `cwd` is."""
    if path is None:
        return path
    if "\0" in path:
        raise ValueError(f"{what} contains a NUL character")
    if path.startswith(("/", "~")) or posixpath.isabs(path):
        raise ValueError(f"{what} {path!r} must be relative to {base}")
    if posixpath.normpath(path).split("/")[0] == "..":
        raise ValueError(f"{what} {path!r} climbs out of {base}")
    return path


def check_env(env: Mapping[str, Any]) -> Mapping[str, Any]:
    """A recipe's environment changes (one level of per-agent dicts), or ValueError."""
    for name, value in env.items():
        if isinstance(value, dict):
            check_env(value)
            continue
        if not ENV_NAME_RE.fullmatch(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        if name in ENV_DENIED or name.startswith(ENV_DENIED_PREFIXES):
            raise ValueError(
                f"a recipe may not set {name}: loader, module-path and home variables would load "
                f"code or files from outside the run (LD_*, DYLD_*, {', '.join(ENV_DENIED)})"
            )
        if value is not None and "\0" in value:
            raise ValueError(f"{name} contains a NUL character")
    return env


_warned: set[str] = set()


def warn(message: str) -> None:
    """One line on stderr, once per message per process (several readers may meet one file)."""
    if message not in _warned:
        _warned.add(message)
        print(f"probe: warning: {message}", file=sys.stderr)
