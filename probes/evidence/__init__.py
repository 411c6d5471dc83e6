"""The evidence record: its models, blob store, claims, provenance, schema, merge and reclassification."""
