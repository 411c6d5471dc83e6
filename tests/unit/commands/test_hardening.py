"""Hostile and broken input (issue 20): every case ends as one line on stderr with the right
exit code, no traceback, nothing half-written, within bounded memory and time. No CLI runs:
`probe` is started as a subprocess (under RLIMIT_AS and a timeout, so a regression fails
instead of eating the machine) or called in-process."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from probes import limits
from probes.cli import main
from probes.sweep import bump
from tests.helpers import ROOT, copy_record, copy_version

GIB = 2**30
SPEC = "claude@2.1.328"  # a version with committed evidence; faked as installed below
NEXT = "claude@2.1.329"


def _memory_bound():
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def probe(*args: str, cwd: Path, env: dict | None = None, timeout: float = 60, preexec=_memory_bound):
    """`probe ARGS` as a user runs it, in `cwd`, with at most 1 GiB of address space."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full.pop("PROBE_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "probes.cli", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=preexec,
        check=False,
    )


def one_line(proc, code: int, *wanted: str) -> str:
    """The exit code, and one stderr line starting `probe: ` holding every `wanted` text."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("probe: "), proc.stderr
    for w in wanted:
        assert w in lines[0], lines[0]
    return lines[0]


def snapshot(root: Path) -> dict:
    """Every entry under `root`: its type, and a regular file's bytes (FIFOs are not read)."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(dirpath) / name
            st = p.lstat()
            out[p.relative_to(root).as_posix()] = p.read_bytes() if stat.S_ISREG(st.st_mode) else stat.S_IFMT(st.st_mode)
    return out


@pytest.fixture
def env(tmp_path):
    """Recipes copied to tmp (PROBE_RECIPES), SPEC faked as installed (PROBE_CACHE) so `run`
    reaches the recipe without a registry, and the registry unreachable in case it is asked."""
    recipes = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", recipes)
    agent, version = SPEC.split("@")
    binary = tmp_path / "cache" / "cli" / agent / version / "node_modules" / ".bin" / agent
    binary.parent.mkdir(parents=True)
    binary.write_text("")
    return {"PROBE_RECIPES": str(recipes), "PROBE_CACHE": str(tmp_path / "cache"), "npm_config_registry": "http://127.0.0.1:9/"}


@pytest.fixture
def results(tmp_path):
    """Two versions of committed evidence."""
    dst = tmp_path / "results"
    for spec in (SPEC, NEXT):
        agent, version = spec.split("@")
        copy_version(ROOT / "results" / agent / version, dst / agent / version)
    return dst


def recipe_file(env: dict, name: str, text: str) -> Path:
    path = Path(env["PROBE_RECIPES"]) / f"{name}.yaml"
    path.write_text(text)
    return path


HEAD = "name: {name}\nquestion: q\nagents: [claude]\nclassifier: payload\ncontrol: payload-pretool\n"


# ---------------------------------------------------------------- recipes: resource bombs


LAUGHS = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'] + [
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)
]


@pytest.mark.parametrize("where", ["raw", "stdout"])
def test_billion_laughs_is_refused_when_the_recipe_loads(tmp_path, env, where):
    """9^9 strings if expanded; refused while the YAML is composed, so `list` refuses it too."""
    indent = " " * (6 if where == "raw" else 8)
    body = "".join(f"{indent}{line}\n" for line in LAUGHS)
    hook = f"    raw:\n{body}" if where == "raw" else f"    behavior:\n      stdout:\n{body}"
    path = recipe_file(env, "laughs", HEAD.format(name="laughs") + "hooks:\n  - event: pre_tool\n" + hook)
    before = snapshot(tmp_path)
    for args in (["list"], ["run", SPEC, "laughs"]):
        t0 = time.monotonic()
        one_line(
            probe(*args, cwd=tmp_path, env=env, timeout=30),
            2,
            f"invalid recipe {path}:",
            "anchors and aliases (&, *) are not allowed",
        )
        assert time.monotonic() - t0 < 20
    assert snapshot(tmp_path) == before


def test_deeply_nested_yaml_is_one_line(tmp_path, env):
    path = recipe_file(
        env, "deep", HEAD.format(name="deep") + "hooks:\n  - event: pre_tool\n    raw: " + "[" * 100_000 + "]" * 100_000 + "\n"
    )
    for args in (["list"], ["run", SPEC, "deep"]):
        one_line(probe(*args, cwd=tmp_path, env=env, timeout=30), 2, f"invalid recipe {path}:8: nested deeper than 32")


