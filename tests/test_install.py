"""Installs: a failed install leaves nothing a later run would use."""

from __future__ import annotations

import pytest

from probes import install
from probes.agents import AGENTS
from probes.errors import HarnessError


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_CACHE", str(tmp_path))
    return tmp_path


def fake_npm(fail: bool):
    def npm_install(package, version, staging):
        binary = AGENTS["claude"].binary_path(staging)
        binary.parent.mkdir(parents=True)
        binary.write_text("#!/bin/sh\n")  # half an install: the binary is there already
        if fail:
            raise HarnessError("npm install failed midway")

    return npm_install


def test_failed_install_leaves_no_usable_prefix(cache, monkeypatch):
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=True))
    with pytest.raises(HarnessError):
        install.install(AGENTS["claude"], "9.9.9")
    assert not install.installed(AGENTS["claude"], "9.9.9")
    assert [p.name for p in (cache / "cli" / "claude").iterdir()] == ["9.9.9.lock"]


def test_stale_partial_from_a_killed_install_is_cleared(cache, monkeypatch):
    stale = cache / "cli" / "claude" / ".9.9.9.partial-99999"
    stale.mkdir(parents=True)
    monkeypatch.setattr(install, "_npm_install", fake_npm(fail=False))
    prefix = install.install(AGENTS["claude"], "9.9.9")
    assert install.installed(AGENTS["claude"], "9.9.9") and prefix.name == "9.9.9"
    assert not stale.exists()
    assert install.installed_versions(AGENTS["claude"]) == ["9.9.9"]
