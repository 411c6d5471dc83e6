"""`probe bisect --surface`: the item parsed, the search's result worded, bad input one line.
The installs themselves are read in tests/real/test_surface.py."""

from __future__ import annotations

import pytest

from probes.cli import main
from probes.errors import InputError
from probes.sweep.search import Point, search
from probes.sweep.surface_bisect import SurfaceReport, as_json, parse_item, text


def test_an_item_is_kind_and_name_and_a_bare_name_is_an_event():
    assert parse_item("event:PreModelSwitch") == ("event", "PreModelSwitch")
    assert parse_item("PostToolBatch") == ("event", "PostToolBatch")
    assert parse_item("flag:--model") == ("flag", "--model")
    assert parse_item("handler_field:command.async") == ("handler_field", "command.async")
    for bad in ("events:X", "event:", "event:a\nb"):
        with pytest.raises(InputError):
            parse_item(bad)


def declared_from(first: str):
    """A probe whose versions (1.0.N) declare the item from `first` on; the versions it was asked."""
    asked: list[str] = []

    def probe(versions: list[str]) -> list[Point]:
        asked.extend(versions)
        return [
            Point(v, "declared", "declared", evidence="cli.js@7")
            if int(v.split(".")[2]) >= int(first.split(".")[2])
            else Point(v, "absent", "absent")
            for v in versions
        ]

    return probe, asked


def test_the_boundary_is_the_first_version_that_declares_it_in_about_log2_installs():
    versions = [f"1.0.{n}" for n in range(12)]
    probe, asked = declared_from("1.0.11")
    b = search(versions, probe)
    assert b.status == "boundary" and (b.before.version, b.after.version) == ("1.0.10", "1.0.11") and b.exact
    assert len(asked) <= 2 + 4  # the ends, then ceil(log2(10)) halvings
    r = SurfaceReport("claude", "event:PreModelSwitch", "1.0.0", "1.0.11", b, 3.0)
    out = text(r)
    assert out.startswith(f"claude event:PreModelSwitch 1.0.0..1.0.11: 12 candidates, {len(asked)} installs read in 3s")
    assert "boundary: 1.0.10 absent | 1.0.11 declared (exact: adjacent releases)" in out
    assert "found in 1.0.11 at cli.js@7" in out
    j = as_json(r)
    assert j["after"] == {"version": "1.0.11", "value": "declared", "where": "cli.js@7"} and j["status"] == "boundary"
    assert r.exit_status == 0


def test_ends_that_agree_say_so_with_where():
    probe, _ = declared_from("1.0.0")
    r = SurfaceReport("claude", "event:Stop", "1.0.0", "1.0.3", search([f"1.0.{n}" for n in range(4)], probe))
    assert "declared at both ends: no boundary to find" in text(r) and "found in 1.0.3 at cli.js@7" in text(r)


@pytest.mark.parametrize(
    "argv, said",
    [
        (["bisect", "claude", "--from", "2.1.240", "--to", "2.1.251"], "bisect needs a RECIPE, or --surface KIND:NAME"),
        (["bisect", "claude", "hang-pretool", "--surface", "event:X", "--from", "1.0.0", "--to", "1.0.1"], "not both"),
        (["bisect", "claude", "--surface", "events:X", "--from", "1.0.0", "--to", "1.0.1"], "expected KIND:NAME"),
        (["bisect", "claude", "--surface", "event:X", "--repeat", "2", "--from", "1.0.0", "--to", "1.0.1"], "--repeat"),
        (["bisect", "claude", "--surface", "event:X", "--observation", "k", "--from", "1.0.0", "--to", "1.0.1"], "runs no"),
        (["bisect", "vscode", "--surface", "event:X", "--from", "1.0.0", "--to", "1.0.1"], "not vscode"),
        (["bisect", "claude", "--surface", "event:X", "--from", "x y", "--to", "1.0.1"], "--from 'x y'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, said, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
