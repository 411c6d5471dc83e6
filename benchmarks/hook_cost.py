"""What one instrumented hook invocation costs over a no-op hook.

    .venv/bin/python benchmarks/hook_cost.py [--runs N] [--python PATH] [--before REV]

Interleaved, N times each (default 200), started the way a CLI starts a hook (a process with
a hook payload on its stdin, its output read): `true`; the interpreter alone (`python -S -E -s
-c pass`, the floor of any Python hook); and the instrumented hook (probes/runner/hook.py, the
command line probes/pipeline/plan.py writes, a default registration: it reads the payload and
writes its record three times); with `--before REV`, also hook.py as it was at that commit.
Prints the medians and each hook's cost over `true`."""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from probes.pipeline.spare import copy_runner_files  # noqa: E402  # the checkout's, as a run's files are

PAYLOAD = json.dumps({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})


def once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=PAYLOAD.encode(), stdout=subprocess.PIPE, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--before", metavar="REV", help="also time hook.py as it was at this commit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir, records = Path(tmp, "bin"), Path(tmp, "records")
        bin_dir.mkdir()
        records.mkdir()
        copy_runner_files(bin_dir, ("hook.py", "hooklib.py"), ROOT / "probes/runner")  # as a run lays them out
        config = {"records": str(records), "hooks": {"k": {"event": "PreToolUse", "behavior": {}}}}
        (bin_dir / "hook.json").write_text(json.dumps(config))
        commands = {
            "true": [shutil.which("true") or "/bin/true"],
            "python -c pass": [args.python, "-S", "-E", "-s", "-c", "pass"],
            "instrumented hook": [args.python, "-S", "-E", "-s", str(bin_dir / "hook.py"), "k"],
        }
        if args.before:
            before_dir = Path(tmp, "before")
            before_dir.mkdir()
            for name in ("hook.py", "hooklib.py"):  # hooklib.py: from 2026-12-06
                old = subprocess.run(["git", "show", f"{args.before}:probes/runner/{name}"], cwd=ROOT, capture_output=True)
                if old.returncode == 0:
                    (before_dir / name).write_bytes(old.stdout)
            (before_dir / "hook.json").write_text(json.dumps(config))
            commands[f"hook at {args.before}"] = [args.python, "-S", "-E", "-s", str(before_dir / "hook.py"), "k"]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(once(argv))
        recorded = len(list(records.iterdir()))
    medians = {name: statistics.median(ts) * 1000 for name, ts in times.items()}
    for name, ms in medians.items():
        over = f"  ({ms - medians['true']:+.2f} ms over true)" if name != "true" else ""
        print(f"{name:24} {ms:7.2f} ms{over}")
    print(f"{recorded} records written")


if __name__ == "__main__":
    main()
