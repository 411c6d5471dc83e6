"""The background classifier (async and asyncRewake hooks) on committed evidence of real
runs, and on the same evidence altered to show each label can come out otherwise."""

from __future__ import annotations

import copy

from probes.catalog.recipes import load_all
from probes.classify import SESSION_KEYS, label
from tests.helpers import fixture

RECIPES = load_all()


def classify(agent: str, version: str, recipe: str, alter=None):
    ev = fixture(agent, version, recipe)
    session = {k: copy.deepcopy(ev.get(k)) for k in SESSION_KEYS}
    if alter:
        alter(session)
    return label(RECIPES[recipe].classifier, session)


def test_an_async_pre_tool_hook_is_not_waited_for_and_is_killed_at_teardown():
    outcome, obs = classify("claude", "2.1.328", "async-pretool-slow")
    assert outcome == "background-killed"
    assert obs["hook_killed_by"] == "cli" and not obs["hook_finished"]
    assert obs["gate_delay_s"] < 4 < 8  # the tool ran long before the hook's 8 s sleep could end


def test_the_same_hook_without_async_is_waited_for():
    outcome, obs = classify("claude", "2.1.328", "async-pretool-slow-control")
    assert outcome == "waited"
    assert obs["gate_delay_s"] >= 8 and obs["hook_finished"]


def test_a_stop_hook_gates_the_cli_exit():
    outcome, obs = classify("claude", "2.1.328", "async-stop-slow-control")
    assert outcome == "waited" and obs["gate_s"] == obs["cli_wall_s"]


def test_asyncrewake_holds_the_first_model_request_where_async_does_not():
    assert classify("claude", "2.1.328", "asyncrewake-session-start")[0] == "waited"
    assert classify("claude", "2.1.328", "async-session-start")[0] == "background-killed"


def test_each_label_can_come_out():
    def finished(s):
        inv = s["invocations"][0]
        inv["killed_by"], inv["killed_by_signal"], inv["exit_code"] = None, None, 0

    def orphaned(s):
        s["invocations"][0]["killed_by"] = "harness"

    def no_hook(s):
        s["invocations"] = []

    def held(s):
        s["side_effects"], s["cli"]["timed_out"] = [], True

    def no_progress(s):
        s["side_effects"] = []

    for alter, want in [
        (finished, "background-finished"),
        (orphaned, "background-orphaned"),
        (no_hook, "no-hook"),
        (held, "held"),
        (no_progress, "no-progress"),
    ]:
        assert classify("claude", "2.1.328", "async-pretool-slow", alter)[0] == want, want
