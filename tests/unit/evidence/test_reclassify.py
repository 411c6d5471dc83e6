"""`probe reclassify`: committed evidence labelled again; a record whose label is out of date
is rewritten and named, the rest left byte for byte."""

from __future__ import annotations

import json
import shutil

from probes.catalog.recipes import load_all
from probes.evidence.reclassify import Relabelled, reclassify
from tests.helpers import ROOT, probe_cmd

RESULTS = ROOT / "results"


def test_an_out_of_date_record_is_relabelled_and_the_rest_left_alone(tmp_path):
    for version in ("1.0.80", "1.0.92", "_blobs"):  # _blobs: the shared parts the records name
        shutil.copytree(RESULTS / "copilot" / version, tmp_path / "copilot" / version)
    stale = tmp_path / "copilot" / "1.0.92" / "hang-pretool.json"
    record = json.loads(stale.read_text())
    stale.write_text(json.dumps({**record, "outcome": "stale", "observations": {}}))
    before = {p: p.read_bytes() for p in tmp_path.glob("*/*/*.json") if p != stale}
    assert list(reclassify(tmp_path, load_all())) == [Relabelled(stale, "stale", record["outcome"], what="observations")]
    assert json.loads(stale.read_text())["observations"] == record["observations"]
    assert before == {p: p.read_bytes() for p in tmp_path.glob("*/*/*.json") if p != stale}
    proc = probe_cmd("reclassify", results=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "0 record(s) changed\n"
