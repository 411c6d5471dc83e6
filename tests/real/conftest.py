"""Everything under tests/real runs the real CLIs: marked `real` whether or not its module says so.

The slowest modules are collected first: pytest-xdist hands tests out in collection order, and a
long test started last is a worker running alone at the end (test_signals' matrices, the CI
run's tail: 28 min with them last)."""

from __future__ import annotations

import pytest

FIRST = ("test_signals.py", "test_matrix.py", "test_nightly.py", "test_docker.py", "test_surface.py")


def real(item: pytest.Item) -> bool:
    return "real" in item.path.relative_to(item.config.rootpath).parts[1:2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if real(item):
            item.add_marker(pytest.mark.real)
    # a stable sort: the same order on every worker, as xdist requires
    items.sort(key=lambda item: FIRST.index(item.path.name) if real(item) and item.path.name in FIRST else len(FIRST))
