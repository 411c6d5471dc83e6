"""Codex CLI, installed from npm by the harness, against the scripted model's Responses
dialect: two fast probes in every run (the whole catalog is its committed evidence, re-run
with `probe matrix --agent codex`). Unit checks of its module need no install."""

from __future__ import annotations

import json

import pytest

from probes.agents import get
from probes.agents.base import ConfigTarget, Registration


def test_hooks_file_has_whole_second_timeouts_and_no_default_matcher(tmp_path):
    """A fractional timeout makes Codex reject the whole hooks.json (measured on 0.171.0)."""
    codex = get("codex")
    regs = [
        Registration(key="a", native="PreToolUse", command="hook a", timeout_s=2.5, matcher=None),
        Registration(key="b", native="PreToolUse", command="hook b", timeout_s=None, matcher="Bash"),
    ]
    (path,) = codex.config_locations["project"](ConfigTarget(workspace=tmp_path, home=tmp_path / "home"), regs).files
    assert path == tmp_path / ".codex" / "hooks.json"
    entries = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert entries == [
        {"hooks": [{"type": "command", "command": "hook a", "timeout": 3}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "hook b"}]},
    ]


def test_session_config_is_offline_and_trusts_the_workspace(tmp_path):
    codex = get("codex")
    home = tmp_path / "home"
    env = codex.session_env(tmp_path / "prefix", home)
    config = (home / ".codex" / "config.toml").read_text()
    assert env["CODEX_HOME"] == str(home / ".codex")
    assert "check_for_update_on_startup = false" in config and "[analytics]\nenabled = false" in config
    assert f'[projects."{tmp_path / "workspace"}"]\ntrust_level = "trusted"' in config
    argv = codex.argv(tmp_path / "prefix", "go")
    assert 'model_providers.probe.base_url="http://127.0.0.1:{port}/v1"' in argv and argv[-1] == "go"


# ---------------------------------------------------------------- permissions=trusted-hash (issue 28)

FAKE_APP_SERVER = """#!{python}
import json, os, sys
home = os.environ["CODEX_HOME"]
os.makedirs(os.path.join(home, "skills", ".system"), exist_ok=True)  # what the real one leaves
open(os.path.join(home, "state_5.sqlite"), "w").close()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print(json.dumps({{"method": "configWarning", "params": {{}}}}), flush=True)
        print(json.dumps({{"id": msg["id"], "result": {{"codexHome": home}}}}), flush=True)
    elif msg.get("method") == "hooks/list":
        hooks = [
            {{"key": msg["params"]["cwds"][0] + "/.codex/hooks.json:pre_tool_use:0:0", "isManaged": False,
              "currentHash": "sha256:" + "ab" * 32, "trustStatus": "untrusted"}},
            {{"key": "/etc/codex/hooks.json:stop:0:0", "isManaged": True, "currentHash": "sha256:00",
              "trustStatus": "managed"}},
        ]
        data = [{{"cwd": msg["params"]["cwds"][0], "hooks": hooks}}]
        print(json.dumps({{"id": msg["id"], "result": {{"data": data}}}}), flush=True)
"""


def fake_prefix(tmp_path, version="0.171.0"):
    """An install whose native binary is a stand-in app-server answering hooks/list."""
    import sys

    prefix = tmp_path / version
    binary = get("codex").binary_path(prefix)
    binary.parent.mkdir(parents=True)
    binary.write_text(FAKE_APP_SERVER.format(python=sys.executable))
    binary.chmod(0o755)
    return prefix


def test_trusted_hash_preapproves_tools_without_the_hook_trust_bypass(tmp_path):
    codex = get("codex")
    assert "trusted-hash" in codex.permission_setups
    prefix = tmp_path / "0.171.0"
    trusted = codex.argv(prefix, "go", "trusted-hash")
    assert "--dangerously-bypass-approvals-and-sandbox" in trusted and "--dangerously-bypass-hook-trust" not in trusted
    assert "--dangerously-bypass-hook-trust" in codex.argv(prefix, "go", "preapproved")
    assert codex.prepare_permissions(prefix, tmp_path / "home", "preapproved") == []


def test_trust_entries_are_codex_own_hashes_of_non_managed_hooks():
    from probes.agents.codex import trust_entries
    from probes.errors import HarnessError

    listed = {
        "data": [
            {
                "hooks": [
                    {"key": "/w/.codex/hooks.json:pre_tool_use:0:0", "isManaged": False, "currentHash": "sha256:aa"},
                    {"key": "/m/hooks.json:stop:0:0", "isManaged": True, "currentHash": "sha256:bb"},
                ]
            }
        ]
    }
    assert trust_entries(listed) == {"/w/.codex/hooks.json:pre_tool_use:0:0": "sha256:aa"}
    with pytest.raises(HarnessError, match="no key and currentHash"):  # 0.128.0's hooks/list: no hash
        trust_entries({"data": [{"hooks": [{"key": "/w/.codex/hooks.json:pre_tool_use:0:0", "isManaged": False}]}]})


def test_trust_is_merged_into_the_session_config(tmp_path):
    """[hooks.state."<key>"] trusted_hash, added to the config.toml session_env wrote: its
    provider and project trust kept, the file still TOML."""
    import tomllib

    from probes.agents.codex import merge_trust

    codex = get("codex")
    home = tmp_path / "home"
    codex.session_env(tmp_path / "prefix", home)
    before = (home / ".codex" / "config.toml").read_text()
    key = f"{tmp_path / 'workspace'}/.codex/hooks.json:pre_tool_use:0:0"
    path = merge_trust(home / ".codex", {key: "sha256:" + "ab" * 32})
    text = path.read_text()
    assert text.startswith(before)
    config = tomllib.loads(text)
    assert config["hooks"]["state"] == {key: {"trusted_hash": "sha256:" + "ab" * 32}}
    assert config["model_provider"] == "probe" and config["projects"][str(tmp_path / "workspace")] == {"trust_level": "trusted"}
    assert merge_trust(home / ".codex", {key: "sha256:" + "ab" * 32}).read_text() == text  # once


def test_prepare_permissions_asks_the_cli_and_leaves_home_as_it_was(tmp_path, monkeypatch):
    """trusted-hash: the hash is the app-server's (hooks/list), written for each non-managed
    hook; what the app-server leaves in HOME is removed; a release without hook trust refuses."""
    import tomllib

    import probes.agents.codex
    from probes.errors import InputError

    monkeypatch.setattr(probes.agents.codex, "offline", lambda: ())
    codex = get("codex")
    home = tmp_path / "home"
    (tmp_path / "workspace").mkdir()
    codex.session_env(tmp_path / "prefix", home)
    prefix = fake_prefix(tmp_path)
    (path,) = codex.prepare_permissions(prefix, home, "trusted-hash")
    state = tomllib.loads(path.read_text())["hooks"]["state"]
    assert state == {f"{tmp_path / 'workspace'}/.codex/hooks.json:pre_tool_use:0:0": {"trusted_hash": "sha256:" + "ab" * 32}}
    assert sorted(p.name for p in (home / ".codex").iterdir()) == ["config.toml"]
    with pytest.raises(InputError, match="no hook trust"):
        codex.prepare_permissions(tmp_path / "0.128.0", home, "trusted-hash")
