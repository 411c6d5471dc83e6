"""Many probes: the matrix and its scheduler, the nightly bump, bisect and timeline filling."""