def test_a_huge_recipe_is_refused_by_its_size(tmp_path, env):
    path = recipe_file(
        env,
        "huge",
        HEAD.format(name="huge") + 'hooks:\n  - event: pre_tool\n    behavior: {stdout: "' + "x" * 30_000_000 + '"}\n',
    )
    t0 = time.monotonic()
    one_line(
        probe("list", cwd=tmp_path, env=env, timeout=30),
        2,
        f"invalid recipe {path}: 30000",
        f"over the limit of {limits.RECIPE_MAX_BYTES}",
    )
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize(
    "text, message",
    [
        ("x: !!python/object:os.system {}\n", "could not determine a constructor"),  # safe YAML only
        ("n: " + "1" * 5000 + "\n", "invalid recipe"),  # an integer too long to convert
        ("- 1\n", "expected a mapping at the top"),
        ("\xff", "not UTF-8"),
    ],
)
def test_odd_yaml_is_one_line(tmp_path, env, text, message):
    path = Path(env["PROBE_RECIPES"]) / "odd.yaml"
    path.write_bytes(text.encode("latin-1") if text == "\xff" else text.encode())
    one_line(probe("list", cwd=tmp_path, env=env), 2, f"invalid recipe {path}", message)


def test_yaml_limits_trip_before_construction():
    data, _ = limits.compose_yaml("a:\n" + "".join("  " * i + "- \n" for i in range(1, 30)))
    assert isinstance(data, dict)
    with pytest.raises(Exception, match="nested deeper than 32"):
        limits.compose_yaml("[" * 33 + "]" * 33)
    with pytest.raises(Exception, match="anchors and aliases"):
        limits.compose_yaml("a: &x 1\n")
    with pytest.raises(Exception, match="anchors and aliases"):
        limits.compose_yaml("a: {<<: *x}\n")


def test_shipped_recipes_use_no_anchors_and_stay_in_bounds():
    for path in (ROOT / "recipes").glob("*.yaml"):
        assert path.stat().st_size < limits.RECIPE_MAX_BYTES // 16
        limits.compose_yaml(path.read_text())  # no anchor, nothing too deep


# ---------------------------------------------------------------- recipes: names and paths


def test_a_file_named_unlike_a_recipe_fails_list_and_run_alike(tmp_path, env):
    shutil.copy(Path(env["PROBE_RECIPES"]) / "hang-pretool.yaml", Path(env["PROBE_RECIPES"]) / "Adv-Upper.yaml")
    one_line(probe("list", cwd=tmp_path, env=env), 2, "Adv-Upper.yaml: a recipe file is named NAME.yaml")
    one_line(probe("run", SPEC, "Adv-Upper", cwd=tmp_path, env=env), 2, "unknown recipe 'Adv-Upper'")
    (Path(env["PROBE_RECIPES"]) / "Adv-Upper.yaml").rename(Path(env["PROBE_RECIPES"]) / ".hidden.yaml")
    proc = probe("list", cwd=tmp_path, env=env)  # a hidden file is nobody's recipe
    assert proc.returncode == 0 and proc.stderr == "" and ".hidden" not in proc.stdout


