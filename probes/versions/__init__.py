"""AGENT@VERSION specs, the npm registry, installs and the CLI cache."""
