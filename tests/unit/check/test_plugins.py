"""probe check for the agents whose hooks are code (opencode, Kilo, pi): the plugin files found,
the check's copy (each behind the recording wrapper), and the verdicts read off its records."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from probes import check
from probes.check import plugins
from probes.errors import InputError
from tests.helpers import ROOT

EXAMPLE = ROOT / "examples" / "hooks"


def test_the_example_plugins_are_found_for_each_plugin_agent():
    for agent, folder in (("opencode", ".opencode/plugins"), ("kilo", ".kilo/plugins"), ("pi", ".pi/extensions")):
        _, configs, hooks = check.prepare(agent, EXAMPLE)
        assert configs == []
        ext = "ts" if agent == "pi" else "js"
        assert [h.source for h in hooks] == [f"{folder}/{n}.{ext}" for n in ("audit", "broken", "deny-rm")]
        assert all(h.type == "plugin" and h.changed and "recording wrapper" in h.changed for h in hooks)


def test_pi_loads_a_folders_index_ts_not_its_index_js_and_a_folder_without_plugins_is_one_line(tmp_path):
    (tmp_path / ".pi/extensions/guard").mkdir(parents=True)
    for name in ("index.ts", "index.js", "helper.ts"):
        (tmp_path / ".pi/extensions/guard" / name).write_text("export default function () {}\n")
    _, _, hooks = check.prepare("pi", tmp_path)
    assert [h.source for h in hooks] == [".pi/extensions/guard/index.ts"]
    with pytest.raises(InputError, match="no plugin for opencode"):
        check.prepare("opencode", tmp_path)


def test_the_moved_file_is_a_name_the_loader_does_not_glob():
    assert plugins.moved(".opencode/plugins/a.js", "returned") == ".opencode/plugins/a.probe-user.mjs"
    assert plugins.moved(".opencode/plugins/a.ts", "returned") == ".opencode/plugins/a.probe-user.mts"
    for label in (".pi/extensions/a.ts", ".pi/extensions/a.js"):  # pi loads any name ending in .ts or .js
        assert not plugins.moved(label, "registered").endswith((".ts", ".js"))


@pytest.mark.skipif(shutil.which("node") is None, reason="node")
def test_the_wrapper_records_each_call_and_answers_as_the_users_handler(tmp_path):
    """opencode's wrapper, run by Node as opencode would call it: the user's throw passes
    through, and each call (and the load) is a record in hook.py's format."""
    shutil.copytree(EXAMPLE / ".opencode", tmp_path / ".opencode")
    (tmp_path / "records").mkdir()
    _, _, hooks = check.prepare("opencode", tmp_path)
    deny = [h for h in hooks if h.source.endswith("deny-rm.js")]
    plugins.install(check.prepare("opencode", tmp_path)[0], tmp_path, tmp_path / "records", hooks, {deny[0].key})
    assert not (tmp_path / ".opencode/plugins/audit.js").exists()  # not kept: removed
    assert (tmp_path / ".opencode/package-lock.json").exists()
    wrapper = tmp_path / ".opencode/plugins/deny-rm.js"
    shutil.copy(wrapper, wrapper.with_suffix(".test.mjs"))  # Node reads .js as CommonJS here; Bun does not
    script = (
        f"const m = await import({json.dumps(str(wrapper.with_suffix('.test.mjs')))});"
        "const h = await m.default({directory: '.'}, {});"
        "try { await h['tool.execute.before']({tool: 'bash'}, {args: {command: 'rm x'}}); } catch (e) { console.log(e.message); }"
        "await h['tool.execute.before']({tool: 'bash'}, {args: {command: 'ls'}});"
    )
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "deny-rm: rm is not allowed in this repository"
    records = [json.loads(p.read_text()) for p in sorted((tmp_path / "records").glob("*.json"))]
    assert [(r["event"], r["extension_result"]) for r in records] == [
        ("load", "returned"),
        ("tool.execute.before", "threw"),
        ("tool.execute.before", "returned"),
    ]
    assert plugins.handlers_of(records[0]) == ["tool.execute.before"]
    assert records[1]["payload"] == {"input": {"tool": "bash"}, "output": {"args": {"command": "rm x"}}}
    assert [plugins.call_of("returned", r).decision for r in records[1:]] == ["block (threw)", None]


def rec(event: str, result: str = "returned", returned: object = None, changed: dict | None = None, **kw) -> dict:
    output = json.dumps({"returned": returned, "changed": changed or {}})
    return {"event": event, "extension_result": result, "ended_at": 1.0, "output": output, "error": None, **kw}


