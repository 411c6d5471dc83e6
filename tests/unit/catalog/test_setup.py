"""Setups (catalog/setup.py): the dimensions, their values per agent, the key that names a
record of a non-default setup, and recipes declaring theirs."""

import json

import pytest

from probes.agents import AGENTS
from probes.catalog import recipes, setup
from probes.errors import InputError
from probes.evidence.load import load
from probes.evidence.model import load_evidence
from tests.synthetic import TEMPLATE


def test_every_agent_has_every_dimension_with_its_default_first():
    for agent in AGENTS.values():
        values = setup.values(agent)
        assert list(values) == list(setup.DIMENSIONS)
        assert setup.default(agent) == {
            "config": "project",
            "session": "print",
            "permissions": "preapproved",
            "rules": "none",
            "sh": "dash",
        }


def test_key_names_only_what_differs_in_a_fixed_order():
    base = setup.resolve(AGENTS["claude"])
    assert setup.key(base, base) == ""
    other = setup.resolve(AGENTS["claude"], {"sh": "bash", "permissions": "none"})
    assert setup.key(other, base) == "permissions=none,sh=bash"
    assert setup.split_stem("ask-pretool@permissions=none,sh=bash") == ("ask-pretool", "permissions=none,sh=bash")
    assert setup.stem("ask-pretool", "") == "ask-pretool"


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["sh"], "is not KEY=VALUE"),
        (["shell=bash"], "is not KEY=VALUE"),
        (["sh=ba sh"], "is not KEY=VALUE"),
        (["sh=bash", "sh=dash"], "sh given twice"),
    ],
)
def test_bad_setup_items_are_one_line(items, message):
    with pytest.raises(InputError, match=message):
        setup.parse_pairs(items)


def test_several_pairs_in_one_item():
    assert setup.parse_pairs(["sh=bash,permissions=none"]) == {"sh": "bash", "permissions": "none"}


def test_a_value_the_agent_lacks_names_the_ones_it_has():
    with pytest.raises(InputError, match="copilot has no config value 'plugin-x'; known: project"):
        setup.resolve(AGENTS["copilot"], {"config": "plugin-x"})
    with pytest.raises(InputError, match="codex has no session value 'interactive'"):
        recipes.get("hang-pretool").for_agent("codex", {"session": "interactive"})


def test_older_spellings_fold_into_the_default_setup():
    loaded = recipes.load_all()
    trust = loaded["hook-trust-pretool"].for_agent("codex")
    assert trust.setup["permissions"] == "none" and trust.setup_key == "" and trust.stem == "hook-trust-pretool"
    assert loaded["claude-settings-pretool"].for_agent("copilot").setup["config"] == "claude-settings"
    assert loaded["session-start-interactive"].for_agent("claude").setup["session"] == "interactive"
    ask = loaded["ask-pretool"].for_agent("claude", {"permissions": "none"})
    assert (ask.permissions, ask.setup_key, ask.stem) == ("none", "permissions=none", "ask-pretool@permissions=none")


def test_a_recipe_whose_spellings_disagree_is_refused(tmp_path, monkeypatch):
    body = recipes.get("hang-pretool").model_dump(exclude_defaults=True)
    body.update(setup={"permissions": "preapproved"}, permissive=False)
    with pytest.raises(ValueError, match="older spelling disagree"):
        recipes.Recipe(**body)


def test_a_declared_setup_is_checked_for_each_agent_it_names():
    body = recipes.get("hang-pretool").model_dump(exclude_defaults=True)
    with pytest.raises(ValueError, match="setups.0: .*vscode has no permissions value 'none'"):
        recipes.Recipe(**{**body, "setups": [{"permissions": "none"}]})
    ok = recipes.Recipe(**{**body, "setups": [{"permissions": "none", "agents": ["claude"]}]})
    assert ok.declared_setups("claude") == [{"permissions": "none"}] and ok.declared_setups("vscode") == []


def test_a_setup_is_a_row_of_its_own_and_earned_against_its_control_in_the_same_setup(tmp_path):
    record = load_evidence(TEMPLATE)  # whole: what it refers to read in
    version = tmp_path / "copilot" / "1.0.92"
    version.mkdir(parents=True)
    control = record["control"]

    def put(stem: str, outcome: str) -> None:
        (version / f"{stem}.json").write_text(json.dumps({**record, "outcome": outcome}))

    put("exit2-pretool", "denied")
    put(control, "denied")  # the default setup: not earned
    put("exit2-pretool@sh=bash", "denied")
    put(f"{control}@sh=bash", "allowed")  # the same setup's control differs: earned
    assert [c.recipe for c in load(tmp_path, recipe="exit2-pretool")] == ["exit2-pretool"]  # one setup's, exactly
    cells = {c.recipe: c for c in load(tmp_path, recipe="exit2-pretool", setups=True)}
    assert set(cells) == {"exit2-pretool", "exit2-pretool@sh=bash"}
    assert cells["exit2-pretool"].same_as_control and not cells["exit2-pretool@sh=bash"].same_as_control
    assert cells["exit2-pretool@sh=bash"].setup_key == "sh=bash"
