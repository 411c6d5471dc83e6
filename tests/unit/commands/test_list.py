"""`probe list`: filters by agent and event, an events column, and a terminal's width."""

from __future__ import annotations

import json

from tests.helpers import probe


def test_list_fits_and_has_events():
    fitted = probe("list", env={"COLUMNS": "100"})
    assert fitted.returncode == 0 and max(map(len, fitted.stdout.splitlines())) <= 100
    assert "+" in fitted.stdout and " more  " in fitted.stdout  # event-inventory's 17 events, cut
    piped = probe("list").stdout.splitlines()
    assert piped[0].split() == ["recipe", "agents", "events", "control", "question"]
    assert probe("list", "--wide", env={"COLUMNS": "100"}).stdout.splitlines() == piped


def test_list_filters_as_the_json_does():
    every = json.loads(probe("list", "--json").stdout)
    want = [r for r in every if "vscode" in r["agents"] and "stop" in r["events"]]
    got = json.loads(probe("list", "--json", "--agent", "vscode", "--event", "stop").stdout)
    assert want and got == want  # rows unchanged, only filtered
    names = [line.split()[0] for line in probe("list", "--agent", "vscode", "--event", "stop").stdout.splitlines()[2:]]
    assert names == [r["name"] for r in want]
    fitted = probe("list", "--agent", "vscode", "--event", "stop", env={"COLUMNS": "80"}).stdout.splitlines()
    assert [line.split()[0] for line in fitted if not line.startswith(" ")] == names


def test_list_refuses_an_unknown_event_or_agent_in_one_line():
    for args, said in (
        (["--event", "nonsense"], "unknown event 'nonsense': the canonical events are"),
        (["--agent", "cursor"], "cursor"),
    ):
        proc = probe("list", *args)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and said in proc.stderr, proc.stderr
    assert "pre_tool" in probe("list", "--event", "nonsense").stderr


def test_list_setups_fit_and_filter_by_agent():
    fitted = probe("list", "--setups", env={"COLUMNS": "70"}).stdout
    assert max(map(len, fitted.splitlines())) <= 70 and "bypassPermissions" in fitted
    only = probe("list", "--setups", "--agent", "claude").stdout.splitlines()
    assert only[0].split()[0] == "agent" and [line.split()[0] for line in only[2:]] == ["claude"]