def test_a_300_character_recipe_name_is_one_line(tmp_path, env):
    one_line(probe("run", SPEC, "a" * 300, cwd=tmp_path, env=env), 2, "unknown recipe 'aaaa", "at most 80 characters")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "extra, line, message",
    [
        ("cwd: /etc\n", 6, "cwd '/etc' must be relative to the workspace"),
        ("cwd: src/../../x\n", 6, "cwd 'src/../../x' climbs out of the workspace"),
        ('cwd: "a\\0b"\n', 6, "cwd: contains a NUL character"),
        (
            "turns: [{tool: create_file, path: /tmp/pwned}, {text: done}]\n",
            6,
            "turns.0.path: Value error, path '/tmp/pwned' must be relative",
        ),
        ("turns: [{tool: view_file, path: ~/.ssh/id_rsa}, {text: done}]\n", 6, "must be relative"),
        (
            "subagent_turns: [{tool: edit_file, path: ../../x}, {text: done}]\n",
            6,
            "subagent_turns.0.path: Value error, path '../../x' climbs out",
        ),
        (
            "mode: interactive\nsession: [{prompt: p, turns: [{tool: view_file, path: /etc/shadow}, {text: d}]}]\n",
            7,
            "session.0.turns.0.path",
        ),
        ("watch_files: [a.txt, ../../etc/passwd]\n", 6, "watched file '../../etc/passwd' climbs out"),
        ("env: {LD_PRELOAD: /tmp/x.so}\n", 6, "a recipe may not set LD_PRELOAD"),
        ("env: {DYLD_INSERT_LIBRARIES: /tmp/x.dylib}\n", 6, "a recipe may not set DYLD_INSERT_LIBRARIES"),
        ("env: {claude: {NODE_OPTIONS: --require=/tmp/x.js}}\n", 6, "a recipe may not set NODE_OPTIONS"),
        ("env: {PATH: /tmp}\n", 6, "a recipe may not set PATH"),
        ("env: {HOME: /root}\n", 6, "a recipe may not set HOME"),
        ("env: {PYTHONPATH: /tmp}\n", 6, "a recipe may not set PYTHONPATH"),
        ('env: {"A=B": x}\n', 6, "'A=B' is not an environment variable name"),
        ('prompt: "run\\0this"\n', 6, "prompt: contains a NUL character"),
        ("budget_s: 1000000\n", 6, "budget_s"),
    ],
)
def test_recipe_paths_and_env_are_checked_with_file_and_line(tmp_path, env, extra, line, message):
    path = recipe_file(env, "bad", HEAD.format(name="bad") + extra + "hooks: [{event: pre_tool}]\n")
    for args in (["list"], ["run", SPEC, "bad"]):
        one_line(probe(*args, cwd=tmp_path, env=env), 2, f"invalid recipe {path}:{line}: ", message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "recipes"]


def test_paths_that_stay_inside_are_accepted(tmp_path, env, monkeypatch):
    from probes.catalog.recipes import load_file

    path = recipe_file(
        env,
        "fine",
        HEAD.format(name="fine") + "cwd: src/./app/../lib\nwatch_files: [out/x.txt]\n"
        "turns: [{tool: create_file, path: sub/../made.txt}, {text: done}]\n"
        "env: {COPILOT_ALLOW_ALL: null, GITHUB_TOKEN: fake, LANG: C}\nhooks: [{event: pre_tool}]\n",
    )
    assert load_file(path).cwd == "src/./app/../lib"


# ---------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    "args, message",
    [
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--shard", "1/300000000", "--dry-run"], "at most 1000 shards"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--shard", "1/１", "--dry-run"], "expected I/N"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--shard", "1/2\n", "--dry-run"], "expected I/N"),
        (["bump", "--agent", "claude", "--shards", "300000000", "--dry-run", "--json"], "--shards must be from 1 to 1000"),
        (["bump", "--agent", "claude", "--shard", "1/99999999999999999999", "--dry-run"], "expected I/N"),
        (["run", SPEC, "hang-pretool", "--repeat", "1000000"], "--repeat must be from 1 to 100"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--jobs", "100000"], "--jobs must be from 1 to 64"),
        (["matrix", "--agent", "claude", "--versions", "2.1.328", "--repeat", "1000"], "--repeat must be from 1 to 100"),
    ],
)
def test_counts_are_bounded(tmp_path, env, args, message):
    t0 = time.monotonic()
    one_line(probe(*args, cwd=tmp_path, env=env, timeout=30), 2, message)
    assert time.monotonic() - t0 < 20 and sorted(p.name for p in tmp_path.iterdir()) == ["cache", "recipes"]


@pytest.mark.parametrize(
    "text",
    [f"{SPEC}\n", "claude@２.1.328", "claude@2.1.３28", f" {SPEC}", f"{SPEC}-" + "x" * 300, "claude@" + "1" * 300 + ".0.0"],
)
def test_a_spec_is_matched_whole_and_in_ascii(tmp_path, env, text):
    line = one_line(probe("run", text, "hang-pretool", cwd=tmp_path, env=env), 2, "malformed spec")
    assert "not published" not in line and len(line) < 300


@pytest.mark.parametrize(
    "args",
    [
        ["run", SPEC, "hang-pretool"],
        ["table"],
        ["merge", "elsewhere"],
        ["diff", SPEC, NEXT],
        ["cite", SPEC, "hang-pretool"],
        ["reclassify"],
        ["versions", "claude"],
    ],
)
def test_empty_results_is_refused(tmp_path, env, args):
    one_line(probe(*args, "--results", "", cwd=tmp_path, env=env), 2, "--results needs a directory, not ''")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "recipes"]


