"""When a session is cut: at its deadline, or when it fills a capped directory. Standard
library only.

The plan's `budget_s` counts from the CLI's start; a CLI that reaches its model late gets the
plan's `turn_budget_s` from its first model request, read from the model log (issue 28:
start-up is not a verdict). The runner (runner.py) keeps one Cutoff per session and asks it,
at each poll, whether the session is past its deadline or its disk is full.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING or __package__:
    from . import untrusted
else:  # run as a script (runner.py), with its files beside it
    import untrusted

if TYPE_CHECKING:
    from .contract import Plan

FULL_BELOW = 1024 * 1024  # a capped directory with less free space than this is full
# A CLI slow to reach its model is given its turn budget past the plan's budget_s by at most
# this: the backends wait budget_s + 30 s (probes/backends/base.py GRACE_S) for the runner,
# which still has its sweep (up to runner.py's SETTLE_S) to do after the cut.
LATE_START_MAX_S = 20.0
FIRST_T = re.compile(rb'^\{"seq": \d+, "t": ([0-9.]+),')  # the model log's first line, as model.py writes it


def deadline(started: float, budget_s: float, turn_budget_s: float | None, first_request_at: float | None) -> float:
    """When the session is cut. `budget_s` counts from the CLI's start: all a CLI that does not
    reach its model gets (the agent's start-up allowance is in it). One that reaches it late,
    its start-up slowed by a loaded machine, still gets `turn_budget_s` from its first model
    request, up to LATE_START_MAX_S past budget_s: start-up is not a verdict. Never earlier
    than budget_s: an agent's start-up allowance is kept for one that starts in time."""
    cap = started + budget_s
    if turn_budget_s is None or first_request_at is None or first_request_at > cap:
        return cap
    return max(cap, min(first_request_at + turn_budget_s, cap + LATE_START_MAX_S))


class Cutoff:
    """A session's clock (its start, the CLI's, is now), its deadline, when the CLI first
    reached its model, and which capped directory it filled."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.started = time.time()
        self.deadline = self.started + float(plan["budget_s"])  # until the first model request
        self.first_request_at: float | None = None
        self.filled: str | None = None

    def past_deadline(self) -> bool:
        """True once the budget (`deadline`) is spent; it is moved when the first model request
        is seen in the model log (plan["turn_budget_s"])."""
        now = time.time()
        if self.first_request_at is None and "turn_budget_s" in self.plan:
            self.first_request_at = self.first_model_request(now)
            if self.first_request_at is not None:
                turn_s = float(self.plan["turn_budget_s"])
                self.deadline = deadline(self.started, float(self.plan["budget_s"]), turn_s, self.first_request_at)
        return now >= self.deadline

    def first_model_request(self, now: float | None) -> float | None:
        """When the model logged its first request (its `t`; `now` if that cannot be read), or
        None while the log is empty. Read as untrusted: the log lies in the run's directory."""
        log = Path(self.plan["model_log"])
        try:
            head = untrusted.read(log.parent, log.name, 256, part="head")
        except untrusted.Refused:
            return None
        if not head:
            return None
        m = FIRST_T.match(head)
        return float(m.group(1)) if m else now

    def disk_full(self) -> bool:
        """True once a capped directory of the run (plan["capped"]: name -> path, each its own
        size-capped filesystem) is full: the session is ended there, with that said."""
        for name, path in (self.plan.get("capped") or {}).items():
            try:
                st = os.statvfs(path)
            except OSError:
                continue
            if st.f_bavail * st.f_frsize < FULL_BELOW:
                self.filled = f"the session filled {name}, capped at {st.f_blocks * st.f_frsize // (1024 * 1024)} MiB"
                return True
        return False
