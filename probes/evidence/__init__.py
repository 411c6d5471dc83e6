"""The evidence record: its models, blob store, loading for the reports, claims, provenance,
schema, merge and reclassification, and the check that a record about to be written is readable."""
