"""The setup's `rules` (catalog/setup.py): permission rules in the settings the hooks go to,
merged beside them; and records made before the dimension, which have no `rules` key, read
as made under `none`."""

import json
from pathlib import Path

import pytest

from probes.agents import AGENTS, get
from probes.agents.base import ConfigTarget, Registration
from probes.catalog import recipes, setup
from probes.errors import InputError
from probes.evidence.model import Evidence, load_evidence
from probes.evidence.reclassify import with_setup
from tests.synthetic import TEMPLATE

REGS = [Registration(key="0-pre_tool", native="PreToolUse", command="hook a", timeout_s=3.0, matcher="*")]
HOOKS = {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "hook a", "timeout": 3.0}]}]}
BEFORE_RULES = {"config": "project", "session": "print", "permissions": "preapproved", "sh": "dash"}  # a committed record's


def target(tmp_path: Path) -> ConfigTarget:
    return ConfigTarget(workspace=tmp_path / "workspace", home=tmp_path / "home")


def test_rules_come_after_permissions_and_default_to_none_on_every_agent():
    assert setup.DIMENSIONS.index("rules") == setup.DIMENSIONS.index("permissions") + 1
    assert setup.DIMENSIONS[-1] == "sh"
    for agent in AGENTS.values():
        assert setup.values(agent)["rules"][0] == "none" == setup.ADDED["rules"]
    assert set(get("claude").rule_setups) >= {"none", "allow-bash", "ask-bash", "deny-bash"}


def test_a_rule_names_its_record_in_the_order_of_the_dimensions():
    ask = recipes.get("ask-pretool").for_agent("claude", {"rules": "ask-bash", "permissions": "none"})
    assert ask.setup["rules"] == "ask-bash" and ask.stem == "ask-pretool@permissions=none,rules=ask-bash"
    with pytest.raises(InputError, match="copilot has no rules value 'ask-bash'; known: none"):
        setup.resolve(AGENTS["copilot"], {"rules": "ask-bash"})


def test_a_setup_without_rules_reads_as_made_under_none():
    base = setup.resolve(AGENTS["claude"])
    assert setup.key(BEFORE_RULES, base) == "" and setup.key(base, BEFORE_RULES) == ""
    assert setup.key({**BEFORE_RULES, "permissions": "none"}, base) == "permissions=none"
    assert setup.key(setup.resolve(AGENTS["claude"], {"rules": "deny-bash"}), BEFORE_RULES) == "rules=deny-bash"
    assert setup.setup_line(BEFORE_RULES, "") == (
        "config=project session=print permissions=preapproved rules=none sh=dash (the recipe's default)"
    )


def test_a_record_made_before_setups_gets_rules_none_from_reclassify():
    record = load_evidence(TEMPLATE)
    record.pop("setup", None), record.pop("setup_key", None)
    ev = Evidence.model_validate(record)
    filled = with_setup(ev, recipes.get(ev.recipe), Path(f"{ev.recipe}.json"))
    assert filled.setup is not None and filled.setup["rules"] == "none"


@pytest.mark.parametrize(
    ("location", "where", "rel"),
    [
        ("project", "workspace", ".claude/settings.json"),
        ("project-local", "workspace", ".claude/settings.local.json"),
        ("user", "home", ".claude/settings.json"),
        ("plugin", "workspace", ".claude/settings.json"),  # a plugin's hooks.json holds no settings
    ],
)
def test_claude_rules_are_merged_into_the_settings_the_hooks_went_to(tmp_path, location, where, rel):
    claude, t = get("claude"), target(tmp_path)
    written = claude.config_locations[location](t, REGS)
    (path,) = claude.write_rules(t, "ask-bash", location)
    assert path == getattr(t, where) / rel
    settings = json.loads(path.read_text())
    assert settings["permissions"] == {"ask": ["Bash"]}
    if path in written.files:
        assert settings["hooks"] == HOOKS  # the hooks kept


def test_claude_rules_and_the_terminal_settings_keep_each_other(tmp_path):
    claude, t = get("claude"), target(tmp_path)
    claude.config_locations["user"](t, REGS)
    (path,) = claude.write_rules(t, "deny-bash", "user")
    claude.prepare_interactive(t.home, str(t.workspace), {"ANTHROPIC_API_KEY": "probe-offline-placeholder"})
    assert json.loads(path.read_text()) == {"hooks": HOOKS, "permissions": {"deny": ["Bash"], "defaultMode": "default"}}


def test_no_rules_writes_nothing(tmp_path):
    for agent in AGENTS.values():
        assert agent.write_rules(target(tmp_path), "none", "project") == []
    assert not (tmp_path / "workspace").exists()