def test_merge_of_an_empty_dir_name_is_refused(tmp_path, env):
    one_line(probe("merge", "", "--results", "r", cwd=tmp_path, env=env), 2, "merge DIR: a directory, not ''")


# ---------------------------------------------------------------- corrupt evidence


def _no_outcome(path: Path) -> None:
    record = json.loads(path.read_text())
    del record["outcome"]
    path.write_text(json.dumps(record))


CORRUPT = {
    "truncated": (lambda p: p.write_bytes(p.read_bytes()[:100]), "not JSON"),
    "empty": (lambda p: p.write_bytes(b""), "not JSON"),
    "bad-utf8": (lambda p: p.write_bytes(b'{"a": "\xff"}'), "not UTF-8 at byte 7"),
    "list": (lambda p: p.write_text("[1, 2]"), "a JSON list, not an object"),
    "no-outcome": (_no_outcome, "outcome: Field required"),
    "deep": (lambda p: p.write_text("[" * 100_000 + "]" * 100_000), "nested deeper than 64"),
    "huge": (lambda p: os.truncate(p, limits.EVIDENCE_MAX_BYTES + 1), "over the limit"),
    "fifo": (lambda p: (p.unlink(), os.mkfifo(p)), "not a regular file"),
    "dev-zero": (lambda p: (p.unlink(), p.symlink_to("/dev/zero")), "not a regular file"),
    "directory": (lambda p: (p.unlink(), p.mkdir()), "not a regular file"),
    "bad-claims": (lambda p: p.write_text(json.dumps({**json.loads(p.read_text()), "claims": [{"x": 1}]})), "claims"),
}


SOME = ["truncated", "no-outcome", "fifo"]  # for the commands that read records the way `table` does


def spoil(results: Path, kind: str) -> tuple[Path, str]:
    """One committed record of SPEC made into something that is not a record: (its path as
    the commands name it, what they must say about it)."""
    path = results / "claude" / SPEC.split("@")[1] / "hang-pretool.json"
    make, why = CORRUPT[kind]
    make(path)
    return path.relative_to(results.parent), why


def _warned(proc, path: Path, why: str) -> None:
    assert "Traceback" not in proc.stderr and proc.returncode == 0, proc.stderr
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith(f"probe: warning: skipping {path}: not an evidence record (") and why in proc.stderr


@pytest.mark.parametrize(
    "args, kind",
    [(["table"], k) for k in sorted(CORRUPT)]
    + [
        (args, k)
        for args in (
            ["table", "--format", "html"],
            ["table", "--format", "json"],
            ["diff", SPEC, NEXT],
            ["diff", SPEC, NEXT, "--json"],
        )
        for k in SOME
    ],
)
def test_corrupt_evidence_is_skipped_and_the_rest_renders(tmp_path, env, results, args, kind):
    path, why = spoil(results, kind)
    proc = probe(*args, "--results", "results", cwd=tmp_path, env=env, timeout=60)
    _warned(proc, path, why)
    if args == ["table"]:
        assert "crash-pretool" in proc.stdout and "hang-pretool" in proc.stdout  # the other version's
        assert "crash-pretool" in (results / "claude.md").read_text()
    if "html" in args:
        assert "crash-pretool" in (results / "index.html").read_text()
    if args[0] == "diff":
        assert proc.stdout.strip()


@pytest.mark.parametrize("kind", sorted(CORRUPT))
def test_cite_refuses_a_corrupt_record_by_name(tmp_path, env, results, kind):
    path, why = spoil(results, kind)
    before = snapshot(tmp_path)
    one_line(
        probe("cite", SPEC, "hang-pretool", "--results", "results", cwd=tmp_path, env=env),
        2,
        f"probe: {path}: not an evidence record (",
        why,
    )
    proc = probe("cite", NEXT, "hang-pretool", "--results", "results", cwd=tmp_path, env=env)
    assert proc.returncode == 0 and proc.stderr == "" and "Measured fact" in proc.stdout  # other cells still cite
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", SOME)
def test_reclassify_skips_a_corrupt_record(tmp_path, env, results, kind):
    path, why = spoil(results, kind)
    before = snapshot(tmp_path)
    proc = probe("reclassify", "--results", "results", cwd=tmp_path, env=env, timeout=120)
    _warned(proc, path, why)
    assert proc.stdout.splitlines()[-1].startswith("0 record(s) changed")  # compact records are counted after it
    assert snapshot(tmp_path) == before


