"""The JSON Schema of the evidence record, exported from its pydantic models (model.py).
docs/evidence.schema.json holds `probe schema`'s output; a test keeps the two equal."""

from __future__ import annotations

import json
from typing import Any

from probes.evidence.model import Evidence

DIALECT = "https://json-schema.org/draft/2020-12/schema"  # the dialect pydantic generates


def evidence_schema() -> dict[str, Any]:
    """The schema of a record as the harness reads it: a field with a default (one added
    after the first records were written) may be absent."""
    return {"$schema": DIALECT, **Evidence.model_json_schema()}


def evidence_schema_text() -> str:
    return json.dumps(evidence_schema(), indent=2, ensure_ascii=False) + "\n"
