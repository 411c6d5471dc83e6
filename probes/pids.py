"""Whether a process still exists: what a leftover (a killed probe's container, lock or
partial install) is judged by before it is removed."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while process `pid` exists, another user's included (signal 0 checks, sends nothing)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