def test_probed_versions_skip_a_corrupt_record(results, capsys):
    for path in (results / "claude" / "2.1.328").glob("*.json"):
        path.write_text("{")
    assert bump.probed_versions(results, "claude") == ["2.1.329"]
    err = capsys.readouterr().err
    assert err.count("probe: warning: skipping") == len(list((results / "claude" / "2.1.328").glob("*.json")))


def test_bump_runs_a_corrupt_cell_again(results, monkeypatch):
    from probes.sweep import matrix
    from probes.versions import spec

    monkeypatch.setattr(spec, "published", lambda package: spec.Published(["2.1.327", "2.1.328", "2.1.329"], "2.1.329"))
    (results / "claude" / "2.1.329" / "hang-pretool.json").write_text("[]")
    plan = bump.plan("claude", results, "2.1.328", "hang-pretool")
    assert [c.spec for c in plan.cells] == [NEXT] and plan.already == 0
    assert matrix.parse_shard("2/3") == (2, 3)


# ---------------------------------------------------------------- merge


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.symlink_to("/dev/zero"), "a symlink, not a regular file"),
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: p.mkdir(), "not a regular file"),
        (lambda p: p.write_bytes(b"\0" * (limits.EVIDENCE_MAX_BYTES + 1)), "over the limit"),
        (lambda p: p.symlink_to(ROOT / "results" / "claude" / "2.1.328" / "hang-pretool.json"), "a symlink"),
    ],
)
def test_merge_reads_only_regular_files_inside_the_shard(tmp_path, env, make, message):
    shard = tmp_path / "shard" / "claude" / "2.1.328"
    shard.mkdir(parents=True)
    make(shard / "hang-pretool.json")
    t0 = time.monotonic()
    one_line(
        probe("merge", "shard", "--results", "merged", cwd=tmp_path, env=env, timeout=30),
        2,
        "shard/claude/2.1.328/hang-pretool.json: not an evidence record (",
        message,
    )
    assert time.monotonic() - t0 < 20 and not (tmp_path / "merged").exists()


def test_merge_refuses_a_symlinked_directory(tmp_path, env):
    (tmp_path / "shard" / "claude").mkdir(parents=True)
    (tmp_path / "shard" / "claude" / "2.1.328").symlink_to(ROOT / "results" / "claude" / "2.1.328")
    one_line(
        probe("merge", "shard", "--results", "merged", cwd=tmp_path, env=env),
        2,
        "shard/claude/2.1.328: a symlink, not a directory of the tree",
    )
    assert not (tmp_path / "merged").exists()


def test_merge_names_a_corrupt_file_of_the_destination(tmp_path, env, results):
    (results / "claude" / "2.1.329" / "crash-pretool.json").write_text("{")
    shard = tmp_path / "shard" / "claude" / "2.1.328"
    shard.mkdir(parents=True)
    copy_record(ROOT / "results" / "claude" / "2.1.328" / "hang-pretool.json", shard / "hang-pretool.json")
    (results / "claude" / "2.1.328" / "hang-pretool.json").unlink()
    before = snapshot(tmp_path)
    one_line(
        probe("merge", "shard", "--results", "results", cwd=tmp_path, env=env),
        2,
        "results/claude/2.1.329/crash-pretool.json: not an evidence record (not JSON",
    )
    assert snapshot(tmp_path) == before


def test_merge_into_a_file_is_one_line(tmp_path, env, results):
    (tmp_path / "file").write_text("x")
    one_line(probe("merge", "results", "--results", "file", cwd=tmp_path, env=env), 2, "--results file is not a directory")
    one_line(probe("merge", "file", "--results", "out", cwd=tmp_path, env=env), 2, "no results directory file: it is a file")
    assert (tmp_path / "file").read_text() == "x" and not (tmp_path / "out").exists()


# ---------------------------------------------------------------- tables: output, atomic writes


