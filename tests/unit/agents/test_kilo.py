"""Kilo Code's module: opencode's relay plugin written into Kilo's own folders (.kilo/plugins/,
~/.config/kilo/plugins/) with what makes Kilo skip installing @kilocode/plugin there; the
scripted model as the only enabled provider in the user's kilo.json; its argv and env; the
version read back from its User-Agent, else from the relay. No Kilo runs here."""

from __future__ import annotations

import json
from pathlib import Path

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration
from probes.agents.kilo import PLUGIN_PACKAGE, USER_CONFIG
from probes.agents.opencode import CONFIG_LINE, CORE_SOURCE, VERSION_FILE
from probes.evidence.model import ModelRequest

KILO = get("kilo")
REGS = [Registration(key="0-pre_tool", native="tool.execute.before", command="hook a", timeout_s=3.0, matcher="bash")]


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def test_the_relay_goes_into_kilos_project_plugins_folder_with_its_core_and_locked_deps(tmp_path):
    t = target(tmp_path)
    written = KILO.config_locations["project"](t, REGS)
    folder = t.workspace / ".kilo"
    assert written.files == [
        folder / "plugins" / "probe-relay.js",
        folder / "probe-relay-core.mjs",
        folder / "package.json",
        folder / "package-lock.json",
    ]
    assert written.route and ".kilo/plugins/probe-relay.js" in written.route
    assert CONFIG_LINE in written.files[0].read_text() and '"tool.execute.before"' in written.files[0].read_text()
    assert written.files[1].read_text() == CORE_SOURCE.read_text()
    assert json.loads((folder / "package.json").read_text()) == {"dependencies": {PLUGIN_PACKAGE: "*"}}
    lock = json.loads((folder / "package-lock.json").read_text())
    assert lock["packages"][""]["dependencies"] == {PLUGIN_PACKAGE: "*"}
    assert (folder / "node_modules").is_dir()


def test_the_user_location_is_config_kilo(tmp_path):
    t = target(tmp_path)
    (path, *_) = KILO.config_locations["user"](t, REGS).files
    assert path == t.home / ".config" / "kilo" / "plugins" / "probe-relay.js"


def test_the_scripted_model_is_the_only_enabled_provider_in_kilo_json(tmp_path):
    t = target(tmp_path)
    KILO.config_locations["user"](t, REGS)
    env = KILO.session_env(tmp_path / "prefix", t.home)
    config = json.loads((t.home / USER_CONFIG).read_text())
    assert config["enabled_providers"] == ["probe"] and config["model"] == "probe/probe-model"
    assert config["provider"]["probe"]["options"]["baseURL"] == "http://127.0.0.1:{port}/v1"
    assert (t.home / ".config/kilo/plugins/probe-relay.js").is_file()  # merged beside, not replaced
    assert env["KILO_NO_DAEMON"] == "1" and env["KILO_DISABLE_AUTOUPDATE"] == "1"
    assert not [k for k in env if k.startswith("OPENCODE_")]
    assert USER_CONFIG in KILO.port_files


def test_argv_is_run_auto_with_the_probe_model(tmp_path):
    argv = KILO.argv(tmp_path, "do it")
    assert argv[0].endswith("node_modules/.bin/kilo")
    assert argv[1:5] == ["run", "--auto", "-m", "probe/probe-model"] and argv[-1] == "do it"
    assert "--auto" not in KILO.argv(tmp_path, "do it", "none")


def request(user_agent: str) -> ModelRequest:
    fields = {"seq": 1, "offset_s": 0.1, "method": "POST", "path": "/v1/chat/completions", "model": "probe-model"}
    more = {"tools": [], "sentinels": {}, "message_count": 0, "messages": [], "reply": None}
    return ModelRequest.model_validate({**fields, **more, "user_agent": user_agent})


def test_the_version_is_the_user_agents_else_what_the_relay_read(tmp_path):
    ua = "Kilo-Code/7.7.7 ai-sdk/provider-utils/4.0.27 runtime/bun/1.3.14"
    assert KILO.executed_version([], [request(ua)], tmp_path) == ("7.7.7", "model request User-Agent")
    assert KILO.executed_version([], [request("node")], tmp_path)[0] is None
    (tmp_path / VERSION_FILE).parent.mkdir(parents=True)
    (tmp_path / VERSION_FILE).write_text(json.dumps({"version": "7.0.33", "source": "package.json"}))
    assert KILO.executed_version([], [], tmp_path) == ("7.0.33", "relay plugin: package.json")
