"""results/index.html from a synthetic tree of 150 releases per agent (our own rendering, so
fake evidence is fine): one row per recipe, agents side by side, exact and open boundaries,
colours by meaning, stable bytes; and, rendered in headless chromium, every row fits the screen."""

from __future__ import annotations

import re

import pytest

from tests.helpers import chromium, page, tree


@pytest.mark.real
def test_150_versions_fit_a_screen_in_headless_chromium(tmp_path):
    """Rendered: no row wider than a 1400-pixel window, each row under 120 pixels high, 150
    ticks per fully probed bar, each linked to its record."""
    root = tree(tmp_path / "results")
    measure = """<script>
const rows = [...document.querySelectorAll('tr[id]')], h = Math.max(...rows.map(r => r.getBoundingClientRect().height));
document.body.dataset.fit = [document.documentElement.scrollWidth <= innerWidth, Math.round(h),
  document.querySelectorAll('#exit2-pretool td[data-agent=copilot] .ticks a').length].join(' ');
</script></body>"""
    out = root / "index.html"
    out.write_text(page(root).replace("</body>", measure))
    shot = tmp_path / "page.png"
    chromium(f"--screenshot={shot}", "--window-size=1400,900", out.as_uri(), tmp_path=tmp_path)
    assert shot.exists() and shot.stat().st_size > 20_000
    dom = chromium("--window-size=1400,900", "--dump-dom", out.as_uri(), tmp_path=tmp_path).stdout
    fit = re.search(r'data-fit="(\w+) (\d+) (\d+)"', dom)
    assert fit, dom[:300]
    assert fit.group(1) == "true" and int(fit.group(2)) < 120 and fit.group(3) == "150"
    assert '<a href="copilot/1.0.149/exit2-pretool.json" title="1.0.149"' in dom
