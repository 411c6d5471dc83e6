"""AGENT@VERSION specs, the npm registry, installs and where they live, and the CLI cache."""
