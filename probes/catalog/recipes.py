"""Recipes: YAML files in recipes/, validated by pydantic. A recipe is data: the question,
the agents, the hooks (canonical event -> behaviour), the turn script, the budget, the
classifier and the control recipe. Its parts (hooks, steps, actions, claims) are parts.py;
a recipe as one agent runs it is a ResolvedRecipe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from probes.agents import AGENTS, CANONICAL_EVENTS, NATIVE, Agent, config_locations
from probes.catalog.names import NAME_MAX, NAME_RE, recipe_files, recipes_dir
from probes.catalog.parts import COMMAND_ONLY, EXTENSION_ONLY, Action, Behavior, Claim, Handler, Hook, Step, Strict, Verdict, pick
from probes.catalog.setup import key as setup_key
from probes.catalog.setup import resolve as setup_resolve
from probes.catalog.setup import stem as setup_stem
from probes.classify import CLASSIFIERS
from probes.errors import InputError
from probes.limits import RECIPE_MAX_BYTES, BadFile, check_env, compose_yaml, decode, inside, nul_at, read_bounded, yaml_line
from probes.pipeline.rundirs import DISK_MB

Env = dict[str, str | None]  # CLI environment changes: None unsets


class Recipe(Strict):
    name: str
    question: str
    agents: list[str]
    classifier: str
    control: str | dict[str, str] | None = None  # the recipe that must come out differently
    # (one per agent where the agents' answers match different references)
    control_of: str | None = None  # set on pure control recipes
    subject: str | None = None  # the canonical event under test (default: the first hook's)
    prompt: str = "Run the probe step."
    hooks: list[Hook]
    turns: list[Step] = Field(default_factory=lambda: [Step(tool="shell"), Step(text="done")])
    subagent_turns: list[Step] = Field(
        default_factory=lambda: [Step(tool="shell", command="echo ran > probe-subagent.txt"), Step(text="subagent done")]
    )
    budget_s: float = Field(default=20.0, gt=0, le=900)  # the session is cut here; the longest shipped is 660 (slow)
    disk_mb: int = Field(default=DISK_MB, ge=16, le=4096)  # each directory the session writes is capped at this
    env: Env | dict[str, Env] = Field(default_factory=dict)  # CLI env changes (None unsets), or one per agent
    cwd: str | None = None  # a subdirectory of the workspace the CLI starts in
    files: dict[str, str] = Field(default_factory=dict)  # written into the workspace (committed) before the session
    args: list[str] = Field(default_factory=list, max_length=8)  # more CLI arguments, after the agent's own (print session)
    # print session: SIGINT to the CLI this long after the model's first tool call (a person's Ctrl-C)
    interrupt_s: float | None = Field(default=None, gt=0, le=30)
    # Its default setup (catalog/setup.py): keys the recipe leaves out take each agent's default.
    # config_location, permissive and mode are its older spellings of config, permissions, session.
    setup: dict[str, str] = Field(default_factory=dict)
    # The other setups it is committed under, each over `setup` (`agents`: only those).
    setups: list[dict[str, str | list[str]]] = Field(default_factory=list)
    config_location: str = NATIVE  # where the hooks are written: one of the agents' config_locations
    permissive: bool = True  # tools pre-approved (Copilot --allow-all-tools; Claude --allowedTools)
    watch_files: list[str] = Field(default_factory=list)  # more side effects to time
    claims: list[Claim] = Field(default_factory=list)
    slow: bool = False  # waits out a long default: left out of the repeated-run tests
    core: bool = (
        False  # a core question (hang, crash, exit codes, deny, payload, context, stop loop): CI runs it on every pinned version
    )
    surface: Literal["command", "extension"] = "command"  # command hooks, or an SDK extension's handlers
    compare_with: str | None = None  # the recipe asking the same question on the other surface
    mode: Literal["prompt", "interactive"] = "prompt"  # -p, or a terminal session a person drives
    session: list[Action] = Field(default_factory=list)  # interactive: what the person does

    @field_validator("cwd")
    @classmethod
    def _cwd_inside(cls, v: str | None) -> str | None:
        return inside(v, "cwd", "the workspace")

    @field_validator("watch_files", "files")
    @classmethod
    def _paths_inside(cls, v: list[str] | dict[str, str], info: ValidationInfo) -> list[str] | dict[str, str]:
        for path in v:
            inside(path, "watched file" if info.field_name == "watch_files" else "file", "the workspace")
        return v

    @field_validator("env")
    @classmethod
    def _env(cls, v: Env | dict[str, Env]) -> Env | dict[str, Env]:
        check_env(v)
        return v

    @model_validator(mode="after")
    def _check(self) -> Recipe:
        unknown = [a for a in self.agents if a not in AGENTS]
        if unknown:
            raise ValueError(f"unknown agents {unknown}; known: {', '.join(AGENTS)}")
        if self.config_location not in config_locations():
            raise ValueError(f"config_location {self.config_location!r}; known: {', '.join(sorted(config_locations()))}")
        for agent in self.agents:
            if self.config_location not in AGENTS[agent].config_locations:
                raise ValueError(f"config_location {self.config_location!r} is not read by {agent}")
            if self.surface == "extension" and AGENTS[agent].extension is None:
                raise ValueError(f"{agent} has no extension surface")
        if (self.control is None) == (self.control_of is None):
            raise ValueError("a recipe names its `control`, or is a control and names `control_of`")
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"unknown classifier {self.classifier!r}; known: {', '.join(CLASSIFIERS)}")
        if self.subject is not None and self.subject not in CANONICAL_EVENTS:
            raise ValueError(f"unknown subject event {self.subject!r}")
        for c in self.claims:
            if c.agent not in self.agents:
                raise ValueError(f"claim for {c.agent!r}, which the recipe does not apply to")
        if self.session and self.default_setup().get("session") != "interactive":
            raise ValueError("`session` is for `mode: interactive`")
        for agent in self.agents:
            setup_of(AGENTS[agent], self.default_setup(), where="setup")
            for n, other in enumerate(self.setups):
                if agent in (self.setup_agents(other) or self.agents):
                    setup_of(AGENTS[agent], self.default_setup(), self.setup_values(other), where=f"setups.{n}")
        wrong = COMMAND_ONLY if self.surface == "extension" else EXTENSION_ONLY
        for hook in self.hooks:
            for b in hook.behavior.values() if isinstance(hook.behavior, dict) else [hook.behavior]:
                used = sorted(set(wrong) & b.model_fields_set)
                if used:
                    raise ValueError(f"{', '.join(used)}: not for {self.surface} hooks")
            for agent in hook.agents or self.agents:
                handler_valid(hook, agent)
        return self

    def default_setup(self) -> dict[str, str]:
        """`setup`, with the older spellings folded in (giving both is an error)."""
        legacy = {
            "config": self.config_location if "config_location" in self.model_fields_set else None,
            "permissions": None if self.permissive else "none",
            "session": "interactive" if self.mode == "interactive" else None,
        }
        out = dict(self.setup)
        for k, v in legacy.items():
            if v is not None:
                if k in out and out[k] != v:
                    raise ValueError(f"setup.{k} and its older spelling disagree ({out[k]}, {v})")
                out[k] = v
        return out

    @staticmethod
    def setup_agents(other: Mapping[str, str | list[str]]) -> list[str] | None:
        agents = other.get("agents")
        return [agents] if isinstance(agents, str) else agents

    @staticmethod
    def setup_values(other: Mapping[str, str | list[str]]) -> dict[str, str]:
        return {k: v for k, v in other.items() if k != "agents" and isinstance(v, str)}

    def declared_setups(self, agent: str) -> list[dict[str, str]]:
        """The setups (over the default) this recipe is committed under on `agent`."""
        return [self.setup_values(o) for o in self.setups if agent in (self.setup_agents(o) or self.agents)]

    def control_for(self, agent: str) -> str | None:
        return pick(self.control, agent) if self.control is not None else None

    def canonical_events(self) -> list[str]:
        return sorted({h.event for h in self.hooks})

    def hook_types(self) -> list[str]:
        """The handler types its hooks have, on any agent (command: the instrumented hook)."""
        return sorted(
            {h.type for hook in self.hooks for h in (hook.handler.values() if isinstance(hook.handler, dict) else [hook.handler])}
        )

    def actions(self) -> list[Action]:
        """What the person does: the recipe's session, or its prompt and then exit."""
        return self.session or [Action(prompt=self.prompt), Action(exit=True)]

    def subject_event(self) -> str | None:
        return self.subject or (self.hooks[0].event if self.hooks else None)

    def env_for(self, agent: str) -> Env:
        """The CLI's environment changes for `agent` (as `pick` reads the per-agent form)."""
        if self.env and set(self.env) <= set(AGENTS):
            per_agent = self.env.get(agent)
            return dict(per_agent) if isinstance(per_agent, dict) else {}
        return {k: v for k, v in self.env.items() if not isinstance(v, dict)}

    def for_agent(self, agent: str, override: Mapping[str, str] | None = None) -> ResolvedRecipe:
        """This recipe as one agent runs it: every per-agent value picked, its hooks only, in its
        default setup or that with `override` over it (checked: InputError)."""
        base = setup_resolve(AGENTS[agent], self.default_setup())
        setup = setup_resolve(AGENTS[agent], base, override or {})
        hooks = tuple(
            ResolvedHook(
                index=n,
                event=hook.event,
                behavior=pick(hook.behavior, agent) or Behavior(),
                timeout_s=hook.timeout_s,
                matcher=pick(hook.matcher, agent),
                casing=hook.casing,
                native=pick(hook.native, agent),
                raw=pick(hook.raw, agent),
                handler=pick(hook.handler, agent) or Handler(),
                answer=pick(hook.answer, agent),
            )
            for n, hook in enumerate(self.hooks)
            if hook.agents is None or agent in hook.agents
        )
        return ResolvedRecipe(
            agent=agent,
            name=self.name,
            question=self.question,
            classifier=self.classifier,
            control=self.control_for(agent),
            control_of=self.control_of,
            subject=self.subject_event(),
            prompt=self.prompt,
            hooks=hooks,
            turns=tuple(self.turns),
            subagent_turns=tuple(self.subagent_turns),
            budget_s=self.budget_s,
            disk_mb=self.disk_mb,
            env=self.env_for(agent),
            cwd=self.cwd,
            files=dict(self.files),
            args=tuple(self.args),
            interrupt_s=self.interrupt_s,
            config_location=setup["config"],
            permissions=setup["permissions"],
            watch_files=tuple(self.watch_files),
            claims=tuple(self.claims),
            surface=self.surface,
            mode="interactive" if setup["session"] == "interactive" else "prompt",
            actions=tuple(self.actions()),
            setup=setup,
            setup_key=setup_key(setup, base),
        )


