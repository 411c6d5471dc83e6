"""The seams: agents found from their modules and complete as data, recipes resolved once per
agent, and no module outside probes/agents/ naming an agent."""

from __future__ import annotations

import re

import pytest

from probes.agents import AGENTS, CANONICAL_EVENTS, NATIVE, config_locations
from probes.agents.base import ConfigTarget, Registration
from probes.catalog import recipes
from probes.errors import InputError
from tests.helpers import ROOT

PROBES = ROOT / "probes"


def test_every_agent_module_is_found_and_complete():
    modules = {p.stem for p in (PROBES / "agents").glob("*.py")} - {"__init__", "base", "config", "events"}
    assert set(AGENTS) == modules
    for name, agent in AGENTS.items():
        assert agent.name == name and agent.package
        assert NATIVE in agent.config_locations
        assert {e for e in CANONICAL_EVENTS if agent.native_event(e)} >= {"pre_tool", "post_tool", "session_start"}
        if agent.extension is not None:
            assert set(agent.extension.events) <= set(CANONICAL_EVENTS) and agent.extension.source.is_file()
        for marker in agent.tty["markers"].values():
            re.compile(marker)
        assert set(agent.tty["keys"]) == {"yes", "no"}


@pytest.mark.parametrize("location", sorted(config_locations()))
def test_every_config_location_writes_files_in_the_workspace_or_home(location, tmp_path):
    writers = [a.config_locations[location] for a in AGENTS.values() if location in a.config_locations]
    for n, write in enumerate(writers):
        target = ConfigTarget(workspace=tmp_path / f"workspace-{n}", home=tmp_path / f"home-{n}")
        written = write(target, [Registration("0-pre_tool", "PreToolUse", "true", 3.0, None)])
        assert written.files and all(p.is_file() for p in written.files)
        assert all(target.workspace in p.parents or target.home in p.parents for p in written.files)


def test_recipe_resolved_for_an_agent_has_no_per_agent_values():
    loaded = recipes.load_all()
    rewrite = loaded["rewrite-args-pretool"]
    assert isinstance(rewrite.hooks[0].behavior, dict)  # one behaviour per agent in the YAML
    for agent in rewrite.agents:
        (hook,) = rewrite.for_agent(agent).hooks
        assert hook.behavior == rewrite.hooks[0].behavior[agent]
    inventory = loaded["event-inventory"]  # two hooks apply to one agent only
    for agent in inventory.agents:
        resolved = inventory.for_agent(agent)
        assert [h.index for h in resolved.hooks] == [
            n for n, h in enumerate(inventory.hooks) if h.agents is None or agent in h.agents
        ]
        assert all(h.key == f"{h.index}-{h.event}" for h in resolved.hooks)
    for r in loaded.values():
        for agent in r.agents:
            resolved = r.for_agent(agent)
            assert resolved.control == r.control_for(agent) and resolved.subject == r.subject_event()
            for h in resolved.hooks:
                assert not isinstance(h.matcher, dict) and not isinstance(h.native, dict)


def test_a_config_location_no_agent_reads_is_refused(tmp_path):
    path = tmp_path / "r.yaml"
    agent = next(iter(AGENTS))
    path.write_text(
        f"name: r\nquestion: q\nagents: [{agent}]\nclassifier: payload\ncontrol: x\nconfig_location: nowhere\nhooks: []\n"
    )
    with pytest.raises(InputError, match="config_location 'nowhere'"):
        recipes.load_file(path)


def test_no_module_outside_agents_names_an_agent():
    """Agent names live in probes/agents/ (and recipes' `agents:`): the rest reads AGENTS."""
    names = "|".join(map(re.escape, AGENTS))
    literal = re.compile(rf"""["'](?:{names})(?:@[^"']*)?["']""")
    found = [
        f"{path.relative_to(PROBES)}:{n}"
        for path in PROBES.rglob("*.py")
        if "agents" not in path.relative_to(PROBES).parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []


def test_claude_is_ready_at_an_empty_input_box_or_the_placeholder_an_api_error_leaves():
    ready = re.compile(AGENTS["claude"].tty["markers"]["ready"])
    assert ready.search("──────\n❯ \n──────")
    assert ready.search("──────\n❯ Resend your message to try again\n──────")  # 2.1.332, after an API error
    assert not ready.search("──────\n❯ Run the probe step.\n──────")  # typed, not yet sent
    assert ready.search('──────\n❯ Try "fix lint errors"\n──────')  # 2.1.48's suggestion
    assert ready.search("──────\n>\n──────")  # 2.0.76's prompt
    assert not ready.search("──────\n> Run the probe step.\n──────")


def test_claude_s_notice_is_the_settings_warning_that_waits_for_enter():
    notice = re.compile(AGENTS["claude"].tty["markers"]["notice"])
    drawn = (
        ' Settings Warning\n └ DirectoryAdded: Unknown hook event "DirectoryAdded" was ignored.\n'
        " ❯ 1. Continue\n   2. Fix with Claude\n   3. Exit and fix manually\n\n Enter to confirm · Esc to cancel"
    )
    assert notice.search(drawn)
    assert not notice.search(" Do you trust the files in this folder?\n ❯ 1. Yes, proceed\n Enter to confirm · Esc to cancel")
