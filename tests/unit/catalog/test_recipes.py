import pytest

from probes.agents import AGENTS
from probes.catalog import recipes
from probes.catalog.parts import pick
from probes.errors import InputError


def test_every_shipped_recipe_loads_and_has_a_control():
    loaded = recipes.load_all()
    assert {"hang-pretool", "crash-pretool", "exit2-pretool", "payload-pretool"} <= set(loaded)
    for r in loaded.values():
        for agent in r.agents:
            partner = loaded[r.control_for(agent) or r.control_of]
            assert partner.classifier == r.classifier and agent in partner.agents
            for hook in r.hooks:
                if r.surface == "extension":
                    assert AGENTS[agent].extension.events[hook.event]
                elif hook.agents is None or agent in hook.agents:
                    assert pick(hook.native, agent) or AGENTS[agent].native_event(hook.event, hook.casing)


# An agent whose catalog is still being written, and how many recipes it has so far.
CATALOG_SO_FAR: dict[str, int] = {}


def test_catalog_size_and_event_coverage():
    loaded = recipes.load_all()
    main = [r for r in loaded.values() if r.control]
    assert len(main) >= 30
    for agent in AGENTS:
        assert len([r for r in main if agent in r.agents]) >= CATALOG_SO_FAR.get(agent, 25)
    events = {h.event for r in loaded.values() for h in r.hooks}
    assert {
        "pre_tool",
        "post_tool",
        "post_tool_failure",
        "session_start",
        "session_end",
        "prompt_submit",
        "stop",
        "permission_request",
        "subagent_start",
        "subagent_stop",
    } <= events


def write(tmp_path, name, text):
    (tmp_path / f"{name}.yaml").write_text(text)
    return tmp_path / f"{name}.yaml"


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    path = write(tmp_path, "bad", "name: bad\nquestion: [unclosed\nagents: [copilot]\n")
    with pytest.raises(InputError, match=rf"invalid recipe {path}:\d+"):
        recipes.load_file(path)


@pytest.mark.parametrize(
    "body, message",
    [
        ("hooks: [{event: pre_tol}]", "unknown canonical event 'pre_tol'"),
        ("hooks: [{event: pre_tool, behavior: {hang: yes, colour: red}}]", "colour"),
        ("hooks: []\nturns: [{tool: teleport}]", "unknown tool kind 'teleport'"),
        ("hooks: []\nturns: [{tool: shell, text: both}]", "exactly one"),
        ("hooks: [{event: pre_tool, behavior: {throw: true}}]", "throw: not for command hooks"),
        ("surface: extension\nhooks: [{event: pre_tool, behavior: {signal: SIGKILL}}]", "signal: not for extension hooks"),
        ("surface: plugin\nhooks: []", "surface"),
        ("compare_with: nothing\nhooks: []", None),
        ("files: {../outside.md: x}\nhooks: []", "file '../outside.md' climbs out"),
        ("args: [a, b, c, d, e, f, g, h, i]\nhooks: []", "args"),
    ],
)
def test_invalid_recipe_is_one_input_error(tmp_path, body, message, monkeypatch):
    head = "name: r\nquestion: q\nagents: [copilot]\nclassifier: payload\ncontrol: r-control\n"
    if message is None:  # a reference to another recipe: checked when the catalog loads
        write(
            tmp_path,
            "r-control",
            head.replace("name: r\n", "name: r-control\n").replace("control: r-control", "control_of: r") + "hooks: []\n",
        )
        write(tmp_path, "r", head + body)
        monkeypatch.setenv("PROBE_RECIPES", str(tmp_path))
        with pytest.raises(InputError, match="compare_with names 'nothing'"):
            recipes.load_all()
        return
    with pytest.raises(InputError, match=message):
        recipes.load_file(write(tmp_path, "r", head + body))


def test_name_must_match_file(tmp_path):
    path = write(tmp_path, "other", "name: r\nquestion: q\nagents: [copilot]\nclassifier: payload\ncontrol: x\nhooks: []\n")
    with pytest.raises(InputError, match="must match the file name"):
        recipes.load_file(path)


@pytest.mark.parametrize("name", ["no-such-recipe", "../etc/passwd", "Hang"])
def test_unknown_recipe(name):
    with pytest.raises(InputError, match="unknown recipe"):
        recipes.get(name)


def test_files_and_args_reach_the_workspace_and_the_command_line(tmp_path):
    """A recipe's `files` are written into the workspace before its first commit; its `args`
    follow the agent's own (payload-setup: --init-only)."""
    from probes.pipeline.plan import workspace
    from probes.pipeline.rundirs import RunDirs

    r = recipes.get("payload-prompt-expansion").for_agent("claude")
    assert ".claude/commands/probe-cmd.md" in r.files and r.args == ()
    assert recipes.get("payload-setup").for_agent("claude").args == ("--init-only",)
    run = RunDirs(tmp_path / "run")
    workspace(run, r.files)
    assert (run.workspace / ".claude/commands/probe-cmd.md").read_text() == r.files[".claude/commands/probe-cmd.md"]
