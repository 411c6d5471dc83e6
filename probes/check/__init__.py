"""`probe check`: a user's own hooks through the real CLI, prepared for the one pipeline.

command.py    the input checked, each version checked, the report printed
config.py     the user's hook configs read, each hook as the check installs it
kinds.py      hooks that are no command (prompt, agent, http, mcp_tool): answered in the user's place
plugins.py    plugin files (opencode, Kilo, pi): each behind a recording wrapper, its calls read
workspace.py  the user's folder copied, hooks kept or neutral, the shells watched
session.py    one session through the pipeline, and what it left (steps, records, changes)
verdicts.py   each hook's verdict from its records and the session against the control
version.py    one version: control, with the hooks, hooks alone; its records written
report.py     tables, progress, the Action's summary and workflow commands
model.py      the report's shapes (its JSON)
"""

from probes.check.command import cmd_check, commands_scenario, prepare
from probes.check.config import Configured, scripts_named
from probes.check.report import hook_name, table, versions_table, workflow_commands
from probes.check.session import Session, command_ran, run_session
from probes.check.verdicts import answer_of, matcher_matches, ok, verdict_of
from probes.check.version import save_checked
from probes.check.workspace import NEUTRAL, check_folder, copy_folder, install_hooks

__all__ = [
    "NEUTRAL",
    "Configured",
    "Session",
    "answer_of",
    "check_folder",
    "cmd_check",
    "command_ran",
    "commands_scenario",
    "copy_folder",
    "hook_name",
    "install_hooks",
    "matcher_matches",
    "ok",
    "prepare",
    "run_session",
    "save_checked",
    "scripts_named",
    "table",
    "verdict_of",
    "versions_table",
    "workflow_commands",
]
