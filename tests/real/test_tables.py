"""Tables, diffs and citations from committed evidence (results/), copied to a temporary tree."""

from __future__ import annotations

import re

import pytest

from tests.helpers import chromium, probe


@pytest.mark.real
def test_html_view_renders_in_headless_chromium(results, tmp_path):
    page = tmp_path / "index.html"
    assert probe("table", "--format", "html", "--results", str(results), "--output", str(page)).returncode == 0
    text = page.read_text()
    assert "http://" not in text and "https://" not in text  # self-contained: nothing fetched
    shot = tmp_path / "matrix.png"
    chromium(f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri(), tmp_path=tmp_path)
    assert shot.exists() and shot.stat().st_size > 20_000
    dom = chromium("--dump-dom", page.as_uri() + "#agent=claude&group=liveness", tmp_path=tmp_path).stdout
    assert '<section data-agent="copilot" hidden=""' in dom and '<section data-agent="claude">' in dom
    assert '<td data-agent="copilot" hidden="">' in dom and '<th data-agent="claude" title=' in dom
    assert re.search(r'<tr id="hang-pretool" data-group="liveness" data-changes="\d" data-chg="[^"]*" data-control="0">', dom)
    assert re.search(
        r'<tr id="exit2-pretool" data-group="decision" data-changes="\d" data-chg="[^"]*" data-control="0" hidden="">', dom
    )
    link = "results/claude/2.1.328/hang-pretool.json"  # relative to the page: the segment's first record
    assert f'href="{link}"' in dom
    assert re.search(
        f'<a href="{link}" title="2.1.328" data-i="\\d+" style="left: [0-9.]+%; width: [0-9.]+%;"></a>', dom
    )  # its tick