@pytest.mark.parametrize(
    "output, message", [(".", "--output . is a directory"), ("missing/x.html", "--output missing/x.html: no directory missing")]
)
def test_table_output_must_be_a_file_in_an_existing_directory(tmp_path, env, results, output, message):
    before = snapshot(tmp_path)
    one_line(probe("table", "--format", "html", "--output", output, "--results", "results", cwd=tmp_path, env=env), 2, message)
    assert snapshot(tmp_path) == before


def _small_disk():
    """A disk that takes 2000 bytes per file: writes past that fail with EFBIG (a full disk)."""
    _memory_bound()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))


@pytest.mark.parametrize("args, written", [(["table"], "claude.md"), (["table", "--format", "html"], "index.html")])
def test_a_full_disk_leaves_the_old_tables_whole(tmp_path, env, results, args, written):
    assert probe("table", "--format", "html", "--results", "results", cwd=tmp_path, env=env).returncode == 0
    assert probe("table", "--results", "results", cwd=tmp_path, env=env).returncode == 0
    before = snapshot(tmp_path)
    proc = probe(*args, "--results", "results", cwd=tmp_path, env=env, preexec=_small_disk)
    one_line(proc, 1, f"cannot write table results/{written}: File too large")
    assert snapshot(tmp_path) == before  # the old tables, whole; no temporary file left


def test_write_atomic_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    from probes.errors import HarnessError
    from probes.evidence.model import write_atomic

    path = tmp_path / "claude.md"
    path.write_text("old\n")

    def full(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(HarnessError, match="cannot write table .*No space left on device; check"):
        write_atomic(path, "new\n", "table", "check the results directory")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["claude.md"]


# ---------------------------------------------------------------- bump plans, JSON limits


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.symlink_to("/dev/zero"), "not a regular file"),
        (lambda p: os.mkfifo(p), "not a regular file"),
        (lambda p: p.write_text("[" * 100_000), "nested deeper than 64"),
        (lambda p: p.write_text('{"plans": [{"agent": "claude"}]}'), "(no 'from')"),
        (lambda p: p.write_text('{"plans": {"agent": "claude"}}'), "not the output"),
        (
            lambda p: p.write_text('{"plans": [{"agent": "claude", "from": "1", "recipe": "all", "versions": [1]}]}'),
            "must be strings",
        ),
        (lambda p: p.write_text(" " * (limits.PLAN_MAX_BYTES + 1)), "over the limit"),
    ],
)
def test_a_bad_plan_file_is_one_line(tmp_path, env, make, message):
    make(tmp_path / "plan.json")
    one_line(
        probe("bump", "--plan", "plan.json", "--results", "results", cwd=tmp_path, env=env, timeout=30),
        2,
        "--plan plan.json: not the output of `probe bump --dry-run --json`",
        message,
    )
    assert not (tmp_path / "results").exists()


def test_json_depth_and_size_are_bounded(tmp_path):
    assert limits.parse_json(b'{"a": [[1]]}') == {"a": [[1]]}
    for data, why in (
        (b"[" * 65 + b"]" * 65, "nested deeper"),
        (b"[" * 100_000, "nested deeper"),
        (b"1" * 5000, "not JSON"),
        (b"\xff", "not UTF-8"),
    ):
        with pytest.raises(limits.BadFile, match=why):
            limits.parse_json(data)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(limits.BadFile, match="11 bytes, over the limit of 10"):
        limits.read_bounded(big, 10)


def test_committed_evidence_is_well_inside_the_limits():
    from probes.evidence.model import load_evidence

    paths = sorted((ROOT / "results").glob("*/*/*.json"))
    assert max(p.stat().st_size for p in paths) < limits.EVIDENCE_MAX_BYTES // 16
    for p in paths:
        load_evidence(p)


def test_an_unexpected_error_is_still_one_line(monkeypatch, capsys):
    from probes.commands import list_

    monkeypatch.delenv("PROBE_DEBUG", raising=False)
    monkeypatch.setattr(list_, "handle", lambda args: {}["boom"])
    assert main(["list"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("probe: internal error (KeyError: 'boom')")


def test_cite_of_a_path_like_recipe_finds_nothing(tmp_path, env, results):
    one_line(probe("cite", SPEC, "../../x", "--results", "results", cwd=tmp_path, env=env), 2, "no evidence for")


# ---------------------------------------------------------------- probe check: the user's folder (item 8)

HOOK = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}}


def hooks_folder(tmp_path: Path, config: str | None = None) -> Path:
    """A --hooks folder with one Claude hook, or `config` as its settings file."""
    folder = tmp_path / "hooks"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(HOOK) if config is None else config)
    return folder


