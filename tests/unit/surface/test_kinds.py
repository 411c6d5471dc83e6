"""Coverage by kind (payload, liveness, decision) of each declared event, the unreachable list,
the surface saved beside the evidence, and what the tables and the page say of it."""

from __future__ import annotations

import json

import pytest

from probes.catalog.recipes import load_all
from probes.errors import InputError
from probes.report.coverage import agent_coverage, coverage_html
from probes.surface.coverage import coverage, coverage_text
from probes.surface.kinds import KIND_OF, event_coverage, unreachable
from probes.surface.model import Item, Surface
from probes.surface.saved import load_saved, save, saved_path, saved_versions


def item(kind, name, offset=1):
    return Item(kind=kind, name=name, file="cli.js", offset=offset, anchor="test")


def surface(version="9.9.9", extra=()):
    events = ["PreToolUse", "Stop", "SessionEnd", "Notification", "TeammateIdle"]
    items = [item("event", e, n) for n, e in enumerate(events)]
    items += [item("decision_field", "PreToolUse.permissionDecision"), item("decision_field", "Notification.additionalContext")]
    return Surface(agent="claude", version=version, items=[*items, *extra])


def record(results, version, recipe, fired=None):
    folder = results / "claude" / version
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{recipe}.json").write_text(json.dumps({"observations": {"fired": fired}} if fired is not None else {}))


def test_each_event_has_its_kinds_from_the_recipes_classifiers_and_subjects(tmp_path):
    record(tmp_path, "9.9.9", "hang-pretool")  # liveness, subject pre_tool
    record(tmp_path, "9.9.9", "event-inventory", fired=["PreToolUse", "Stop"])  # inventory: what fired
    record(tmp_path, "9.9.8", "event-inventory", fired=["SessionEnd"])  # another version: a recipe, no evidence here
    c = event_coverage(surface(), load_all(), tmp_path, {"TeammateIdle": "needs a team"})
    rows = {r["name"]: r for r in c["events"]}
    assert rows["PreToolUse"]["kinds"]["liveness"]["evidence"] == ["hang-pretool"]
    assert "event-inventory" in rows["Stop"]["kinds"]["payload"]["evidence"]
    assert rows["SessionEnd"]["kinds"]["payload"]["recipes"] and not rows["SessionEnd"]["kinds"]["payload"]["evidence"]
    assert "event-inventory" not in rows["Notification"]["kinds"]["payload"]["recipes"]  # hooked, never fired
    assert "hang-pretool-control" not in rows["PreToolUse"]["kinds"]["liveness"]["recipes"]  # controls are not counted
    # a decision is expected where one is declared (not additionalContext) or a recipe probes one
    assert rows["PreToolUse"]["decision_declared"] and rows["Stop"]["decision_declared"]
    assert not rows["Notification"]["decision_declared"] and not rows["SessionEnd"]["decision_declared"]
    assert rows["TeammateIdle"]["unreachable"] == "needs a team"
    assert "TeammateIdle" not in c["gaps"]["payload"] and "Notification" in c["gaps"]["payload"]
    assert c["unreachable"] == [{"event": "TeammateIdle", "reason": "needs a team"}]
    assert c["summary"].startswith(
        "claude 9.9.9: 5 events declared; payload 2, liveness 1, decision 0 (of 2 with a decision); gaps: "
    )
    assert c["summary"].endswith("; 1 not reachable headless: TeammateIdle")


def test_the_mapping_covers_the_three_kinds_and_only_known_classifiers():
    from probes.classify import CLASSIFIERS

    assert set(KIND_OF.values()) == {"payload", "liveness", "decision"}
    assert set(KIND_OF) <= set(CLASSIFIERS)


def test_coverage_text_and_json_carry_the_kinds(tmp_path):
    record(tmp_path, "9.9.9", "hang-pretool")
    c = coverage(surface(), load_all(), tmp_path)
    assert c["summary"] == c["by_kind"]["summary"] and c["items_summary"].startswith(
        "claude 9.9.9: 4 of 5 events probed (1 with evidence here)"
    )
    text = coverage_text(c)
    assert "events by kind" in text and "PreToolUse" in text and "decision n/a" in text


