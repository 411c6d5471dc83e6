"""The session's budget: from the CLI's start, and from its first model request for a CLI that
reached its model late (issue 28: start-up under load is not a verdict). The runner with a
plain python child (not a coding-agent CLI) that is slow to make its first request."""

from __future__ import annotations

import json

import pytest

from probes.runner.cutoff import LATE_START_MAX_S, deadline


def test_no_turn_budget_or_no_model_request_is_the_budget_from_start():
    assert deadline(100.0, 20.0, None, 105.0) == 120.0
    assert deadline(100.0, 20.0, 20.0, None) == 120.0


def test_never_earlier_than_the_budget_from_start():
    assert deadline(100.0, 40.0, 20.0, 115.0) == 140.0  # an agent's start-up allowance is kept
    assert deadline(100.0, 20.0, 20.0, 100.6) == pytest.approx(120.6)


def test_a_late_first_request_gets_the_turn_budget_from_it():
    assert deadline(100.0, 20.0, 20.0, 115.7) == pytest.approx(135.7)
    assert deadline(100.0, 40.0, 20.0, 125.0) == 145.0


def test_the_extension_is_bounded_and_a_request_after_the_budget_moves_nothing():
    assert deadline(100.0, 20.0, 100.0, 119.0) == 120.0 + LATE_START_MAX_S
    assert deadline(100.0, 20.0, 20.0, 120.5) == 120.0


SLOW_START = """
    import json, os, time, urllib.request
    time.sleep(1.2)  # start-up
    req = urllib.request.Request(os.environ["MODEL_URL"] + "/v1/messages",
        data=json.dumps({"max_tokens": 5, "messages": []}).encode(),
        headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=5).read()
    time.sleep(3600)  # a turn that never ends
"""


def test_a_slow_start_gets_its_turn_budget_from_the_first_model_request(run, tmp_path):
    rc, result, _ = run(SLOW_START, budget_s=1.5, turn_budget_s=1.5)
    assert rc == 0
    (entry,) = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()]
    assert result["first_model_request_at"] == entry["t"]
    startup_s = result["first_model_request_at"] - result["started_at"]
    assert 1.1 <= startup_s <= 1.9
    assert result["timed_out"] is True and result["exit_code"] is None
    assert result["deadline_at"] == pytest.approx(result["first_model_request_at"] + 1.5)
    assert startup_s + 1.4 <= result["wall_s"] <= startup_s + 2.0


def test_a_cli_that_never_reaches_its_model_is_cut_at_the_budget_from_start(run):
    rc, result, _ = run("import time; time.sleep(3600)", budget_s=1.0, turn_budget_s=5.0)
    assert rc == 0
    assert result["timed_out"] is True and result["first_model_request_at"] is None
    assert result["deadline_at"] == pytest.approx(result["started_at"] + 1.0)
    assert 0.9 <= result["wall_s"] <= 1.5
