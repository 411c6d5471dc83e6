"""The real CLIs, installed from npm by the harness, against the scripted model: every
shipped recipe and control, on Copilot 1.0.92, 1.0.80 and 1.0.71 and Claude Code 2.1.328.
Every CI run re-runs the core recipes (`core: true` and their controls) on each pinned version;
the rest of the catalog runs nightly (pytest -m catalog): CI stays well under 30 minutes as the
catalog and the agents grow, while each harness part has its own fast real test elsewhere."""

from __future__ import annotations

import json

import pytest

from probes.catalog.recipes import core_names, load_all
from probes.evidence.model import load_evidence
from tests.helpers import CLAUDE, COPILOT, COPILOT_OLD, COPILOT_OLDER, ROOT, probe_cmd

pytestmark = pytest.mark.real

RECIPES = load_all()
SPECS = (COPILOT, COPILOT_OLD, COPILOT_OLDER, CLAUDE)
CORE = core_names(RECIPES)

RESULTS = ROOT / "results"


def expected(spec: str, recipe: str) -> str:
    """What this pinned version did when its evidence was committed (results/). Pinned
    versions do not change, so a different label is a change in the harness, or a label that
    depends on a race."""
    agent, version = spec.split("@")
    path = RESULTS / agent / version / f"{recipe}.json"
    assert path.exists(), f"no evidence for {spec} {recipe}: probe run {spec} {recipe}"
    return load_evidence(path)["outcome"]


LONG_S = 60  # a slow recipe longer than this runs nightly and on demand (pytest -m long), not in every CI run


def beyond_command(name: str) -> bool:
    """A recipe of another handler type than the instrumented command, or with handler fields:
    each kind is run end to end by test_hook_kinds.py and test_hook_fields.py in every CI run;
    their pinned re-runs here go to the nightly (pytest -m catalog), so CI stays well under 30
    minutes as the catalog grows."""
    hooks = RECIPES[name].hooks
    handlers = [h for hook in hooks for h in (hook.handler.values() if isinstance(hook.handler, dict) else [hook.handler])]
    return any(h.type != "command" or h.fields() for h in handlers)


def case(spec: str, name: str):
    long = RECIPES[name].slow and RECIPES[name].budget_s > LONG_S
    nightly = beyond_command(name) or name not in CORE
    marks = [*([pytest.mark.long] if long else []), *([pytest.mark.catalog] if nightly else [])]
    return pytest.param(spec, name, marks=marks)


CASES = [case(spec, name) for spec in SPECS for name, r in sorted(RECIPES.items()) if spec.split("@")[0] in r.agents]


@pytest.mark.parametrize("spec, recipe", CASES)
def test_recipe_gives_its_committed_label(spec, recipe, run_probe):
    """With test_classify's check that every recipe's committed label differs from its
    control's, this proves each recipe and its control disagree on every pinned version."""
    ev = run_probe(spec, recipe)
    requested = spec.split("@")[1]
    assert ev["executed_version"] == ev["requested_version"] == requested
    assert not ev["version_mismatch"]
    assert ev["network"] == "isolated"
    assert ev["outcome"] == expected(spec, recipe)


@pytest.mark.parametrize("spec", SPECS)
def test_hang_pretool_is_killed_at_its_timeout(spec, run_probe):
    ev = run_probe(spec, "hang-pretool")
    obs = ev["observations"]
    assert obs["tool_ran"] and obs["hook_killed"] and obs["hook_killed_by"] == "cli"
    assert obs["hook_timeout_s"] == 3
    assert 2.5 <= obs["tool_delay_s"] <= 6.0
    assert not ev["cli"]["timed_out"]
    (inv,) = ev["invocations"]
    assert inv["ended_at"] is None and inv["killed_by_signal"] is not None


def test_exit2_reason_reaches_the_model_on_claude_only(run_probe):
    claude = run_probe(CLAUDE, "exit2-pretool")["observations"]
    copilot = run_probe(COPILOT, "exit2-pretool")["observations"]
    assert claude["reason_reached_model"] and claude["reason_location"]["PROBE-EXIT2-REASON"] == ["tool"]
    assert not copilot["reason_reached_model"]


@pytest.mark.parametrize("spec, args_type", [(COPILOT_OLD, "string"), (COPILOT, "object"), (CLAUDE, "object")])
def test_payload_tool_args_type(spec, args_type, run_probe):
    obs = run_probe(spec, "payload-pretool")["observations"]
    assert obs["tool_args_type"] == args_type
    assert obs["tool_name"] in ("bash", "Bash")


@pytest.mark.parametrize("spec", [COPILOT, CLAUDE])
def test_a_record_says_where_its_time_went(spec, run_probe):
    """The harness's phases (no bound on them here: figures belong to benchmarks/overhead.py):
    each measured, the CLI's the same as the record's, and together no more than the whole."""
    ev = run_probe(spec, "payload-pretool")
    h = ev["harness"]
    parts = ("startup_s", "prepare_s", "launch_s", "cli_s", "teardown_s", "record_s")
    assert all(h[k] >= 0 for k in (*parts, "spawn_s", "total_s"))
    assert h["cli_s"] == ev["cli"]["wall_s"]
    assert h["spawn_s"] <= h["launch_s"]
    assert sum(h[k] for k in parts) <= h["total_s"] + 0.01  # each rounded to the millisecond


def test_claude_hook_env_shows_its_api_key_redacted(run_probe):
    ev = run_probe(CLAUDE, "payload-pretool")
    envs = [i["env"] for i in ev["invocations"]]
    assert all(e.get("ANTHROPIC_API_KEY") == "<redacted>" for e in envs)


def test_unpublished_version_names_its_neighbours(real_tools, tmp_path):
    proc = probe_cmd("run", "copilot@1.0.93", "hang-pretool", results=tmp_path / "r")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "probe: copilot 1.0.93 is not published; nearest: 1.0.92, 1.0.102"
    assert not (tmp_path / "r").exists()


def test_a_version_that_wants_a_newer_node_runs_on_one_installed_for_it(real_tools, tmp_path):
    """Copilot 1.0.56's launcher falls back to JavaScript (the registry serves no native package
    for it), which needs Node.js 24 (this machine has 20): its install brings Node 24 from npm
    (it said "requires Node.js v24" and stopped before), the session runs on it, and the
    record says which Node that was."""
    from probes.versions.prefixes import cache_root

    proc = probe_cmd("run", "copilot@1.0.56", "hang-pretool", "--json", results=tmp_path / "r")
    assert proc.returncode == 0, proc.stderr
    ev = json.loads(proc.stdout)
    assert (ev["executed_version"], ev["outcome"]) == ("1.0.56", "fail-open")
    assert ev["node"].startswith("24."), ev.get("node")
    install = json.loads((cache_root() / "cli" / "copilot" / "1.0.56.json").read_text())
    assert install["node"] == ev["node"]
