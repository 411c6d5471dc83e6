"""probe: empirical probes of the hook systems of AI coding-agent CLIs."""

import time

__version__ = "0.2.0"

IMPORTED_AT = time.time()  # when this process first imported probe (its start-up is before this)
PARENT_SLACK_S = 2.0  # no interpreter takes this long to import `probes`: longer was a parent's time


def startup_began(imported_at: float, started: float) -> float:
    """When this probe's start-up began: the process's start (`started`, the kernel's, which
    counts the interpreter's start), unless that is more than PARENT_SLACK_S before `probes`
    was imported: then the process was exec'd from another (`bash -c "pip ... && probe run"`
    keeps bash's start time), whose time is not the probe's; the import is the start then."""
    return imported_at if imported_at - started > PARENT_SLACK_S else started
