"""The README guides (at most 16 KB, the rest in docs/), and no relative link in it or in
docs/ points at nothing."""

from __future__ import annotations

import re

import pytest

from tests.helpers import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]


def test_the_readme_stays_a_guide():
    assert (ROOT / "README.md").stat().st_size <= 16 * 1024


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    for target in re.findall(r"\]\(([^)#\s]+)", page.read_text()):
        if not target.startswith(("http://", "https://", "mailto:")):
            assert (page.parent / target).exists(), f"{page.name}: {target}"
