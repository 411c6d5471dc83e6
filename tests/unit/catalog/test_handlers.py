"""A hook's handler (command, prompt, ...) and its fields: validated per agent, written into
the agent's config as its docs spell them."""

from __future__ import annotations

import json

import pytest

from probes.agents import AGENTS, ConfigTarget
from probes.agents.base import Registration
from probes.catalog import recipes
from probes.errors import InputError

HEAD = "name: r\nquestion: q\nagents: [{agents}]\nclassifier: decision\ncontrol: r-control\n"


def recipe(tmp_path, hooks: str, agents: str = "claude"):
    path = tmp_path / "r.yaml"
    path.write_text(HEAD.format(agents=agents) + hooks)
    return recipes.load_file(path)


@pytest.mark.parametrize(
    "hooks, agents, message",
    [
        ("hooks: [{event: pre_tool, handler: {type: prompt}}]", "claude", "needs its `prompt`"),
        ("hooks: [{event: pre_tool, handler: {type: prompt, prompt: p}}]", "vscode", "vscode has no prompt hooks here"),
        ("hooks: [{event: pre_tool, handler: {type: agent}}]", "claude", "an agent hook needs its `prompt`"),
        ("hooks: [{event: pre_tool, handler: {type: agent, prompt: p}}]", "copilot", "copilot has no agent hooks here"),
        ("hooks: [{event: pre_tool, handler: {headers: {A: b}}}]", "claude", "headers: for http hooks"),
        ("hooks: [{event: pre_tool, answer: {ok: false}}]", "claude", "`answer` is for a hook the run answers"),
        ("hooks: [{event: pre_tool, handler: {type: prompt, prompt: p}, behavior: {hang: true}}]", "claude", "for command hooks"),
        ("hooks: [{event: pre_tool, handler: {if: 'Bash(git:*)'}}]", "copilot", "handler fields if are not in copilot's config"),
        ("hooks: [{event: pre_tool, handler: {type: prompt, prompt: p, colour: red}}]", "claude", "colour"),
    ],
)
def test_a_handler_the_agent_lacks_is_one_input_error(tmp_path, hooks, agents, message):
    with pytest.raises(InputError, match=message):
        recipe(tmp_path, hooks, agents)


def test_handler_and_answer_may_differ_per_agent(tmp_path):
    r = recipe(
        tmp_path,
        "hooks: [{event: pre_tool, handler: {claude: {type: prompt, prompt: p}, copilot: {}},"
        " answer: {claude: {ok: false, reason: PROBE-X}}}]",
        "claude, copilot",
    )
    claude, copilot = r.for_agent("claude").hooks[0], r.for_agent("copilot").hooks[0]
    assert claude.handler.type == "prompt" and claude.answer is not None and claude.answer.ok is False
    assert copilot.handler.type == "command" and copilot.answer is None


def test_claude_writes_prompt_and_http_hooks_and_the_handler_fields(tmp_path):
    prompt = "PROBE-HOOK-0-pre_tool Safe? $ARGUMENTS"
    url = "http://127.0.0.1:{port}/hook/2-post_tool"
    regs = [
        Registration("0-pre_tool", "PreToolUse", "", 10, None, handler_type="prompt", prompt=prompt, fields={"model": "m"}),
        Registration("1-pre_tool", "PreToolUse", "python hook.py", None, "Bash", fields={"if": "Bash(git commit:*)"}),
        Registration("2-post_tool", "PostToolUse", "", None, None, handler_type="http", url=url, fields={"headers": {"X": "1"}}),
    ]
    written = AGENTS["claude"].config_locations["project"](ConfigTarget(tmp_path / "ws", tmp_path / "home"), regs)
    hooks = json.loads(written.files[0].read_text())["hooks"]
    assert hooks["PreToolUse"][0]["hooks"] == [{"type": "prompt", "prompt": prompt, "model": "m", "timeout": 10}]
    assert hooks["PreToolUse"][1]["hooks"] == [{"type": "command", "command": "python hook.py", "if": "Bash(git commit:*)"}]
    assert hooks["PostToolUse"][0]["hooks"] == [{"type": "http", "url": url, "headers": {"X": "1"}}]


def test_copilot_writes_a_prompt_hook_as_its_docs_spell_it(tmp_path):
    # the CLI hooks reference: {"type": "prompt", "prompt": TEXT} under sessionStart, no other key
    prompt = "PROBE-HOOK-0-session_start say the word ready."
    regs = [
        Registration("0-session_start", "sessionStart", "", 10, None, handler_type="prompt", prompt=prompt),
        Registration("1-session_start", "sessionStart", "python hook.py", 10, None),
    ]
    for location, path in (("project", "ws/.github/hooks/probe.json"), ("user", "home/.copilot/hooks/probe.json")):
        AGENTS["copilot"].config_locations[location](ConfigTarget(tmp_path / "ws", tmp_path / "home"), regs)
        hooks = json.loads((tmp_path / path).read_text())["hooks"]["sessionStart"]
        assert hooks[0] == {"type": "prompt", "prompt": prompt}
        assert hooks[1] == {"type": "command", "bash": "python hook.py", "timeoutSec": 10}


def test_list_json_gives_each_recipes_hook_types():
    from tests.helpers import probe

    rows = {r["name"]: r for r in json.loads(probe("list", "--json").stdout)}
    assert rows["prompt-pretool-deny"]["hook_types"] == ["prompt"]
    assert rows["hang-pretool"]["hook_types"] == ["command"]
