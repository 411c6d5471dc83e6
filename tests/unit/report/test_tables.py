"""Tables, diffs and citations from committed evidence (results/), copied to a temporary tree."""

from __future__ import annotations

import json
import re

import pytest

from probes.agents import AGENTS
from probes.catalog.recipes import load_all
from probes.classify import CLASSIFIERS
from probes.errors import InputError
from probes.evidence.load import load
from probes.report.cells import cell_text
from probes.report.ranges import line, line_text
from probes.sweep import matrix
from probes.versions import spec
from tests.helpers import RESULTS, probe


def test_table_is_byte_stable_and_writes_the_index(results):
    first = probe("table", "--results", str(results))
    index = (results / "README.md").read_bytes(), (results / "copilot.md").read_bytes()
    second = probe("table", "--results", str(results))
    assert first.returncode == 0 and first.stdout == second.stdout
    assert index == ((results / "README.md").read_bytes(), (results / "copilot.md").read_bytes())
    assert "| hang-pretool " in first.stdout and re.search(
        r"fail-open 3\.\d(-\d+\.\d)?s 2\.\d+\.\d+-2\.1\.332", first.stdout
    )  # one range
    assert "1.0.80" in first.stdout and "1.0.92" in first.stdout
    # the change of payload shape: exact once the atlas probed 1.0.81 (open, `…`, before it)
    assert re.search(r"recorded string [^|]*1\.0\.80 (…|\\\|) recorded object [^|]*1\.0\.\d+-1\.0\.102", first.stdout)
    grid = probe("table", "--grid", "--results", str(results)).stdout  # recipes x versions, as before
    assert "| recipe " in grid and "| 1.0.80 " in grid and "fail-open 3.0s" in grid
    assert (results / "copilot.md").read_bytes() == index[1]  # the index is the same whichever is printed


def test_grid_is_for_markdown_only(results):
    proc = probe("table", "--grid", "--format", "json", "--results", str(results))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--grid is a markdown layout" in proc.stderr


def test_ranges_mark_exact_and_open_boundaries(tmp_path):
    from tests.synthetic import releases, write_points, write_published

    root = tmp_path / "results"
    write_points(root, "copilot", "exit2-pretool", {"1.0.1": "denied", "1.0.2": "denied", "1.0.3": "allowed"})
    write_points(root, "copilot", "hang-pretool", {"1.0.1": "held", "1.0.5": "fail-open", "1.0.6": "held"})
    write_published(root, "copilot", releases("1.0.", 8))
    out = probe("table", "--results", str(root)).stdout
    assert "| exit2-pretool | denied reason lost 1.0.1-1.0.2 \\| allowed reason lost 1.0.3 |" in out  # adjacent releases: exact
    assert "| hang-pretool  | held 1.0.1 … fail-open 1.0.5 \\| held 1.0.6                  |" in out  # 1.0.2-1.0.4 unprobed: open
    assert "copilot (5 versions)" in out  # probed of any recipe


def test_table_json_has_one_row_per_record(results):
    rows = json.loads(probe("table", "--format", "json", "--results", str(results), "--agent", "claude").stdout)
    assert len(rows) == len(list((results / "claude").glob("*/*.json")))
    assert {"agent", "version", "recipe", "outcome", "label", "observations", "claims", "evidence"} <= set(rows[0])


def test_diff_names_the_tool_args_type_change(results):
    out = probe("diff", "copilot@1.0.80", "copilot@1.0.92", "--results", str(results)).stdout
    assert 'payload-pretool: observation tool_args_type: "string" -> "object"' in out
    assert "stop-block-loop" not in out  # bounded on both: no change
    changes = json.loads(probe("diff", "copilot@1.0.71", "copilot@1.0.92", "--json", "--results", str(results)).stdout)
    assert {"recipe": "stop-block-loop", "what": "outcome", "from": "unbounded", "to": "bounded"} in changes
    assert not any(c["what"].endswith("_s") for c in changes)  # timings only with --timings


def test_diff_of_a_version_without_evidence_is_one_line(results):
    proc = probe("diff", "copilot@1.0.80", "copilot@1.0.58", "--results", str(results))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no evidence for copilot@1.0.58" in proc.stderr


def test_cite_gives_fact_version_digest_and_claim(results):
    out = probe("cite", "copilot@1.0.92", "exit2-pretool", "--results", str(results)).stdout
    from probes.report.cite import evidence_digest

    digest = evidence_digest(results / "copilot" / "1.0.92" / "exit2-pretool.json")  # the record and its blobs
    assert "Outcome: **denied**" in out and "copilot 1.0.92" in out and digest in out
    assert 'Agrees with copilot changelog 1.0.70: "preToolUse hooks that exit with code 2 deny tool calls"' in out