def checked_fast(tmp_path: Path, env: dict, folder: Path, *wanted: str, within: float = 5) -> str:
    """`probe check` on `folder`: exit 2 and one line within `within` seconds (a hang fails by
    the timeout), nothing written under --results."""
    t0 = time.monotonic()
    proc = probe("check", SPEC, "--hooks", str(folder), "--results", "out", cwd=tmp_path, env=env, timeout=within + 10)
    took = time.monotonic() - t0
    line = one_line(proc, 2, *wanted)
    assert took < within, took
    assert not (tmp_path / "out").exists()
    return line


def test_a_config_nested_10000_deep_is_one_line_at_once(tmp_path, env):
    folder = hooks_folder(tmp_path, '{"hooks": ' + "[" * 10_000 + "]" * 10_000 + "}")
    checked_fast(tmp_path, env, folder, ".claude/settings.json: nested deeper than 64")
    folder = hooks_folder(tmp_path / "b", '{"hooks": ' + "[" * 70 + "]" * 70 + "}")  # under the stack's limit, over ours
    checked_fast(tmp_path / "b", env, folder, ".claude/settings.json: nested deeper than 64")


@pytest.mark.parametrize("where", ["pipe", ".claude/hooks/pipe", ".claude/settings.json"])
def test_a_fifo_in_the_hooks_folder_is_refused_at_once(tmp_path, env, where):
    """Opening a FIFO blocks until a writer comes: it is refused by its type, never opened."""
    folder = hooks_folder(tmp_path)
    (folder / where).parent.mkdir(parents=True, exist_ok=True)
    (folder / where).unlink(missing_ok=True)
    os.mkfifo(folder / where)
    checked_fast(tmp_path, env, folder, f"{where} is a FIFO")


def test_a_socket_or_device_in_the_hooks_folder_is_refused(tmp_path, env):
    import socket

    folder = hooks_folder(tmp_path)
    with socket.socket(socket.AF_UNIX) as s:
        os.chdir(folder)  # a socket's path is short
        try:
            s.bind("s.sock")
        finally:
            os.chdir(ROOT)
        checked_fast(tmp_path, env, folder, "s.sock is a socket")
    (folder / "s.sock").unlink()
    try:
        os.mknod(folder / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        return  # not root: no device can be made here
    checked_fast(tmp_path, env, folder, "null is a device")


@pytest.mark.parametrize("target", ["/etc/passwd", "../../outside.txt", "../.."])
def test_a_link_leading_out_of_the_hooks_folder_is_refused(tmp_path, env, target):
    """Its target is not the user's folder: not read, not copied (a link inside is copied as a link)."""
    folder = hooks_folder(tmp_path)
    (tmp_path / "outside.txt").write_text("not the folder's")
    (folder / ".claude" / "link").symlink_to(target)
    checked_fast(tmp_path, env, folder, f".claude/link is a link to {target}, outside the folder")


def test_a_config_that_is_a_link_is_refused(tmp_path, env):
    folder = hooks_folder(tmp_path)
    (folder / "real.json").write_text(json.dumps(HOOK))
    (folder / ".claude" / "settings.json").unlink()
    (folder / ".claude" / "settings.json").symlink_to("../real.json")
    checked_fast(tmp_path, env, folder, ".claude/settings.json: a symlink, not a regular file")


def test_hooks_are_capped_per_config_and_in_all(tmp_path, env):
    many = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}] * 10_000}]}}
    folder = hooks_folder(tmp_path, json.dumps(many))
    checked_fast(tmp_path, env, folder, f"10000 hooks, over the limit of {limits.HOOKS_PER_CONFIG_MAX} in one file")
    # Copilot reads every .github/hooks/*.json: three files, each under the cap, over it in all
    folder = tmp_path / "b" / "hooks"
    per = limits.HOOKS_MAX // 2
    for n in range(3):
        write = folder / ".github" / "hooks" / f"h{n}.json"
        write.parent.mkdir(parents=True, exist_ok=True)
        write.write_text(json.dumps({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "true"}] * per}}))
    proc = probe("check", "copilot@1.0.92", "--hooks", str(folder), "--results", "out", cwd=tmp_path / "b", env=env, timeout=30)
    one_line(proc, 2, f"{3 * per} hooks in all, over the limit of {limits.HOOKS_MAX}")
    assert not (tmp_path / "b" / "out").exists()


