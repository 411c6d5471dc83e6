"""`probe schema`: the JSON Schema of the evidence record, and docs/evidence.schema.json, which
holds its output (regenerate it with `probe schema > docs/evidence.schema.json`)."""

from __future__ import annotations

import json

from probes.evidence.model import load_evidence
from tests.helpers import ROOT, probe_cmd

SCHEMA_FILE = ROOT / "docs" / "evidence.schema.json"


def test_the_committed_schema_is_what_probe_schema_prints():
    proc = probe_cmd("schema")
    assert proc.returncode == 0 and proc.stderr == ""
    assert SCHEMA_FILE.read_text() == proc.stdout, "run `probe schema > docs/evidence.schema.json`"


def test_every_committed_record_has_the_keys_the_schema_names():
    schema = json.loads(SCHEMA_FILE.read_text())
    assert schema["$schema"].startswith("https://json-schema.org/") and schema["type"] == "object"
    required, known = set(schema["required"]), set(schema["properties"])
    assert {"agent", "recipe", "outcome", "observations", "invocations"} <= required
    for path in sorted((ROOT / "results").glob("*/*/*.json")):
        keys = set(load_evidence(path))
        assert required <= keys <= known, path
