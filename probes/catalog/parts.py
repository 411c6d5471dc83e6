"""The parts a recipe is made of (recipes.py): hooks and what each does, the model's scripted
turns, what a person does in an interactive session, and claims with what a run needs to
decide them. A value may differ per agent ({AGENT: value}); `pick` reads it for one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from probes.agents import AGENTS, CANONICAL_EVENTS
from probes.limits import inside

# mcp: the probe MCP server's probe_tool; task_create, task_update: Claude Code's task list
# (TaskCreate, TaskUpdate); enter_worktree, exit_worktree: its session's worktree
TOOL_KINDS = (
    *("shell", "create_file", "edit_file", "view_file", "subagent", "mcp"),
    *("task_create", "task_update", "enter_worktree", "exit_worktree"),
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Behavior(Strict):
    """What the instrumented hook does (see probes/runner/hooklib.py)."""

    read_stdin: bool = True
    grandchild: Literal["session", "group", "stdout"] | None = None
    ignore_sigterm: bool = False
    seconds: float | None = None
    hang: bool = False
    signal: Literal["SIGKILL", "SIGSEGV", "SIGABRT", "SIGTERM"] | None = None
    stdout: str | dict[Any, Any] | None = None
    stdout_pad: int = Field(default=0, ge=0, le=16 * 2**20)  # spaces printed after stdout: a very large output (bounded)
    stderr: str | None = None
    exit_code: int = 0
    throw: bool = False  # extension only: the handler rejects with an Error
    exit_process: bool = False  # extension only: process.exit(exit_code) inside the handler


HANDLER_TYPES = ("command", "prompt", "agent", "http", "mcp_tool")


class Handler(Strict):
    """How the CLI runs the hook (Claude Code's handler types and fields). `command` runs the
    instrumented hook; `prompt` asks the model, whose answer the recipe's `answer` scripts.
    The fields are written into the CLI's config as given (`if` and `async` as spelled there)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    type: Literal["command", "prompt", "agent", "http", "mcp_tool"] = "command"
    prompt: str | None = None  # prompt, agent: what the CLI asks ($ARGUMENTS: the event's JSON)
    model: str | None = None  # prompt, agent: the model the CLI is to ask
    if_: str | None = Field(default=None, alias="if")  # permission-rule syntax, e.g. Bash(git commit:*)
    async_: bool | None = Field(default=None, alias="async")
    asyncRewake: bool | None = None
    shell: Literal["bash", "powershell"] | None = None
    statusMessage: str | None = None
    onFailure: str | None = None  # continue (the default) or block
    headers: dict[str, str] | None = None  # http: sent with each delivery ($VAR from allowedEnvVars)
    allowedEnvVars: list[str] | None = None  # http: the variables its headers may name
    url: str | None = None  # http: where to deliver (default: the run's own receiver for this hook)
    tool: str | None = None  # mcp_tool: the probe MCP server's tool to call (default: record)
    input: dict[str, Any] | None = None  # mcp_tool: its arguments (${path} from the hook input), beside probe_key

    def fields(self) -> dict[str, Any]:
        """The entry's keys beside type, command, prompt, url and timeout, as the CLI's config spells them."""
        return self.model_dump(by_alias=True, exclude_none=True, exclude={"type", "prompt", "url"})


class Verdict(Strict):
    """What the run answers a hook that is not a process: a `prompt` hook's evaluation gets
    {"ok", "reason"} as JSON or text that is not JSON (`malformed`); an `http` hook's delivery
    gets `status` and `body`; either after `seconds`, or never (`hang`)."""

    ok: bool = True
    reason: str | None = None
    impossible: bool | None = None  # a Stop hook's "can never be satisfied"
    malformed: bool = False
    status: int = Field(default=200, ge=100, le=599)  # http
    body: str | dict[str, Any] | None = None  # http: the response body (a dict: as JSON)
    seconds: float | None = Field(default=None, ge=0, le=3600)
    hang: bool = False
    tool_turns: list[Step] = []  # agent: the sub-agent's tool calls before its verdict
    turn_seconds: float | None = Field(default=None, ge=0, le=600)  # agent: each tool call sent this late (a sub-agent at work)


COMMAND_ONLY = ("read_stdin", "grandchild", "ignore_sigterm", "signal", "stdout_pad", "stderr")
EXTENSION_ONLY = ("throw", "exit_process")


T = TypeVar("T")


def pick(value: T | Mapping[str, T], agent: str) -> T | None:
    """A recipe value that may differ per agent: {AGENT: value, ...}, or one for all."""
    if isinstance(value, dict) and value and set(value) <= set(AGENTS):
        per_agent: Mapping[str, T] = value
        return per_agent.get(agent)
    return value  # type: ignore[return-value]  # not a per-agent mapping: the value itself


def _agent_keys(value: T, what: str) -> T:
    if isinstance(value, dict) and not set(value) <= set(AGENTS):
        raise ValueError(f"{what} per agent takes keys {', '.join(AGENTS)}, not {', '.join(sorted(set(value) - set(AGENTS)))}")
    return value


class Hook(Strict):
    event: str
    behavior: Behavior | dict[str, Behavior] = Behavior()  # or one per agent
    timeout_s: float | None = None
    matcher: str | dict[str, str] | None = None  # or one per agent
    casing: Literal["native", "pascal"] = "native"  # Copilot: camelCase or PascalCase key
    native: str | dict[str, str] | None = None  # register under exactly this key (e.g. mis-cased)
    raw: dict[Any, Any] | None = None  # register this entry as written, not the instrumented hook
    handler: Handler | dict[str, Handler] = Handler()  # or one per agent: the handler type and its fields
    answer: Verdict | dict[str, Verdict] | None = None  # a prompt hook's scripted verdict, or one per agent
    agents: list[str] | None = None  # only for these agents (default: all the recipe's)

    @model_validator(mode="after")
    def _known_event(self) -> Hook:
        if self.event not in CANONICAL_EVENTS:
            raise ValueError(f"unknown canonical event {self.event!r}; known: {', '.join(CANONICAL_EVENTS)}")
        for name in ("behavior", "matcher", "native", "handler", "answer"):
            _agent_keys(getattr(self, name), name)
        return self


class ApiError(Strict):
    """A model request answered with an HTTP error in the dialect's shape (runner/dialects.py):
    what makes a CLI's turn end on an API error (Claude's StopFailure, Copilot's errorOccurred)."""

    status: int = Field(ge=400, le=599)
    type: str | None = None  # the error's type; default: the one the API names for the status
    message: str = "probe: scripted API error"


class Step(Strict):
    """One scripted model turn: a tool call by canonical kind, a final text, or an API error."""

    tool: str | None = None
    text: str | None = None
    error: ApiError | None = None  # this request (and each retry of it) is answered with the error
    command: str | None = None  # shell; default writes the step's marker file
    path: str | None = None
    content: str | None = None
    prompt: str | None = None  # subagent: what the child is asked (it plays subagent_turns)
    escalate: bool | None = None  # shell: ask to run it outside the sandbox, where the tool can (Codex)
    input: dict[str, Any] | None = None  # arguments as written, over those filled from the tool's schema (null: left out)

    @field_validator("path")
    @classmethod
    def _path_inside(cls, v: str | None) -> str | None:
        return inside(v, "path", "the directory the CLI starts in")

    @model_validator(mode="after")
    def _one_kind(self) -> Step:
        if [self.tool, self.text, self.error].count(None) != 2:
            raise ValueError("a turn has exactly one of `tool`, `text` or `error`")
        if self.tool is not None and self.tool not in TOOL_KINDS:
            raise ValueError(f"unknown tool kind {self.tool!r}; known: {', '.join(TOOL_KINDS)}")
        return self


class Action(Strict):
    """One thing a person does in an interactive session (exactly one key per action)."""

    prompt: str | None = None  # type a prompt, wait for the turn to end
    turns: list[Step] | None = None  # the model's script for this prompt (default: the recipe's)
    answer: Literal["yes", "no"] | None = None  # answer the approval prompt on screen
    command: str | None = None  # a slash command, e.g. /clear
    keys: list[Literal["up", "down", "enter", "esc", "tab"]] | None = None  # pressed in the dialog the command opens
    exit: bool = False  # quit the CLI and wait for it to end
    start: Literal["new", "resume"] | None = None  # start the CLI again (resume: the last session)
    # type nothing for this long, then until any turn the CLI started itself ends (a prompt hook's)
    wait: float | None = Field(default=None, gt=0, le=30)

    @model_validator(mode="after")
    def _one_kind(self) -> Action:
        kinds = [k for k in ("prompt", "answer", "command", "start", "wait") if getattr(self, k) is not None]
        kinds += ["exit"] if self.exit else []
        if len(kinds) != 1:
            raise ValueError("an action has exactly one of prompt, answer, command, exit, start, wait")
        if self.turns is not None and self.prompt is None:
            raise ValueError("`turns` goes with a `prompt`")
        if self.keys is not None and self.command is None:
            raise ValueError("`keys` goes with a `command`")
        return self


Precondition = Literal[
    "trace", "extension-status", "prompt-history", "hooks-untrusted"
]  # what a run may have to set up (see probes/evidence/claims.py)
PRECONDITION_NAMES: tuple[str, ...] = get_args(Precondition)


class Needs(Strict):
    """What a run must have for it to decide a claim; a run without it leaves the claim
    `untested`, with the reason, whatever its outcome."""

    budget_s: float | None = Field(default=None, gt=0)  # the claim is about this long: the run must last so long
    tool_calls: int | None = Field(default=None, ge=1)  # the claim is about a later call: the recipe must script so many
    precondition: Precondition | None = None  # what the run must set up (or record)


class Claim(Strict):
    """What a doc or changelog says this recipe should find."""

    source: str  # e.g. "copilot changelog 1.0.72", "Claude Code hooks docs"
    says: str  # the statement, quoted or closely paraphrased
    agent: str
    since: str | None = None  # the version it names; the claim applies from there on
    until: str | None = None  # last version it applies to
    outcome: str | None = None  # the label that agrees with it
    observation: dict[Any, Any] | None = None  # or observation values that agree with it
    within: dict[str, tuple[float, float]] | None = None  # numeric observations in [low, high] that agree with it
    needs: Needs | None = None  # what a run must have to decide it

    @field_validator("within")
    @classmethod
    def _ranges(cls, v: dict[str, tuple[float, float]] | None) -> dict[str, tuple[float, float]] | None:
        for key, (low, high) in (v or {}).items():
            if low > high:
                raise ValueError(f"{key}: [{low}, {high}] is empty (low above high)")
        return v
