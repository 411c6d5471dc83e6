"""results/index.html from a synthetic tree of 150 releases per agent (our own rendering, so
fake evidence is fine): one row per recipe, agents side by side, exact and open boundaries,
colours by meaning, stable bytes; and, rendered in headless chromium, every row fits the screen."""

from __future__ import annotations

import re

from probes.evidence.load import load
from probes.evidence.model import load_evidence
from probes.report.colours import LABELS, MEANINGS, meaning_of, meaning_of_cell
from probes.report.page import runs
from tests.helpers import ROOT, page, tree
from tests.synthetic import RESULTS, releases, write_points


def test_150_versions_render_as_one_row_per_recipe_with_agents_side_by_side(tmp_path):
    root = tree(tmp_path / "results")
    text = page(root)
    assert text == page(root)  # the same evidence, the same bytes
    assert "http://" not in text and "https://" not in text and "<link" not in text  # nothing fetched
    assert len(text.encode()) < 60_000  # 600 records; the ticks come from one compact list per bar
    row = re.search(r'<tr id="exit2-pretool".*?</tr>', text)
    assert row and row.group().count("<td data-agent=") == 2  # claude and copilot on one row
    assert 'data-p="0-149"' in row.group()  # every version probed: one run of ticks
    assert row.group().count('class="bd x"') == 6  # 1.0.59 -> 1.0.60 exact, and around the flaky 1.0.100, per agent
    assert row.group().count('class="seg m-flaky"') == 2 and "allowed×4 / denied×1 reason lost 1.0.100" in row.group()
    assert 'href="copilot/1.0.60/exit2-pretool.json"' in row.group()  # a segment links its first record
    assert (
        "denied reason lost 1.0.0-1.0.59 | allowed reason lost 1.0.60-1.0.99 | allowed×4 / denied×1 reason lost 1.0.100 |"
        in row.group()
    )
    hang = re.search(r'<tr id="hang-pretool".*?</tr>', text)
    assert hang and hang.group().count('class="bd o"') == 2  # 1.0.98 ... 1.0.105: six releases unprobed
    assert 'data-changes="1"' in hang.group() and "2 changes" in hang.group()
    assert text.count('<tr id="') == 2  # one row per recipe, not per version
    assert "A pre-tool hook exits 2" in row.group()  # the recipe's question on its row


def test_colours_are_fixed_by_meaning_and_every_committed_label_has_one():
    assert meaning_of("denied").key == meaning_of("fail-closed").key == "blocked"
    assert meaning_of("allowed").key == meaning_of("fail-open").key == "ran"
    assert meaning_of("held-by-stdout").key == "held" and meaning_of("no-hook").key == "quiet"
    assert meaning_of("parallel×1 / serial×4").key == "flaky"
    assert len({m.fill for m in MEANINGS}) == len(MEANINGS)  # one colour, one meaning
    verdicts = {label for labels in LABELS.values() for label in labels}

    for path in RESULTS.glob("*/*/*.json"):  # a committed label is a verdict we know, or a recorded fact
        label = load_evidence(path)["outcome"]
        recorded = re.fullmatch(
            r"\d+-of-\d+-\w+|\d+-starts-\d+-prompts|[\w-]+(\+[\w-]+)+|[a-z_]+|[a-zA-Z]+|[a-z]+-[a-z-]+", label
        )
        assert label in verdicts or (recorded and meaning_of(label).key == "recorded"), (path, label)


def test_every_label_a_classifier_spells_out_has_a_meaning():
    """The labels written as literals in probes/classify/ (returned, or chosen in a
    conditional or a table of labels) are each placed in a class by name."""
    named = {label for labels in LABELS.values() for label in labels}
    source = "".join(p.read_text() for p in (ROOT / "probes" / "classify").glob("*.py"))
    found = set(re.findall(r'return \(?"([\w-]+)"|\("([\w-]+)" if', source))
    found |= set(re.findall(r'else "([\w-]+)"(?: if|\)|,|$)', source, re.M)) | set(re.findall(r'"([\w-]+)" if \w+ and', source))
    labels = {x for pair in found for x in (pair if isinstance(pair, tuple) else (pair,)) if x}
    labels |= set(re.findall(r'\(\w+, \w+\): "([\w-]+)"', source)) | set(re.findall(r'(?:True|False|None): "([\w-]+)"', source))
    # how an extension handler or an mcp_tool hook ended (hook_exit), a prompt hook's answer: not outcomes
    labels -= {"threw", "ok", "answered", "error"}
    assert {"allowed", "camelCase", "mixed", "original", "unread", "could-not-drive"} <= labels  # the patterns see them
    assert labels - named == set()


