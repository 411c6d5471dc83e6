"""The search's own helpers (sweep/search.py)."""

from __future__ import annotations


def test_a_version_that_did_not_get_going_is_said_in_its_own_words():
    from probes.sweep.search import last_words

    said = "Error: No authentication information found.\n\nCopilot can be authenticated with GitHub ...\n"
    assert last_words(said) == "Error: No authentication information found."
    assert last_words("starting\nsegfault at 0x0\n\n") == "segfault at 0x0"
    assert last_words("") == ""
    assert len(last_words("x" * 500)) == 160
