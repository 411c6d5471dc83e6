"""Recipes: YAML files in recipes/, validated by pydantic. A recipe is data: the question,
the agents, the hooks (canonical event -> behaviour), the turn script, the budget, the
classifier and the control recipe."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .agents import AGENTS, CANONICAL_EVENTS
from .errors import InputError

TOOL_KINDS = ("shell", "create_file", "edit_file", "view_file", "subagent")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Behavior(Strict):
    """What the instrumented hook does (see probes/runner/hook.py)."""

    read_stdin: bool = True
    grandchild: Literal["session", "group", "stdout"] | None = None
    ignore_sigterm: bool = False
    seconds: float | None = None
    hang: bool = False
    signal: Literal["SIGKILL", "SIGSEGV", "SIGABRT", "SIGTERM"] | None = None
    stdout: str | dict | None = None
    stderr: str | None = None
    exit_code: int = 0


class Hook(Strict):
    event: str
    behavior: Behavior = Behavior()
    timeout_s: float | None = None
    matcher: str | None = None
    casing: Literal["native", "pascal"] = "native"  # Copilot: camelCase or PascalCase key

    @model_validator(mode="after")
    def _known_event(self):
        if self.event not in CANONICAL_EVENTS:
            raise ValueError(f"unknown canonical event {self.event!r}; known: {', '.join(CANONICAL_EVENTS)}")
        return self


class Step(Strict):
    """One scripted model turn: a tool call by canonical kind, or a final text."""

    tool: str | None = None
    text: str | None = None
    command: str | None = None  # shell; default writes the step's marker file
    path: str | None = None
    content: str | None = None
    prompt: str | None = None  # subagent

    @model_validator(mode="after")
    def _one_kind(self):
        if (self.tool is None) == (self.text is None):
            raise ValueError("a turn has exactly one of `tool` or `text`")
        if self.tool is not None and self.tool not in TOOL_KINDS:
            raise ValueError(f"unknown tool kind {self.tool!r}; known: {', '.join(TOOL_KINDS)}")
        return self


class Recipe(Strict):
    name: str
    question: str
    agents: list[str]
    classifier: str
    control: str | None = None  # the recipe that must come out differently
    control_of: str | None = None  # set on control recipes
    prompt: str = "Run the probe step."
    hooks: list[Hook]
    turns: list[Step] = Field(default_factory=lambda: [Step(tool="shell"), Step(text="done")])
    budget_s: float = 20.0
    env: dict[str, str] = Field(default_factory=dict)  # extra CLI environment

    @model_validator(mode="after")
    def _check(self):
        unknown = [a for a in self.agents if a not in AGENTS]
        if unknown:
            raise ValueError(f"unknown agents {unknown}; known: {', '.join(AGENTS)}")
        if (self.control is None) == (self.control_of is None):
            raise ValueError("a recipe names its `control`, or is a control and names `control_of`")
        from .classify import CLASSIFIERS
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"unknown classifier {self.classifier!r}; known: {', '.join(CLASSIFIERS)}")
        return self

    def canonical_events(self) -> list[str]:
        return sorted({h.event for h in self.hooks})


def recipes_dir() -> Path:
    return Path(os.environ.get("PROBE_RECIPES") or Path(__file__).parent / "recipes")


def load_file(path: Path) -> Recipe:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise InputError(f"invalid recipe {where}: {getattr(e, 'problem', e)}") from None
    if not isinstance(data, dict):
        raise InputError(f"invalid recipe {path}: expected a mapping at the top")
    try:
        recipe = Recipe(**data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "recipe"
        line = yaml_line(path, err["loc"])
        where = f"{path}:{line}" if line else str(path)
        raise InputError(f"invalid recipe {where}: {loc}: {err['msg']}") from None
    if recipe.name != path.stem:
        raise InputError(f"invalid recipe {path}: name {recipe.name!r} must match the file name")
    return recipe


def yaml_line(path: Path, loc: tuple) -> int | None:
    """The 1-based line of the YAML node at `loc` (as deep as it exists), for error messages."""
    node = yaml.compose(path.read_text(encoding="utf-8"))
    line = None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        if node is None:
            break
        line = node.start_mark.line + 1
    return line


def load_all() -> dict[str, Recipe]:
    recipes = {p.stem: load_file(p) for p in sorted(recipes_dir().glob("*.yaml"))}
    for r in recipes.values():
        for other in (r.control, r.control_of):
            if other and other not in recipes:
                raise InputError(f"invalid recipe {recipes_dir() / (r.name + '.yaml')}: names {other!r}, which does not exist")
    return recipes


NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def get(name: str) -> Recipe:
    if not NAME_RE.match(name):
        raise InputError(f"unknown recipe {name!r}: recipe names are lower-case words joined by '-'; see `probe list`")
    path = recipes_dir() / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in recipes_dir().glob("*.yaml")))
        raise InputError(f"unknown recipe {name!r}: see `probe list` ({known})")
    return load_file(path)
