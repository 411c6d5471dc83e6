"""The instrumented hook, as every CLI starts it: `python3 -S -E -s hook.py KEY` (plan.hook_command).
Its body is hooklib.py beside it, imported rather than run: Python then reads its bytecode from
__pycache__ (written with the run: spare.copy_runner_files) instead of compiling it at every
call, 2 ms of a hook's 10 over a no-op (benchmarks/hook_cost.py)."""

import sys

from hooklib import main  # type: ignore[import-not-found]  # this file's directory, first on sys.path

sys.exit(main())
