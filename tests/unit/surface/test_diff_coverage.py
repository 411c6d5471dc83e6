"""Surfaces compared, and related to the recipes (the shipped catalog) and to evidence."""

from __future__ import annotations

import pytest

from probes.catalog.recipes import load_all
from probes.cli import main
from probes.surface.coverage import coverage, coverage_text, uses
from probes.surface.diff import diff_text, summary, surface_diff
from probes.surface.model import Item, Surface, dedupe


def item(kind, name, offset=1):
    return Item(kind=kind, name=name, file="cli.js", offset=offset, anchor="test")


def test_diff_lists_added_and_removed_items_with_where():
    old = Surface(agent="claude", version="2.1.250", items=[item("event", "Stop"), item("event", "Gone")])
    new = Surface(agent="claude", version="2.1.251", items=[item("event", "Stop"), item("event", "PreModelSwitch", 7)])
    d = surface_diff(old, new)
    assert [i["name"] for i in d["added"]] == ["PreModelSwitch"] and [i["name"] for i in d["removed"]] == ["Gone"]
    assert summary(d) == "surface changed: +PreModelSwitch, -Gone"
    assert "+PreModelSwitch  (cli.js@7)" in diff_text(d)
    assert summary(surface_diff(old, old)) == "surface unchanged"


def test_dedupe_keeps_the_first_place():
    assert [i.offset for i in dedupe([item("event", "Stop", 1), item("event", "Stop", 2)])] == [1]


def test_coverage_relates_declared_items_to_recipes_and_evidence(tmp_path):
    recipes = load_all()
    (tmp_path / "claude" / "9.9.9").mkdir(parents=True)
    (tmp_path / "claude" / "9.9.9" / "hang-pretool.json").write_text("{}")
    s = Surface(
        agent="claude",
        version="9.9.9",
        items=[
            item("event", "PreToolUse"),
            item("event", "TeammateIdle"),
            item("handler_type", "http"),
            item("handler_field", "command.asyncRewake"),
            item("flag", "--x"),
        ],
    )
    c = coverage(s, recipes, tmp_path)
    rows = {r["name"]: r for r in c["rows"]}
    assert "hang-pretool" in rows["PreToolUse"]["recipes"] and rows["PreToolUse"]["evidence"] == ["hang-pretool"]
    assert rows["TeammateIdle"]["recipes"] == []  # a gap
    assert rows["http"]["recipes"] and rows["command.asyncRewake"]["recipes"]
    assert "--x" not in rows  # flags are listed, not related to recipes
    assert c["items_summary"].startswith("claude 9.9.9: 1 of 2 events probed (1 with evidence here)")
    assert c["summary"].startswith("claude 9.9.9: 2 events declared; payload 0, liveness 1,")  # by kind: test_kinds
    assert "TeammateIdle" in coverage_text(c) and "gap: no recipe" in coverage_text(c)


def test_a_recipe_uses_its_native_event_type_and_fields():
    recipes = load_all()
    assert ("event", "preToolUse") in uses(recipes["hang-pretool"], "copilot")
    assert ("handler_field", "command.timeoutSec") in uses(recipes["hang-pretool"], "copilot")
    assert ("handler_field", "command.timeout") in uses(recipes["hang-pretool"], "claude")


@pytest.mark.parametrize(
    "argv, said",
    [
        (["surface", "claude@2.1.332", "claude@2.1.331"], "surface reads one AGENT@VERSION"),
        (["surface", "--diff", "claude@2.1.332"], "--diff compares two versions"),
        (["surface", "--diff", "claude@2.1.332", "codex@0.171.0"], "two versions of one agent"),
        (["surface", "--diff", "--coverage", "claude@1.0.0", "claude@1.0.1"], "separate views"),
        (["surface", "vscode@4.139.1"], "; not vscode"),  # probe surface reads AGENTS; not vscode
        (["surface", "claud@1.0.0"], "unknown agent"),
        (["surface", "claude@x"], "malformed spec"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, said, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_bump_report_says_what_the_surface_gained(monkeypatch, tmp_path):
    from probes.surface.read import changed_line
    from probes.sweep import bump

    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))  # nothing installed
    assert changed_line("claude", "9.9.8", "9.9.9") == "surface not compared: 9.9.8, 9.9.9 not installed here"
    assert changed_line("vscode", "1.0.0", "1.0.1") is None  # no reader
    monkeypatch.setattr(bump, "changed_line", lambda agent, old, new: "surface changed: +PreModelSwitch")
    plan = bump.Plan("claude", "9.9.8", "9.9.8", ["9.9.9"], "all", [])
    steps = [bump.Step("9.9.8", "9.9.9", compared=1)]
    assert "surface changed: +PreModelSwitch." in bump.report(plan, steps, [], tmp_path, surface=True)
    assert "surface" not in bump.report(plan, steps, [], tmp_path)  # unit tests and library callers: off
