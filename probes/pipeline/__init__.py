"""One probe, from spec to evidence: plan, run directories, the run, collection, normalising, redaction."""