@dataclass(frozen=True)
class ResolvedHook:
    """One hook of a recipe as one agent gets it: no per-agent values left."""

    index: int  # its place in the recipe's hooks (names its registration)
    event: str  # canonical
    behavior: Behavior
    timeout_s: float | None
    matcher: str | None
    casing: str
    native: str | None  # register under exactly this key
    raw: dict[Any, Any] | None  # an entry written as given
    handler: Handler = Handler()  # how the CLI runs it: the instrumented command, or a prompt ...
    answer: Verdict | None = None  # a prompt hook's scripted verdict

    @property
    def key(self) -> str:
        """The registration's name, in the hook's sidecar and its records."""
        return f"{self.index}-{self.event}"


@dataclass(frozen=True)
class ResolvedRecipe:
    """A recipe resolved for one agent (Recipe.for_agent): what planning, collection and
    classification read. No value in it differs per agent any more."""

    agent: str
    name: str
    question: str
    classifier: str
    control: str | None
    control_of: str | None
    subject: str | None  # the canonical event under test
    prompt: str
    hooks: tuple[ResolvedHook, ...]  # those that apply to the agent
    turns: tuple[Step, ...]
    subagent_turns: tuple[Step, ...]
    budget_s: float
    env: Mapping[str, str | None]  # CLI environment changes (None unsets)
    cwd: str | None
    config_location: str  # = setup["config"]
    permissions: str  # = setup["permissions"]
    watch_files: tuple[str, ...]
    claims: tuple[Claim, ...]
    surface: str
    mode: str  # prompt or interactive: setup["session"] as records name it
    actions: tuple[Action, ...]  # interactive: what the person does
    disk_mb: int = DISK_MB  # each directory the session writes is capped at this (rundirs.py)
    setup: Mapping[str, str] = field(default_factory=dict)  # every dimension (catalog/setup.py)
    setup_key: str = ""  # what differs from the recipe's default setup ("" when nothing)
    files: Mapping[str, str] = field(default_factory=dict)  # written into the workspace first
    args: tuple[str, ...] = ()  # more CLI arguments (a print session)
    interrupt_s: float | None = None  # SIGINT this long after the model's first tool call (a print session)

    @property
    def stem(self) -> str:
        """Its record's file name without .json: the recipe, and its setup when not the default."""
        return setup_stem(self.name, self.setup_key)