TIMED = '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": %s}]}]}}'


@pytest.mark.parametrize(
    "config, message",
    [
        ('{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a\\u0000b"}]}]}}', "contains a NUL"),
        (" " * (limits.HOOK_CONFIG_MAX_BYTES + 1), "over the limit of"),
        ('{"hooks": ' + "1" * 5000 + "}", "not valid JSON"),
        (TIMED % ("1" + "0" * 400), "a timeout too large to read"),
        (TIMED % "1e999", "a timeout that is not a finite number"),
    ],
)
def test_odd_configs_are_one_line(tmp_path, env, config, message):
    checked_fast(tmp_path, env, hooks_folder(tmp_path, config), ".claude/settings.json", message)


def test_a_scenario_with_anchors_is_refused_like_a_recipe(tmp_path, env):
    (tmp_path / "laughs.yaml").write_text("turns:\n" + "".join(f"  {line}\n" for line in LAUGHS).replace("  a:", "  - a:", 1))
    (tmp_path / "alias.yaml").write_text("x: &x {tool: shell}\nturns: [*x]\n")
    for name in ("laughs.yaml", "alias.yaml"):
        args = ("check", SPEC, "--hooks", str(ROOT / "examples" / "hooks"), "--scenario", name, "--results", "out")
        one_line(probe(*args, cwd=tmp_path, env=env, timeout=30), 2, f"invalid scenario {name}:", "anchors and aliases")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- probe import: the person's log (item 8)


def log_line(**kw) -> dict:
    """One line as record.py writes it."""
    return {
        "recorder": 1,
        "agent": "vscode",
        "event": "Stop",
        "argv": [".probe-recorder/record.py", "vscode", "Stop"],
        "cwd": "/w",
        "cwd_relative": ".",
        "workspace": "/w",
        "home": "/h",
        "pid": 7,
        "started_at": "2026-01-05T10:20:30.123Z",
        "ended_at": "2026-01-05T10:20:30.200Z",
        "duration_s": 0.077,
        "platform": {"system": "Linux", "machine": "x86_64"},
        "env_names": ["PATH"],
        "env_versions": {"VSCODE_VERSION": "1.139.1"},
        "product": {},
        "payload": {"hook_event_name": "Stop"},
        "stdin_eof": True,
        **kw,
    }


def imported(tmp_path: Path, lines: list[dict], env: dict | None = None) -> subprocess.CompletedProcess:
    log = tmp_path / "ws" / ".probe-recorder" / "log.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return probe("import", "ws", "--results", "out", cwd=tmp_path, env=env, timeout=60)


@pytest.mark.parametrize("stamp", ["2026-01-05T10:20:30\0.123Z", "2026-01-05/10:20:30.123Z", "2026-01-05\n10:20:30.123Z"])
def test_an_imported_time_that_would_reach_the_file_name_is_one_line(tmp_path, stamp):
    """fromisoformat takes any one character between date and time: a NUL, `/` or newline
    would have made the record's file name."""
    line = one_line(imported(tmp_path, [log_line(started_at=stamp)]), 2, "log.jsonl:1: not a recorder log line")
    assert "is not an ISO 8601 time with a zone" in line
    assert not (tmp_path / "out").exists()


def test_an_imported_record_is_named_by_its_utc_time(tmp_path):
    proc = imported(tmp_path, [log_line(started_at="2026-01-05T12:20:30.5+02:00")])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "out/vscode/_recorded/1.139.1/recorded-20260105T102030Z.json"


def test_an_imported_line_or_record_over_what_readers_accept_is_one_line(tmp_path):
    big = log_line(payload={"x": "y" * limits.EVIDENCE_MAX_BYTES})
    line = one_line(imported(tmp_path, [log_line(), big]), 2, "log.jsonl:2: a line of")
    assert f"over the limit of {limits.EVIDENCE_MAX_BYTES}" in line
    assert not (tmp_path / "out").exists()
    many = [log_line(payload={"x": "y" * (limits.EVIDENCE_MAX_BYTES // 10)}) for _ in range(12)]  # each fits, not all
    line = one_line(imported(tmp_path, many), 2, "the record of vscode 1.139.1 (12 lines) would be unreadable")
    assert "split the log" in line
    assert not (tmp_path / "out").exists()
