"""Scenarios for `probe check`: what the scripted model makes the CLI do while a user's own
hooks are installed. Built-in ones exercise what hooks usually guard; a user's own is a YAML
file in the recipes' `turns` syntax. A scenario is data: the prompt, the turns, the files it
puts in the workspace first, and the canonical events it exercises (a hook on one of them is
expected to fire)."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from probes.agents import CANONICAL_EVENTS
from probes.catalog.parts import Step, Strict
from probes.errors import InputError
from probes.limits import RECIPE_MAX_BYTES, BadFile, compose_yaml, decode, inside, nul_at, read_bounded, yaml_line
from probes.pipeline.rundirs import DISK_MB

SESSION = ["session_start", "prompt_submit", "stop", "session_end"]  # every -p session
TOOL = ["pre_tool", "post_tool"]
VICTIM = "probe-victim.txt"  # shell-destructive removes it: a deny hook keeps it


class Scenario(Strict):
    name: str
    description: str = ""
    prompt: str = "Run the probe step."
    files: dict[str, str] = Field(default_factory=dict)  # written into the workspace before the session
    turns: list[Step]
    subagent_turns: list[Step] = Field(
        default_factory=lambda: [Step(tool="shell", command="echo ran > probe-subagent.txt"), Step(text="subagent done")]
    )
    events: list[str] = Field(default_factory=list)  # the canonical events it exercises
    budget_s: float = Field(default=40.0, gt=0, le=300)
    disk_mb: int = Field(default=DISK_MB, ge=16, le=4096)  # each directory the session writes is capped at this

    @field_validator("files")
    @classmethod
    def _files_inside(cls, v: dict[str, str]) -> dict[str, str]:
        for path in v:
            inside(path, "file", "the workspace")
        return v

    @model_validator(mode="after")
    def _known_events(self) -> Scenario:
        unknown = sorted(set(self.events) - set(CANONICAL_EVENTS))
        if unknown:
            raise ValueError(f"unknown canonical events {unknown}; known: {', '.join(CANONICAL_EVENTS)}")
        return self


def _builtin(name: str, description: str, turns: list[Step], events: list[str], **kw: object) -> Scenario:
    return Scenario.model_validate(
        {"name": name, "description": description, "turns": [*turns, Step(text="done")], "events": events, **kw}
    )


BUILTIN: dict[str, Scenario] = {
    s.name: s
    for s in (
        _builtin("shell", "a harmless shell command (writes a marker file)", [Step(tool="shell")], SESSION + TOOL),
        _builtin(
            "shell-destructive",
            f"`rm {VICTIM}`, a file the scenario creates: a deny hook keeps it",
            [Step(tool="shell", command=f"rm {VICTIM}")],
            SESSION + TOOL,
            files={VICTIM: "the scenario's file; a policy hook should keep it\n"},
        ),
        _builtin(
            "write-file",
            "the model creates a file",
            [Step(tool="create_file", path="probe-written.txt", content="written by the probe\n")],
            SESSION + TOOL,
        ),
        _builtin(
            "edit-file",
            "the model edits a file the scenario creates",
            [Step(tool="edit_file", path="probe-edit.txt")],
            SESSION + TOOL,
            files={"probe-edit.txt": "probe workspace\n"},
        ),
        _builtin(
            "read-file",
            "the model reads a file the scenario creates",
            [Step(tool="view_file", path="probe-notes.txt")],
            SESSION + TOOL,
            files={"probe-notes.txt": "PROBE-READ-TOKEN notes the model may read\n"},
        ),
        _builtin("prompt", "a prompt and an answer, no tool (prompt and session hooks)", [], SESSION),
        _builtin(
            "subagent",
            "a subagent that runs a shell command",
            [Step(tool="subagent", prompt="run the probe step")],
            SESSION + TOOL + ["subagent_start", "subagent_stop"],
        ),
    )
}


def load(name_or_file: str) -> Scenario:
    """A built-in scenario by name, or a user's YAML file; bad input is one line naming it."""
    if name_or_file in BUILTIN:
        return BUILTIN[name_or_file]
    path = Path(name_or_file)
    if not path.is_file():
        raise InputError(f"unknown scenario {name_or_file!r}: a file, or one of {', '.join(BUILTIN)}")
    try:
        data, node = compose_yaml(decode(read_bounded(path, RECIPE_MAX_BYTES)))  # as recipes: no anchors, bounded depth
    except BadFile as e:
        raise InputError(f"invalid scenario {path}: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise InputError(f"invalid scenario {where}: {getattr(e, 'problem', None) or e}") from None
    except (ValueError, RecursionError) as e:  # e.g. an integer too long to convert
        raise InputError(f"invalid scenario {path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    if not isinstance(data, dict):
        raise InputError(f"invalid scenario {path}: expected a mapping at the top")
    nul = nul_at(data)
    if nul is not None:
        line = yaml_line(node, nul)
        where = f"{path}:{line}" if line else str(path)
        raise InputError(f"invalid scenario {where}: {'.'.join(map(str, nul)) or 'scenario'}: contains a NUL character")
    data.setdefault("name", path.stem)
    if "events" not in data and isinstance(data.get("turns"), list):  # what its turns exercise
        kinds = {t["tool"] for t in data["turns"] if isinstance(t, dict) and isinstance(t.get("tool"), str)}
        data["events"] = SESSION + (TOOL if kinds else []) + (["subagent_start", "subagent_stop"] if "subagent" in kinds else [])
    try:
        return Scenario.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "scenario"
        line = yaml_line(node, err["loc"])
        raise InputError(f"invalid scenario {path}{f':{line}' if line else ''}: {loc}: {err['msg']}") from None
