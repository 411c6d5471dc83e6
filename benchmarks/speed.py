"""What probing costs on this machine: one entry for the benchmarks beside it.

    python benchmarks/speed.py [AGENT@VERSION ...] [--runs N] [--recipe R]
    python benchmarks/speed.py --catalog AGENT@VERSION [--jobs N] [--without RECIPE ...]

Without --catalog: benchmarks/overhead.py (a probe against a bare session of the same CLI
binary, and the harness's phases). With --catalog: benchmarks/catalog.py (the whole catalog
of one version through the matrix, against its longest cell). benchmarks/install.py measures
installs.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    argv = sys.argv[1:]
    if "--catalog" in argv:
        import catalog

        argv.remove("--catalog")
        catalog.main(argv)
    else:
        import overhead

        overhead.main(argv)


if __name__ == "__main__":
    main()