def test_cite_and_diff_take_latest_as_the_newest_probed(results, tmp_path):
    newest = max((c.version for c in load(results, "copilot", "hang-pretool")), key=spec.semver_key)
    latest = probe("cite", "copilot@latest", "hang-pretool", "--results", str(results))
    exact = probe("cite", f"copilot@{newest}", "hang-pretool", "--results", str(results))
    assert latest.returncode == 0 and latest.stdout == exact.stdout and exact.stderr == ""
    assert latest.stderr == (
        f"probe: copilot@latest is copilot {newest}, the newest probed in {results} "
        "(the registry's may be newer: probe versions copilot)\n"
    )
    assert probe("cite", "copilot", "hang-pretool", "--results", str(results)).stdout == exact.stdout  # bare: latest
    newest_any = max((c.version for c in load(results, "copilot")), key=spec.semver_key)
    d = probe("diff", "copilot@1.0.80", "copilot@latest", "--results", str(results))
    assert (
        d.returncode == 0
        and d.stdout == probe("diff", "copilot@1.0.80", f"copilot@v{newest_any}", "--results", str(results)).stdout
    )
    assert f"copilot@latest is copilot {newest_any}" in d.stderr and d.stderr.count("\n") == 1
    (tmp_path / "empty").mkdir()
    for args in (["cite", "copilot@latest", "hang-pretool"], ["diff", "copilot@1.0.80", "copilot@latest"]):
        proc = probe(*args, "--results", str(tmp_path / "empty"))
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no evidence for copilot" in proc.stderr, proc.stderr


def test_a_malformed_v_spec_is_one_line(results):
    for text in ("copilot@vlatest", "copilot@V1.0.92", "copilot@vv1.0.92"):
        proc = probe("cite", text, "hang-pretool", "--results", str(results))
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "malformed spec" in proc.stderr


def test_a_flaky_cell_shows_the_spread(results):
    path = results / "copilot" / "1.0.92" / "parallel-pretool.json"
    rec = json.loads(path.read_text())
    rec["repeats"] = {"runs": 5, "outcomes": {"serial": 4, "parallel": 1}}
    path.write_text(json.dumps(rec))
    (cell,) = load(results, "copilot", "parallel-pretool")[-1:]
    assert cell.label == "parallel×1 / serial×4"


def test_matrix_versions(monkeypatch):
    pub = spec.Published(["1.0.71", "1.0.80", "1.0.81-0", "1.0.81", "1.0.92", "1.0.102"], "1.0.102")
    monkeypatch.setattr(spec, "published", lambda pkg: pub)
    copilot = AGENTS["copilot"]
    assert matrix.select_versions(copilot, "1.0.80..1.0.92") == ["1.0.80", "1.0.81", "1.0.92"]
    assert matrix.select_versions(copilot, "latest:2") == ["1.0.92", "1.0.102"]
    assert matrix.select_versions(copilot, "1.0.80,1.0.81") == ["1.0.80", "1.0.81"]
    assert matrix.select_versions(copilot, spec.bare_versions("v1.0.80..v1.0.92")) == ["1.0.80", "1.0.81", "1.0.92"]
    with pytest.raises(InputError, match="1.0.93 is not published"):
        matrix.select_versions(copilot, "1.0.80,1.0.93")
    cells = matrix.plan("copilot", "1.0.80,1.0.92", "all")
    assert cells[0].recipe == "default-timeout-pretool"  # slow cells first
    assert len(cells) == 2 * len([1 for c in cells if c.spec == "copilot@1.0.80"])


def test_each_claim_gets_its_own_mark_and_every_mark_is_explained(results):
    from probes.report import legend

    def cell(agent: str, version: str, recipe: str) -> str:
        (c,) = load(results, agent, recipe, version)
        return cell_text(c, load_all()[recipe].classifier)

    assert cell("copilot", "1.0.92", "ext-exit-pretool").endswith(" ✓1 ✓2 ?3")  # ran, later calls ran, status not recorded
    assert cell("claude", "2.1.328", "default-timeout-pretool") == "held ?"  # 40 s cannot show a 600 s default
    assert cell("copilot", "1.0.92", "env-pretool") == "recorded ?"  # no trace was started: not ✗
    assert cell("copilot", "1.0.80", "payload-pretool") == "recorded string ✓2"  # claims 1 and 3 name 1.0.81+
    delay = load(results, "copilot", "hang-pretool", "1.0.92")[0].record.observations["progress_delay_s"]
    assert cell("copilot", "1.0.92", "hang-pretool") == f"fail-open {delay:.1f}s ✓"  # the delay as measured
    assert probe("table", "--results", str(results)).returncode == 0
    page = (results / "copilot.md").read_text()
    for text in (page, (results / "README.md").read_text()):
        assert "✓ the claim agrees" in text and "✗ it disagrees" in text and "? untested" in text
        for name, c in CLASSIFIERS.items():  # every key observation a cell may show (on copilot's page: its own)
            shown = text is not page or name in {r.classifier for r in load_all().values() if "copilot" in r.agents}
            assert c.key is None or not shown or f"`{c.key}` ({name})" in text
    assert re.search(r"\| ext-exit-pretool +\| +3 \|", page) and "the harness does not record an extension's status" in page
    assert set(legend.KEY_MEANS) >= {c.key for c in CLASSIFIERS.values() if c.key}
    html_out = results / "index.html"
    assert probe("table", "--format", "html", "--results", str(results), "--output", str(html_out)).returncode == 0
    text = html_out.read_text()
    assert 'id="legend"' in text and "? untested" in text and "copilot: claims" in text


def test_a_verdict_its_control_shares_is_marked():
    """claude 2.1.84 ask-pretool is `allowed` like its control: marked `=ctl`, and a range of its
    own; 2.1.85 (denied, the control allowed) is not."""
    cells = load(RESULTS, agent="claude", recipe="ask-pretool")  # the control read from beside
    marked = {c.version for c in cells if c.same_as_control}
    assert "2.1.84" in marked and "2.1.85" not in marked
    text = line_text(line(cells, "claude", "ask-pretool", "authority", None))
    assert "allowed =ctl" in text and "denied" in text
