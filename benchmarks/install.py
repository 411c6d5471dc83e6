"""What installing a CLI version costs: wall time and bytes on disk, on this machine.

    python benchmarks/install.py [AGENT@VERSION ...] [--cache DIR]

Each spec (default: copilot@1.0.89 copilot@1.0.88 claude@2.1.327) is installed twice
through `probes.versions.install.install`, the path `probe run` takes: first into a throwaway cache
(it fills npm's own cache: the "cold" time, whatever npm had before), then into the measured
cache (`--cache`, default a fresh temporary one) from a warm npm cache. The specs go into the
measured cache one after another, so a later version can share files with an earlier one.
Printed per spec: both times, the bytes its files take (apparent, and on disk counting each
inode once), and the bytes no other version links to (what it adds to the cache); then the
whole measured cache on disk (each inode once).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from probes.agents import AGENTS
from probes.versions import install
from probes.versions.spec import parse_spec

DEFAULT_SPECS = ["copilot@1.0.89", "copilot@1.0.88", "claude@2.1.327"]


def files(root: Path) -> Iterator[os.stat_result]:
    for d, _, names in os.walk(root):
        for n in names:
            st = os.lstat(os.path.join(d, n))
            if not os.path.islink(os.path.join(d, n)):
                yield st


def tree_bytes(root: Path) -> tuple[int, int]:
    """(apparent bytes, bytes on disk with each inode counted once)."""
    apparent, seen, disk = 0, set(), 0
    for st in files(root):
        apparent += st.st_size
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            disk += st.st_blocks * 512
    return apparent, disk


def only_here(prefix: Path, cache_dir: Path) -> int:
    """Bytes on disk of the inodes no other version in the cache links to (the content
    store's own link does not count; before the store existed, every link is a version's)."""
    try:
        from probes.versions.cache import scan
    except ImportError:  # the harness before the cache module: no store, no sharing
        return tree_bytes(prefix)[1]
    found = scan(cache_dir)
    return next(found.unique(v) for v in found.versions if v.prefix == prefix)


def timed_install(spec_text: str, cache: Path) -> tuple[float, Path]:
    os.environ["PROBE_CACHE"] = str(cache)
    s = parse_spec(spec_text, AGENTS)
    start = time.monotonic()
    prefix = install.install(AGENTS[s.agent], s.version)
    return time.monotonic() - start, prefix


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("specs", nargs="*", default=DEFAULT_SPECS)
    ap.add_argument("--cache", help="the measured cache (default: a fresh temporary directory)")
    args = ap.parse_args()
    measured = Path(args.cache) if args.cache else Path(tempfile.mkdtemp(prefix="probe-bench-cache-"))
    print(f"measured cache: {measured}")
    print(f"{'spec':22} {'cold s':>7} {'warm s':>7} {'apparent MB':>12} {'disk MB':>8} {'only-here MB':>13}")
    for spec_text in args.specs:
        with tempfile.TemporaryDirectory(prefix="probe-bench-warm-") as warm:
            cold_s, _ = timed_install(spec_text, Path(warm))
            shutil.rmtree(warm, ignore_errors=True)
        warm_s, prefix = timed_install(spec_text, measured)
        apparent, disk = tree_bytes(prefix)
        mine = only_here(prefix, measured)
        print(
            f"{spec_text:22} {cold_s:7.1f} {warm_s:7.1f} {apparent / 1e6:12.1f} {disk / 1e6:8.1f} {mine / 1e6:13.1f}", flush=True
        )
    print(f"{'whole cache (disk)':22} {'':7} {'':7} {'':12} {tree_bytes(measured)[1] / 1e6:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
