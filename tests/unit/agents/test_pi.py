"""pi's module and its relay extension: the relay written where pi loads extensions with its
config in place, the scripted model as a provider in models.json, the version the relay
reports; and the relay's own rules (probes/runner/pi_relay.mjs, run by Node: Claude's matcher,
Claude's answers, a hook's timeout, a rewrite applied in place). No pi runs here."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.agents.pi import CONFIG_LINE, MODELS, RELAY_SOURCE, VERSION_FILE
from probes.errors import InputError

PI = get("pi")
REGS = [
    Registration(key="0-pre_tool", native="tool_call", command="hook a", timeout_s=3.0, matcher="bash"),
    Registration(key="1-stop", native="agent_end", command="hook b", timeout_s=None, matcher=None),
]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def embedded(path: Path) -> dict:
    (line,) = [x for x in path.read_text().splitlines() if x.endswith(CONFIG_LINE)]
    m = re.fullmatch(r"const CONFIG = (.*); " + re.escape(CONFIG_LINE), line)
    assert m
    return json.loads(m.group(1))


def test_the_relay_goes_into_the_projects_extensions_folder_with_its_hooks(tmp_path):
    t = target(tmp_path)
    written = PI.config_locations["project"](t, REGS)
    path, core = written.files
    assert path == t.workspace / ".pi" / "extensions" / "probe-relay.ts"
    assert core == path.parent / "relay_core.mjs" and "export function decide(" in core.read_text()  # what it imports
    assert written.route and ".pi/extensions/probe-relay.ts" in written.route
    config = embedded(path)
    assert config["hooks"] == [
        {"key": "0-pre_tool", "event": "tool_call", "command": "hook a", "timeout_s": 3.0, "matcher": "bash"},
        {"key": "1-stop", "event": "agent_end", "command": "hook b", "timeout_s": None, "matcher": None},
    ]
    assert config["shell"] == "/bin/sh" and config["default_timeout_s"] == 600
    assert config["version_file"] == str(t.home / VERSION_FILE)
    # the rest of the file is the relay as committed
    assert path.read_text().replace("\n", "").count("export function relay(") == 1


def test_the_user_location_is_pis_agent_extensions_folder(tmp_path):
    t = target(tmp_path)
    path, _ = PI.config_locations["user"](t, REGS).files
    assert path == t.home / ".pi" / "agent" / "extensions" / "probe-relay.ts"


def test_a_raw_entry_or_another_handler_type_is_refused(tmp_path):
    raw = Registration(key="k", native="tool_call", command="c", timeout_s=None, matcher=None, raw={"x": 1})
    with pytest.raises(InputError, match="command hooks only"):
        PI.config_locations["project"](target(tmp_path), [raw])


def test_events_map_to_pis_extension_events():
    assert PI.native_event("pre_tool") == "tool_call"
    assert PI.native_event("prompt_submit") == "input"
    assert PI.native_event("session_end") == "session_shutdown"
    assert PI.native_event("subagent_start") is None


def test_the_scripted_model_is_a_provider_whose_port_is_filled_in_at_start(tmp_path):
    env = PI.session_env(tmp_path / "prefix", tmp_path)
    provider = json.loads((tmp_path / MODELS).read_text())["providers"]["probe"]
    assert provider["baseUrl"] == "http://127.0.0.1:{port}/v1" and provider["api"] == "openai-completions"
    assert [m["id"] for m in provider["models"]] == ["probe-model"]
    assert MODELS in PI.port_files
    reporter = tmp_path / ".pi" / "agent" / "extensions" / "probe-version.ts"  # the relay with no hooks: the version
    assert embedded(reporter)["hooks"] == [] and embedded(reporter)["version_file"] == str(tmp_path / VERSION_FILE)
    assert env["PI_OFFLINE"] == "1"
    argv = PI.argv(tmp_path, "do it")
    assert argv[1:] == ["-p", "--provider", "probe", "--model", "probe-model", "do it"]
    with pytest.raises(InputError):
        PI.argv(tmp_path, "do it", "none")


def test_the_version_is_what_the_relay_read_in_the_running_pi(tmp_path):
    assert PI.executed_version([], [], tmp_path)[0] is None
    (tmp_path / VERSION_FILE).parent.mkdir(parents=True)
    (tmp_path / VERSION_FILE).write_text(json.dumps({"version": "0.73.1", "source": "the running pi's VERSION export"}))
    assert PI.executed_version([], [], tmp_path) == ("0.73.1", "relay extension: the running pi's VERSION export")


RELAY_CHECKS = r"""
const r = await import(process.argv[1]);
const out = {};
out.matches = [r.matches(null, "bash"), r.matches("*", "bash"), r.matches("bash", "bash"), r.matches("bas", "bash"),
               r.matches("read|bash", "bash"), r.matches("Bash", "bash")];