def handler_valid(hook: Hook, agent: str) -> None:
    """A hook's handler as `agent` gets it: a type it offers (and the harness instruments),
    fields its config has, an answer only for a handler the model answers, a behaviour only
    for the instrumented command."""
    handler, answer = pick(hook.handler, agent) or Handler(), pick(hook.answer, agent)
    behavior = pick(hook.behavior, agent) or Behavior()
    a = AGENTS[agent]
    if handler.type not in a.handler_types:
        raise ValueError(f"{agent} has no {handler.type} hooks here; known: {', '.join(sorted(a.handler_types))}")
    extra = sorted(set(handler.fields()) - a.handler_fields)
    if extra:
        raise ValueError(
            f"handler fields {', '.join(extra)} are not in {agent}'s config "
            f"(known: {', '.join(sorted(a.handler_fields)) or 'none'})"
        )
    if handler.type == "command" and answer is not None:
        raise ValueError("`answer` is for a hook the run answers (prompt, http); a command's is its `behavior`")
    if handler.type != "command" and (behavior.model_fields_set or hook.raw is not None):
        raise ValueError(f"`behavior` and `raw` are for command hooks, not {handler.type}")
    if handler.type in ("prompt", "agent") and not handler.prompt:
        raise ValueError(
            f"a{'n' if handler.type == 'agent' else ''} {handler.type} hook needs its `prompt` (what the CLI asks the model)"
        )
    http_only = {"headers", "allowedEnvVars", "url"} & handler.model_fields_set
    if handler.type != "http" and http_only:
        raise ValueError(f"{', '.join(sorted(http_only))}: for http hooks")