def test_unreachable_from_the_data_file_and_the_docs_table(tmp_path):
    data = tmp_path / "u.yaml"
    data.write_text("- {agent: claude, event: TeammateIdle, reason: from the file}\n- {agent: codex, event: X, reason: other}\n")
    docs = tmp_path / "surface.md"
    docs.write_text(
        "# x\n\n## Events no recipe reaches\n\n| agent | event | reason |\n|---|---|---|\n"
        "| claude | `PreModelSwitch` | a model switch is interactive |\n\n## Next\n\n| claude | Later | not this section |\n"
    )
    assert unreachable("claude", data, docs) == {
        "TeammateIdle": "from the file",
        "PreModelSwitch": "a model switch is interactive",
    }
    assert unreachable("claude", tmp_path / "none.yaml", tmp_path / "none.md") == {}
    data.write_text("- {agent: claude}\n")
    with pytest.raises(InputError, match="expected a list of"):
        unreachable("claude", data, docs)


def test_the_shipped_unreachable_list_reads():
    assert isinstance(unreachable("claude"), dict)


def test_a_saved_surface_keeps_what_coverage_reads_and_reads_back(tmp_path):
    s = surface(extra=[item("flag", "--x"), item("env", "CLAUDE_X")])
    path = save(s, tmp_path)
    assert path == saved_path(tmp_path, "claude", "9.9.9") == tmp_path / "claude" / "surface-9.9.9.json"
    back = load_saved(tmp_path, "claude", "9.9.9")
    assert back is not None and {i.kind for i in back.items} == {"event", "decision_field"}
    assert path.read_bytes() == save(s, tmp_path).read_bytes()  # the same read, the same bytes
    save(surface("9.9.10"), tmp_path)
    assert saved_versions(tmp_path, "claude") == ["9.9.9", "9.9.10"]
    assert load_saved(tmp_path, "claude", "1.0.0") is None


def test_the_tables_coverage_is_of_the_newest_saved_version_with_evidence(tmp_path):
    recipes = load_all()
    record(tmp_path, "9.9.9", "hang-pretool")
    none = agent_coverage(tmp_path, "claude", ["9.9.9"], recipes)
    assert none.version is None and "probe surface claude@9.9.9 --save" in none.line
    save(surface(), tmp_path)
    c = agent_coverage(tmp_path, "claude", ["9.9.9", "9.9.10"], recipes)
    assert c.version == "9.9.9" and c.newest == "9.9.10" and (c.probed, c.declared) == (1, 5)
    assert c.line.startswith("1 of 5 events probed (claude 9.9.9): 5 events declared;") and "9.9.10 has none" in c.line
    page = coverage_html({"claude": c})
    assert "1 of 5 events probed" in page and "no payload evidence: PreToolUse" in page


def test_probe_table_writes_coverage_to_the_index_the_agent_page_and_the_page(tmp_path):
    from tests.helpers import probe
    from tests.synthetic import write_points

    root = tmp_path / "results"
    write_points(root, "claude", "hang-pretool", {"9.9.8": "held", "9.9.9": "fail-open"})
    assert probe("table", "--results", str(root)).returncode == 0
    assert "coverage not known: no surface saved for claude 9.9.9" in (root / "claude.md").read_text()
    save(surface(), root)
    assert probe("table", "--results", str(root)).returncode == 0
    assert "  - events: 1 of 5 events probed (claude 9.9.9): " in (root / "README.md").read_text()
    assert "Events: 1 of 5 events probed (claude 9.9.9)" in (root / "claude.md").read_text()
    assert probe("table", "--format", "html", "--results", str(root)).returncode == 0
    assert "claude 9.9.9: 1 of 5 events probed" in (root / "index.html").read_text()


def test_merge_carries_saved_surfaces_and_refuses_a_misplaced_one(tmp_path):
    from probes.evidence import merge
    from tests.helpers import shard_tree

    a = shard_tree(tmp_path, "a", "claude/2.1.328/hang-pretool")
    b = shard_tree(tmp_path, "b", "claude/2.1.328/payload-pretool")
    save(surface("9.9.9"), a)
    save(surface("9.9.9"), b)  # two shards of one agent save the same read
    dest = tmp_path / "out"
    assert merge.merge([a, b], dest) == (2, 0)  # surfaces are not records: not counted
    assert load_saved(dest, "claude", "9.9.9") == surface("9.9.9").model_copy(
        update={"items": [i for i in surface("9.9.9").items if i.kind != "flag"]}
    )
    (a / "claude" / "surface-9.9.9.json").rename(a / "claude" / "surface-9.9.8.json")
    with pytest.raises(InputError, match="not what its path says"):
        merge.merge([a], tmp_path / "out2")
    assert not (tmp_path / "out2").exists()  # checked before anything is written