const hook = (event, command, timeout_s = 5) => ({ key: "k", event, command, timeout_s, matcher: null });
const cfg = { shell: "/bin/sh", default_timeout_s: 600 };
const ran = async (h) => r.decide(h, await r.run(h, "{}", process.cwd(), cfg));
const deny = `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"R"}}'`;
out.deny = await ran(hook("tool_call", deny));
out.exit2 = await ran(hook("tool_call", "echo why >&2; exit 2"));
out.exit1 = await ran(hook("tool_call", "echo oops >&2; exit 1"));
out.plain_input = await ran(hook("input", "echo some context"));
out.plain_tool = await ran(hook("tool_call", "echo some context"));
out.stdin = (await r.run(hook("tool_call", "cat"), r.payload({ a: 1, f: () => 1 }), process.cwd(), cfg)).stdout;
const t0 = Date.now();
const slow = await r.run(hook("tool_call", "sleep 5", 0.3), "{}", process.cwd(), cfg);
out.timeout = { ended: slow.ended, ms: Date.now() - t0 };
// the relay against an object standing in for pi's API: one handler per hook, a rewrite in place
const handlers = [];
const pi = { on: (event, fn) => handlers.push([event, fn]) };
const rewrite = `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo mod"}}}'`;
r.relay(pi, { ...cfg, hooks: [hook("tool_call", rewrite), { ...hook("tool_call", deny), matcher: "read" }], version_file: null });
const event = { type: "tool_call", toolName: "bash", input: { command: "echo ran", timeout: 9 } };
const results = [];
for (const [name, fn] of handlers) results.push([name, await fn(event, { cwd: process.cwd() })]);
out.relayed = { results, input: event.input };
try {
  r.apply({}, hook("tool_call", ""), {}, {}, { fail: "probe relay: hook k exited 1" }, {});
} catch (e) { out.thrown = e.message; }
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="the relay runs on Node")
def test_the_relay_applies_claudes_rules(tmp_path):
    module = tmp_path / "relay.mjs"  # Node imports an .mjs as a module
    module.write_text(RELAY_SOURCE.read_text())
    (tmp_path / "relay_core.mjs").write_text((RELAY_SOURCE.parent / "relay_core.mjs").read_text())  # as written beside it
    done = subprocess.run(
        ["node", "--input-type=module", "-e", RELAY_CHECKS, str(module)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["matches"] == [True, True, True, False, True, False]
    assert out["deny"] == {"block": True, "reason": "R"}
    assert out["exit2"] == {"block": True, "reason": "why"}
    assert out["exit1"] == {"fail": "probe relay: hook k exited 1: oops"}
    assert out["plain_input"] == {"context": "some context"} and out["plain_tool"] == {}
    assert json.loads(out["stdin"]) == {"a": 1}
    assert out["timeout"]["ended"] == "timeout" and out["timeout"]["ms"] < 3000
    assert out["relayed"]["results"] == [["tool_call", None], ["tool_call", None]]  # the deny's matcher left bash alone
    assert out["relayed"]["input"] == {"command": "echo mod"}
    assert out["thrown"] == "probe relay: hook k exited 1"