@pytest.mark.parametrize(
    "api, record, decision, error",
    [
        ("returned", rec("tool.execute.before", "threw", error="Error: no"), "block (threw)", None),
        ("returned", rec("tool.execute.after", "threw", error="Error: x"), None, "threw Error: x"),
        ("returned", rec("tool.execute.before", changed={"args": {"command": "ls"}}), "changed args", None),
        ("returned", rec("permission.ask", changed={"status": "deny"}), "block", None),
        ("registered", rec("tool_call", returned={"block": True, "reason": "no"}), "block", None),
        ("registered", rec("tool_call", "threw", error="TypeError: t"), None, "threw TypeError: t"),
        ("registered", rec("tool_result", returned={"content": []}), "returned content", None),
        ("registered", rec("tool_call", ended_at=None), None, "never returned (the session ended first)"),
        ("registered", rec("tool_call"), None, None),
    ],
)
def test_what_a_plugin_call_answered(api, record, decision, error):
    call = plugins.call_of(api, record)
    assert (call.decision, call.error) == (decision, error)


def session(ran: bool, records: dict) -> check.Session:
    step = {"kind": "shell", "tool": "bash", "ran": ran, "control_ran": True, "command": "rm x"}
    return check.Session(None, records, [step], ["bash"], [], [], True)


PLUGIN = check.Configured(
    "0-plugin", ".pi/extensions/a.ts", "plugin", None, None, None, "a", type="plugin", api="registered",
    plugin_events=(("tool_call", "pre_tool"), ("session_before_compact", "pre_compact")),
)  # fmt: skip
LOADED = rec("load", returned={"hooks": ["tool_call"]})


@pytest.mark.parametrize(
    "records, ran, verdict, treated",
    [
        ([LOADED, rec("tool_call", returned={"block": True})], False, "effective", None),
        ([LOADED, rec("tool_call", returned={"block": True})], True, "ignored", "fail-open"),
        ([LOADED, rec("tool_call")], True, "passive", None),
        ([LOADED, rec("tool_call", "threw", error="TypeError: t")], False, "broken", "fail-closed"),
        ([rec("load", "threw", error="Error: ENOENT")], True, "broken", "fail-open"),
        ([LOADED], True, "not-fired", None),
        ([], True, "not-fired", None),
    ],
)
def test_plugin_verdicts_against_the_control(records, ran, verdict, treated):
    from probes.catalog import scenarios

    report = check.verdict_of(
        PLUGIN, scenarios.BUILTIN["shell"], session(ran, {PLUGIN.key: records}), session(True, {}), frozenset()
    )
    assert (report["verdict"], report["treated"]) == (verdict, treated), report
    assert report["changed"] == ""  # PLUGIN was made without one
    assert report["expected"] is True
    if records and records[0]["extension_result"] == "returned":
        assert report["event"] == "tool_call"


def test_a_plugin_whose_handlers_the_scenario_does_not_exercise_is_not_expected():
    from probes.catalog import scenarios

    load = rec("load", returned={"hooks": ["session_before_compact"]})
    report = check.verdict_of(
        PLUGIN, scenarios.BUILTIN["shell"], session(True, {PLUGIN.key: [load]}), session(True, {}), frozenset()
    )
    assert (report["verdict"], report["expected"], check.ok(report)) == ("not-fired", False, True)


def test_a_pi_folder_with_a_manifest_is_not_judged_and_left_as_written(tmp_path):
    guard = tmp_path / ".pi/extensions/guard"
    guard.mkdir(parents=True)
    (guard / "index.ts").write_text("export default function () {}\n")
    (guard / "package.json").write_text(json.dumps({"pi": {"extensions": ["./main.ts"]}}))
    (tmp_path / ".pi/extensions/deny.ts").write_text("export default function () {}\n")
    agent, _, hooks = check.prepare("pi", tmp_path)
    assert [(h.source, h.api is None) for h in hooks] == [
        (".pi/extensions/deny.ts", False),
        (".pi/extensions/guard/package.json", True),
    ]
    (tmp_path / "records").mkdir()
    plugins.install(agent, tmp_path, tmp_path / "records", hooks, None)  # the control: judged plugins removed
    assert (guard / "index.ts").exists() and not (tmp_path / ".pi/extensions/deny.ts").exists()
    from probes.catalog import scenarios

    report = check.verdict_of(hooks[1], scenarios.BUILTIN["shell"], session(True, {}), session(True, {}), frozenset())
    assert report["verdict"] == "not-judged" and "package.json names its extensions" in report["reason"]
