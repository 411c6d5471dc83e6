"""Everything under tests/real runs the real CLIs: marked `real` whether or not its module says so."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "real" in item.path.relative_to(item.config.rootpath).parts[1:2]:
            item.add_marker(pytest.mark.real)
