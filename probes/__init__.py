"""probe: empirical probes of the hook systems of AI coding-agent CLIs."""

__version__ = "0.2.0"
