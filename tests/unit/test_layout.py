"""The layout holds: no import cycle among probes' modules (function-local imports count:
they only hide a cycle), no module over 400 lines, every command in probes/commands/, and
every repository file the README and docs name exists (nothing outside the clone). Read
from the source with `ast` (and `probe --help`): no agent's CLI, no network."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PACKAGE = ROOT / "probes"
MAX_LINES = 400
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported(node: ast.AST, module: str) -> set[str]:
    """The probes modules `node`'s code imports, at any depth (functions included), leaving out
    `if TYPE_CHECKING:` blocks, which never run."""
    out: set[str] = set()
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for orelse in child.orelse:
                out |= imported(ast.Module(body=[orelse], type_ignores=[]), module)
            continue
        if isinstance(child, ast.Import):
            out |= {resolve(a.name) for a in child.names}
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:  # relative: from the importing module's package
                package = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
                base = ".".join(package[: len(package) - child.level + 1] + ([base] if base else []))
            for a in child.names:  # `from pkg import sub` imports the submodule
                out.add(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else resolve(base))
        out |= imported(child, module)
    return {m for m in out if m in MODULES and m != module}


def resolve(name: str) -> str:
    """The longest prefix of a dotted name that is one of probes' modules."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def graph() -> dict[str, set[str]]:
    return {m: imported(ast.parse(p.read_text()), m) for m, p in MODULES.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def a_cycle(edges: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module, as the path that closes it."""
    start = min(component)
    paths = {start: [start]}
    todo = [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(edges[v] & component):
            if w == start:
                return [*paths[v], start]
            if w not in paths:
                paths[w] = [*paths[v], w]
                todo.append(w)
    raise AssertionError(f"no cycle in {component}")


def test_the_walker_sees_function_local_imports_and_skips_type_checking():
    code = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from probes.errors import InputError\n"
        "if TYPE_CHECKING:\n    from probes.cli import main\n"
        "def f():\n    from probes.report import tables\n"
    )
    assert imported(code, "probes.limits") == {"probes.errors", "probes.report.tables"}
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert a_cycle(edges, {"a", "b", "c"}) == ["a", "b", "c", "a"]


def test_no_import_cycle():
    edges = graph()
    found = cycles(edges)
    assert not found, "import cycles (one shown per tangle, then every module in it):\n" + "\n".join(
        " -> ".join(a_cycle(edges, set(c))) + f"\n    tangle: {', '.join(c)}" for c in found
    )


def test_no_module_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in MODULES.values() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"


# ---------------------------------------------------------------- commands


def subcommands() -> set[str]:
    """Every `probe` subcommand, as `probe --help` lists them ({run,check,...}): our own command
    line in a subprocess, which imports no command's module for --help."""
    out = subprocess.run([sys.executable, "-m", "probes.cli", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    choices = re.search(r"\{([\w,-]+)\}", out.stdout)
    assert out.returncode == 0 and choices, out.stderr or out.stdout
    return set(choices[1].split(","))


def command_table() -> dict[str, str]:
    """cli.py's lazy table: a module-level dict of command name -> the module (or
    module:function) that holds it."""
    for node in ast.parse((PACKAGE / "cli.py").read_text()).body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Dict) and value.keys:
            pairs = {}
            for k, v in zip(value.keys, value.values, strict=True):
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(v.value, str):
                    pairs[k.value] = v.value
            if pairs and all(v.startswith("probes.") for v in pairs.values()):
                return pairs
    return {}


def test_every_command_is_a_module_under_commands():
    table = command_table()
    assert table, "probes/cli.py has no lazy table of commands (name -> 'probes.commands.<module>')"
    listed = subcommands()
    assert listed <= set(table), f"commands without a module in the table: {sorted(listed - set(table))}"
    for name, target in sorted(table.items()):
        module = target.partition(":")[0]
        assert module.startswith("probes.commands."), f"{name}: {target} is not under probes/commands/"
        assert module in MODULES, f"{name}: no module {module}"


# ---------------------------------------------------------------- what the docs name

# results/<agent>/..., $RUN/bin, recipes/NAME.yaml: a pattern, not one file
TEMPLATE = re.compile(r"[<>*$?{}]|\.\.\.|…|(^|/)(NAME|AGENT|DIR|RESULTS)(/|\.|$)")
GENERATED = {"probes/COMMIT"}  # the Dockerfile writes it (--build-arg PROBE_COMMIT)
OUTSIDE = ("CONTRACT.md", "DESIGN.md", "../shared/")  # files a clone does not have
TOP = {p.name for p in ROOT.iterdir() if not p.name.startswith((".venv", ".git", ".mypy", ".pytest", ".ruff"))} | {".github"}
FILES = {p.name for d in ("probes", "tests", "benchmarks", "containers", ".ci") for p in (ROOT / d).rglob("*") if p.is_file()}


def named(page: Path) -> list[str]:
    """The path-like tokens in `code` spans and link targets."""
    text = page.read_text()
    return re.findall(r"`([^`\s]+)`", text) + re.findall(r"\]\(([^)#\s]+)", text)


def missing(page: Path, token: str) -> str | None:
    """Why `token` names a repository file that is not there; None when it is, or is no
    repository path (a workspace's .claude/settings.json, /tmp, a URL, a template)."""
    if any(o in token for o in OUTSIDE):
        return "outside the repository"
    if token.startswith(("http://", "https://", "mailto:")) or TEMPLATE.search(token):
        return None
    path = token.split("::")[0]  # tests/test_x.py::test_y
    if path in GENERATED:
        return None
    if re.fullmatch(r"probes(\.\w+)+", path):  # a module or one of its names
        return None if resolve(path) and defines(path) else "no such module or name"
    if "/" not in path:
        if re.fullmatch(r"\w[\w-]*\.py", path):  # a module named by its file name
            return None if path in FILES else "no file of this name"
        return None if not path.endswith(".md") or (page.parent / path).exists() or (ROOT / path).exists() else "no such page"
    first = path.lstrip("./").split("/")[0]
    if path.startswith("../") or path.startswith("./") and (page.parent / path).exists():
        return None if (page.parent / path).exists() else "no such file"
    if first in TOP and not path.startswith("/"):
        return None if (ROOT / path).exists() else "no such file"
    return None


def defines(dotted: str) -> bool:
    """The module part exists and, when a name follows, the module defines it at the top."""
    module = resolve(dotted)
    rest = dotted[len(module) + 1 :].split(".")[0] if dotted != module else ""
    if not rest:
        return module.count(".") >= 1
    tree = ast.parse(MODULES[module].read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return rest in names or f"{module}.{rest}" in MODULES


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_the_docs_name_exists(page):
    bad = sorted({f"{t} ({why})" for t in named(page) if (why := missing(page, t))})
    assert not bad, f"{page.relative_to(ROOT)} names: {', '.join(bad)}"


def test_the_docs_check_sees_what_is_missing():
    page = ROOT / "docs" / "evidence.md"
    assert missing(page, "probes/evidence/store.py") is None
    assert missing(page, "probes/store.py") == "no such file"
    assert missing(page, "CONTRACT.md") == "outside the repository"
    assert missing(page, "results/<agent>/<version>/<recipe>.json") is None
    assert missing(page, ".claude/settings.json") is None  # a workspace's file, not ours
    assert missing(page, "probes.evidence.layout.dumps") is None
    assert missing(page, "probes.install.install") == "no such module or name"