def setup_of(agent: Agent, *layers: Mapping[str, str], where: str) -> None:
    """A recipe's setup checked for `agent` (ValueError, as a recipe's validator raises)."""
    try:
        setup_resolve(agent, *layers)
    except InputError as e:
        raise ValueError(f"{where}: {e}") from None


def load_file(path: Path) -> Recipe:
    try:
        text = decode(read_bounded(path, RECIPE_MAX_BYTES))
    except BadFile as e:
        raise InputError(f"invalid recipe {path}: {e}") from None
    try:
        data, node = compose_yaml(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise InputError(f"invalid recipe {where}: {getattr(e, 'problem', None) or e}") from None
    except (ValueError, RecursionError) as e:  # e.g. an integer too long to convert
        raise InputError(f"invalid recipe {path}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    if not isinstance(data, dict):
        raise InputError(f"invalid recipe {path}: expected a mapping at the top")
    nul = nul_at(data)
    if nul is not None:
        line = yaml_line(node, nul)
        raise InputError(
            f"invalid recipe {path}{f':{line}' if line else ''}: {'.'.join(map(str, nul)) or 'recipe'}: contains a NUL character"
        )
    try:
        recipe = Recipe(**data)
    except ValidationError as e:
        err = e.errors()[0]
        # drop union branch names (Behavior, dict[str,Behavior]) from the field path
        parts = [p for p in err["loc"] if not (isinstance(p, str) and (p[:1].isupper() or "[" in p))]
        loc = ".".join(str(p) for p in parts) or "recipe"
        line = yaml_line(node, parts)
        where = f"{path}:{line}" if line else str(path)
        raise InputError(f"invalid recipe {where}: {loc}: {err['msg']}") from None
    except TypeError as e:  # keys that are not strings (`1: x` at the top)
        raise InputError(f"invalid recipe {path}: {e}") from None
    if recipe.name != path.stem:
        raise InputError(f"invalid recipe {path}: name {recipe.name!r} must match the file name")
    return recipe


def load_all() -> dict[str, Recipe]:
    recipes = {p.stem: load_file(p) for p in recipe_files()}
    for r in recipes.values():
        where = f"invalid recipe {recipes_dir() / (r.name + '.yaml')}"
        for agent in r.agents:
            other = r.control_for(agent) or r.control_of
            if other not in recipes:
                raise InputError(f"{where}: names {other!r} for {agent}, which does not exist")
            c = recipes[other]
            if r.control and (c.classifier != r.classifier or agent not in c.agents):
                raise InputError(f"{where}: its control {c.name!r} must use classifier {r.classifier!r} and apply to {agent}")
        if r.compare_with and r.compare_with not in recipes:
            raise InputError(f"{where}: compare_with names {r.compare_with!r}, which does not exist")
    return recipes


def core_names(recipes: Mapping[str, Recipe]) -> set[str]:
    """The core recipes and every control they name: what CI runs on each pinned version."""
    core = {n for n, r in recipes.items() if r.core}
    return core | {c for n in core for a in recipes[n].agents if (c := recipes[n].control_for(a))}


def get(name: str) -> Recipe:
    if not NAME_RE.fullmatch(name):
        raise InputError(
            f"unknown recipe {name[:100]!r}: recipe names are lower-case words joined by '-' "
            f"(at most {NAME_MAX} characters); see `probe list`"
        )
    path = recipes_dir() / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(p.stem for p in recipe_files())
        raise InputError(f"unknown recipe {name!r}: see `probe list` ({known})")
    return load_file(path)
