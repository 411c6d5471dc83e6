"""opencode's module and its relay plugin: the relay and its shared core written into a config
folder opencode loads plugins from, with what makes opencode skip installing its plugin package
there; the scripted model as a provider in the user's opencode.json; the permission flag the
installed binary declares; the version read back; and the relay's own rules (run by Node: a
block thrown, a rewrite in place, context where each hook allows it, one export). No opencode
runs here."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.agents.opencode import CONFIG_LINE, CORE_SOURCE, RELAY_SOURCE, USER_CONFIG, VERSION_FILE
from probes.classify.session import payload_field
from probes.errors import InputError

OC = get("opencode")
REGS = [
    Registration(key="0-pre_tool", native="tool.execute.before", command="hook a", timeout_s=3.0, matcher="bash"),
    Registration(key="1-stop", native="session.idle", command="hook b", timeout_s=None, matcher=None),
]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def embedded(path: Path) -> dict:
    (line,) = [x for x in path.read_text().splitlines() if x.endswith(CONFIG_LINE)]
    m = re.fullmatch(r"const CONFIG = (.*); " + re.escape(CONFIG_LINE), line)
    assert m
    return json.loads(m.group(1))


def test_the_relay_goes_into_the_projects_plugins_folder_with_its_core_and_locked_deps(tmp_path):
    t = target(tmp_path)
    written = OC.config_locations["project"](t, REGS)
    folder = t.workspace / ".opencode"
    assert written.files == [
        folder / "plugins" / "probe-relay.js",
        folder / "probe-relay-core.mjs",
        folder / "package.json",
        folder / "package-lock.json",
    ]
    assert written.route and ".opencode/plugins/probe-relay.js" in written.route
    config = embedded(written.files[0])
    assert config["hooks"] == [
        {"key": "0-pre_tool", "event": "tool.execute.before", "command": "hook a", "timeout_s": 3.0, "matcher": "bash"},
        {"key": "1-stop", "event": "session.idle", "command": "hook b", "timeout_s": None, "matcher": None},
    ]
    assert config["shell"] == "/bin/sh" and config["default_timeout_s"] == 600
    assert config["version_file"] == str(t.home / VERSION_FILE)
    assert (folder / "probe-relay-core.mjs").read_text() == CORE_SOURCE.read_text()
    # opencode skips its own install when the lock lists what package.json declares, and node_modules exists
    declared = json.loads((folder / "package.json").read_text())["dependencies"]
    locked = json.loads((folder / "package-lock.json").read_text())["packages"][""]["dependencies"]
    assert set(declared) == set(locked) == {"@opencode-ai/plugin"} and (folder / "node_modules").is_dir()


def test_the_user_location_is_the_config_folders_plugins(tmp_path):
    t = target(tmp_path)
    (path, core, *_) = OC.config_locations["user"](t, REGS).files
    assert path == t.home / ".config" / "opencode" / "plugins" / "probe-relay.js"
    assert core == t.home / ".config" / "opencode" / "probe-relay-core.mjs"


def test_a_raw_entry_or_another_handler_type_is_refused(tmp_path):
    raw = Registration(key="k", native="tool.execute.before", command="c", timeout_s=None, matcher=None, raw={"x": 1})
    with pytest.raises(InputError, match="command hooks only"):
        OC.config_locations["project"](target(tmp_path), [raw])


def test_events_map_to_plugin_hooks_and_bus_events():
    assert OC.native_event("pre_tool") == "tool.execute.before"
    assert OC.native_event("prompt_submit") == "chat.message"
    assert OC.native_event("permission_request") == "permission.ask"
    assert OC.native_event("session_start") == "session.created"
    assert OC.native_event("stop") == "session.idle"
    assert OC.native_event("subagent_start") is None


def test_the_scripted_model_is_a_provider_in_the_users_config_kept_beside_its_plugins(tmp_path):
    t = target(tmp_path)
    OC.config_locations["user"](t, REGS)
    env = OC.session_env(tmp_path / "prefix", t.home)
    config = json.loads((t.home / USER_CONFIG).read_text())
    provider = config["provider"]["probe"]
    assert provider["options"]["baseURL"] == "http://127.0.0.1:{port}/v1" and provider["npm"] == "@ai-sdk/openai-compatible"
    assert list(provider["models"]) == ["probe-model"] and config["model"] == "probe/probe-model"
    assert USER_CONFIG in OC.port_files
    assert (t.home / ".config" / "opencode" / "plugins" / "probe-relay.js").exists()  # the user's plugin kept
    assert (t.home / ".config" / "opencode" / "package-lock.json").exists()  # no install there either
    assert env["OPENCODE_DISABLE_AUTOUPDATE"] == "1" and env["OPENCODE_DISABLE_MODELS_FETCH"] == "1"


def fake_install(prefix: Path, js: bytes) -> None:
    binary = prefix / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"\x7fELF" + js)


def test_the_permission_flag_is_the_one_the_installed_binary_declares(tmp_path):
    new, old, first = tmp_path / "new", tmp_path / "old", tmp_path / "first"
    fake_install(new, b'.option("auto",{type:"boolean"}).option("dangerously-skip-permissions",{hidden:!0})')
    fake_install(old, b'.option("dangerously-skip-permissions",{type:"boolean"})')
    fake_install(first, b'.option("share",{type:"boolean"})')
    assert OC.argv(new, "do it")[1:4] == ["run", "--auto", "-m"]
    assert OC.argv(old, "do it")[1:3] == ["run", "--dangerously-skip-permissions"]
    assert OC.argv(first, "do it")[1:3] == ["run", "-m"]
    argv = OC.argv(new, "do it", "none")
    assert argv[1:4] == ["run", "-m", "probe/probe-model"] and argv[-1] == "do it"


def test_an_absolute_link_its_postinstall_made_is_made_relative(tmp_path):
    staging = tmp_path / ".1.0.0.partial-1"
    binary = staging / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"\x7fELF")
    link = staging / "node_modules" / "opencode-ai" / "bin" / "opencode"
    link.parent.mkdir(parents=True)
    link.symlink_to(binary)  # 1.0.0's postinstall: the staging path, gone after the rename
    OC.prepare_install(staging)
    assert str(link.readlink()) == "../../opencode-linux-x64/bin/opencode" and link.resolve() == binary


def test_the_version_is_the_user_agents_else_what_the_relay_read_else_the_installed_package(tmp_path):
    assert OC.executed_version([], [], tmp_path)[0] is None
    prefix = tmp_path / "prefix"
    (prefix / "node_modules" / "opencode-ai").mkdir(parents=True)
    (prefix / "node_modules" / "opencode-ai" / "package.json").write_text('{"version": "1.0.185"}')
    OC.session_env(prefix, tmp_path)
    version, source = OC.executed_version([], [], tmp_path)
    assert version == "1.0.185" and source.startswith("the installed opencode-ai package.json")
    (tmp_path / VERSION_FILE).parent.mkdir(parents=True, exist_ok=True)
    said = {"version": "1.18.33", "source": "package.json of the running opencode binary"}
    (tmp_path / VERSION_FILE).write_text(json.dumps(said))
    assert OC.executed_version([], [], tmp_path) == ("1.18.33", "relay plugin: package.json of the running opencode binary")


def test_a_tool_name_inside_the_relays_input_is_read():
    inv = {"payload": {"hook": "tool.execute.before", "input": {"tool": "bash"}, "output": {"args": {}}}}
    assert payload_field(inv, "toolName", "tool_name", "input.tool") == "bash"  # type: ignore[arg-type]
    assert payload_field({"payload": {"tool_name": "Bash", "input": {"tool": "x"}}}, "tool_name", "input.tool") == "Bash"  # type: ignore[arg-type]


RELAY_CHECKS = r"""
const core = await import(process.argv[1] + "/probe-relay-core.mjs");
const mod = await import(process.argv[1] + "/plugins/probe-relay.mjs");
const out = { exports: Object.keys(mod) };
const cfg = { shell: "/bin/sh", default_timeout_s: 600, version_file: null, cost_log: null };
const hook = (event, command, matcher = null) => ({ key: "k", event, command, timeout_s: 5, matcher });
const ran = async (h, plain = false) => core.decide(h, await core.run(h, "{}", process.cwd(), cfg), plain);
out.permission = await ran(hook("permission.ask", `echo '{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}'`));
out.plain_prompt = await ran(hook("chat.message", "echo some context"), true);
out.plain_tool = await ran(hook("tool.execute.before", "echo some context"));
const deny = `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"R"}}'`;
const rewrite = `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo mod"}}}'`;
const context = `echo '{"hookSpecificOutput":{"additionalContext":"CTX"}}'`;
const hooks = mod.default.relay({ directory: process.cwd() }, { ...cfg, hooks: [
  hook("tool.execute.before", rewrite, "bash"), hook("tool.execute.before", deny, "read"),
  hook("tool.execute.after", context), hook("chat.message", "echo PROMPT-CTX"), hook("session.created", "echo START-CTX"),
] });
out.names = Object.keys(hooks).sort();
const args = { command: "echo ran", timeout: 9 };
await hooks["tool.execute.before"]({ tool: "bash" }, { args });
out.args = args;
try { await hooks["tool.execute.before"]({ tool: "read" }, { args: {} }); } catch (e) { out.denied = e.message; }
const result = { title: "t", output: "ran", metadata: {} };
await hooks["tool.execute.after"]({ tool: "bash", args }, result);
out.after = result.output;
const message = { message: { id: "msg_1", sessionID: "ses_1" }, parts: [{ id: "prt_1", type: "text", text: "hi" }] };
await hooks["chat.message"]({ sessionID: "ses_1" }, message);
out.parts = message.parts;
await hooks.event({ event: { type: "session.created", properties: {} } });
const system = { system: ["base"] };
await hooks["experimental.chat.system.transform"]({}, system);
out.system = system.system;
try {
  await mod.default.relay({}, { ...cfg, hooks: [hook("chat.message", "exit 1")] })["chat.message"]({}, { parts: [] });
} catch (e) { out.failed = e.message; }
console.log(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="the relay runs on Node (Bun in opencode)")
def test_the_relay_applies_claudes_answers_through_opencodes_hooks(tmp_path):
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "probe-relay.mjs").write_text(RELAY_SOURCE.read_text())  # Node imports an .mjs as a module
    (tmp_path / "probe-relay-core.mjs").write_text(CORE_SOURCE.read_text())
    done = subprocess.run(
        ["node", "--input-type=module", "-e", RELAY_CHECKS, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["exports"] == ["default"]  # opencode would call any other exported function as a plugin
    assert out["permission"] == {"permission": "allow"}
    assert out["plain_prompt"] == {"context": "some context"} and out["plain_tool"] == {}
    system = "experimental.chat.system.transform"
    assert out["names"] == ["chat.message", "event", system, "tool.execute.after", "tool.execute.before"]
    assert out["args"] == {"command": "echo mod"}  # replaced in place; the deny's matcher left bash alone
    assert out["denied"] == "R"
    assert out["after"] == "ran\nCTX"
    assert [p["text"] for p in out["parts"]] == ["hi", "PROMPT-CTX"]
    assert out["parts"][1]["id"] > "prt_1" and out["parts"][1]["messageID"] == "msg_1" and out["parts"][1]["synthetic"]
    assert out["system"] == ["base", "START-CTX"]
    assert out["failed"] == "probe relay: hook k exited 1"