def test_runs_compress_the_probed_places():
    assert runs([0, 1, 2, 5, 7, 8]) == "0-2 5 7-8" and runs([]) == ""


def row_of(text: str, recipe: str) -> str:
    found = re.search(rf'<tr id="{recipe}".*?</tr>', text)
    assert found, recipe
    return found.group()


def test_bars_fit_each_rows_own_range(tmp_path):
    """A recipe probed on the newest 10 of 150 versions fills its bar (fitted, the default),
    and sits at 93% of the agent's whole axis (the common view); its first and last version
    are named under it, and the heading names the agent's first and last with the count."""
    root = tree(tmp_path / "results")
    write_points(root, "copilot", "late-pretool", {v: "denied" for v in releases("1.0.", 150)[140:]})
    text = page(root)
    row = row_of(text, "late-pretool")
    seg = re.search(r'<a class="seg m-blocked" style="([^"]*)"', row)
    assert seg and seg.group(1) == "--l:93.333%;--w:6.667%;--fl:0%;--fw:100%"
    assert 'data-lo="140" data-hi="149"' in row and '<div class="ends"><span>1.0.140</span><span>1.0.149</span></div>' in row
    assert '<div class="fit"><span>1.0.0</span><span>150 probed</span><span>1.0.149</span></div>' in text
    assert '<input type="checkbox" id="common">' in text and "common=1" not in text.split("<script>")[0]  # off unless asked
    hang = row_of(text, "hang-pretool")  # every 7th version: fitted from 1.0.0 to 1.0.147
    assert 'data-lo="0" data-hi="147"' in hang and "--fl:0%;" in hang


def test_change_filter_counts_per_agent(tmp_path):
    """Each row says how many times its verdict changes on each agent, so the page's script
    can combine the agent filter with "only recipes whose verdict changes"."""
    root = tree(tmp_path / "results")
    published = releases("1.0.", 150)
    write_points(root, "copilot", "turn-pretool", {v: "denied" if i < 3 else "allowed" for i, v in enumerate(published[:6])})
    write_points(root, "claude", "turn-pretool", {v: "denied" for v in releases("2.1.", 6)})
    text = page(root)
    assert 'data-changes="1" data-chg="claude:0 copilot:1"' in row_of(text, "turn-pretool")
    assert 'data-chg="claude:3 copilot:3"' in row_of(text, "exit2-pretool")  # the exact change, into and out of the flaky version
    assert "1 change</span>" in row_of(text, "turn-pretool")


def test_ignored_deny_is_its_own_colour(tmp_path):
    """`allowed` where the control (a hook that does not answer) is also `allowed`: the hook's
    deny was ignored, its own colour, listed in the legend; `allowed` where the control differs
    is the tool running."""
    root = tmp_path / "results"
    versions = releases("1.0.", 10)
    write_points(root, "copilot", "deny-pretool", {v: "allowed" for v in versions}, control="deny-pretool-control")
    write_points(
        root, "copilot", "deny-pretool-control", {v: "allowed" if i < 5 else "not-fired" for i, v in enumerate(versions)}
    )
    cells = [c for c in load(root) if c.recipe == "deny-pretool"]
    assert [meaning_of_cell(c).key for c in cells] == ["ignored"] * 5 + ["ran"] * 5
    text = page(root)
    row = row_of(text, "deny-pretool")
    assert row.count('class="seg m-ignored"') == 1 and row.count('class="seg m-ran"') == 1
    assert '<span class="sw m-ignored">ignored</span>' in text and ".m-ignored{background:#f4b6d2" in text
