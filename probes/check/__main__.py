"""The GitHub Action's entry point: `python -m probes.check [--annotations] REPORT.json`."""

from probes.check.report import action_main

action_main()
