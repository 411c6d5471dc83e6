"""`latest` that cannot run here (pipeline/run.py resolve): the newest release below it that
can, said on stderr; the registry's answer is ours to parse, so it is given here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probes.errors import InputError
from probes.pipeline import run
from probes.versions import spec


@pytest.fixture
def registry(monkeypatch):
    pub = spec.Published(["7.0.33", "7.7.2", "7.7.7", "7.7.9-rc.1", "7.8.1"], "7.8.1")
    monkeypatch.setattr(spec, "published", lambda package: pub)
    return pub


def lost(results: Path, *versions: str) -> Path:
    (results / "kilo").mkdir(parents=True)
    (results / "kilo" / "unrunnable.json").write_text(json.dumps({"agent": "kilo", "releases": dict.fromkeys(versions, "why")}))
    return results


def test_latest_that_cannot_run_is_the_newest_that_can(registry, tmp_path, capsys):
    assert run.resolve("kilo@latest", lost(tmp_path, "7.8.1"))[1:] == ("latest", "7.7.7")
    assert "kilo latest is 7.8.1, which cannot run here" in capsys.readouterr().err
    assert run.resolve("kilo@latest", tmp_path / "none")[1:] == ("latest", "7.8.1")  # nothing known: the registry's
    assert run.resolve("kilo@latest")[1:] == ("latest", "7.8.1")


def test_an_exact_version_is_never_replaced_and_none_left_is_one_line(registry, tmp_path):
    results = lost(tmp_path, "7.0.33", "7.7.2", "7.7.7", "7.8.1")
    assert run.resolve("kilo@7.8.1", results)[2] == "7.8.1"
    with pytest.raises(InputError, match="kilo latest is 7.8.1, which cannot run here: why"):
        run.resolve("kilo@latest", results)
