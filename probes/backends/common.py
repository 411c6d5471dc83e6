"""What every backend does around the runner: hand it the plan, read back its result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, cast

from probes import limits
from probes.errors import HarnessError
from probes.runner import untrusted

if TYPE_CHECKING:
    from probes.runner.contract import Plan, Result

RESULT_MAX = 16 * 1024 * 1024  # the runner's result: timings and a terminal transcript


def runner_argv(python: str, run_dir: Path, plan: Plan) -> list[str]:
    """Write the plan into the run directory; the command that runs the runner on it."""
    plan_path = run_dir / "plan.json"
    plan_path.write_text(json.dumps(plan))
    # -S (no site) starts fastest; an interactive plan needs site-packages (pexpect, pyte).
    flags = ["-E", "-s"] if plan.get("interactive") else ["-S", "-E", "-s"]
    return [python, *flags, str(run_dir / "bin" / "runner.py"), str(plan_path)]


def read_result(plan: Plan, missing: str) -> Result:
    """The runner's result, or one line: `missing` when it wrote none, its own error if any."""
    path = Path(plan["result"])
    if not untrusted.exists(path.parent, path.name):
        raise HarnessError(missing)
    try:
        result = limits.parse_json(untrusted.read(path.parent, path.name, RESULT_MAX))
    except (untrusted.Refused, limits.BadFile) as e:
        raise HarnessError(f"the runner's result is unreadable ({e})") from None
    if not isinstance(result, dict):
        raise HarnessError("the runner's result is not an object")
    if result.get("error"):  # a Failure: the runner could not start the session
        raise HarnessError(str(result["error"]))
    return cast("Result", result)  # written by runner.main as a Result


def last_words(run_dir: Path, name: str) -> str:
    """The last line the runner wrote to its error file, or `no output`."""
    try:
        lines = untrusted.text(run_dir, name, 8192, "tail").strip().splitlines()
    except untrusted.Refused:
        lines = []
    return lines[-1] if lines else "no output"
