"""The runner's contract: what the harness hands the runner (the plan) and what the runner's
side leaves for the harness (its result, the model log, the hook records), as TypedDicts both
sides import, so mypy checks that they agree. Standard library only: the runner runs with
`python -S` beside a copy of this file.

    plan.json     Plan            written by probes/pipeline/plan.py, read by runner.py (and terminal.py)
    result.json   Result          written by runner.py, read by probes/backends and collect.py
    model.jsonl   ModelLogEntry   one line per request, written by model.py
    records/*     HookRecord      one per hook call, written by hook.py (extension.mjs, shim.py, mcp_server.py)
    mcp.json      McpConfig       the MCP server's sidecar, written by probes/pipeline/plan.py
    hook.json     HookConfig      the hook's sidecar, written by probes/pipeline/plan.py
    shim.json     ShimConfig      the shim's, written by probes/check/workspace.py
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired at run time only from
# evaluated annotations (the tests compare the runner's files with these keys).
from typing import Any, NotRequired, TypedDict

# A prompt hook's text starts with it and its key (PROBE-HOOK-0-stop): the scripted model
# knows which hook asks from the request itself, and never guesses.
HOOK_SENTINEL = "PROBE-HOOK-"
HOOK_PATH = "/hook/"  # an http hook's delivery to the run's receiver: POST /hook/<key>
ANSWERED = ("prompt", "agent", "http", "mcp_tool")  # the handler types the run answers itself (plan.hook_answers)


class HookAnswer(TypedDict, total=False):
    """What the scripted model answers a prompt hook's evaluation (catalog/parts.py Verdict)."""

    ok: bool
    reason: str
    impossible: bool
    malformed: bool  # text that is not JSON
    status: int  # http: the response's status (200 unless told)
    body: Any  # http: the response body (an object: as JSON)
    seconds: float  # answered after this long
    hang: bool  # never answered: the request is held until the run ends
    tool_turns: list["ScriptStep"]  # agent: the sub-agent's tool calls before its verdict
    turn_seconds: float  # agent: each tool call sent this late


# ---------------------------------------------------------------- the plan


class ApiError(TypedDict, total=False):
    """An HTTP error the model answers a request with (catalog/parts.py ApiError)."""

    status: int
    type: str  # absent: the type the API names for the status (dialects.error_type)
    message: str


class ScriptStep(TypedDict, total=False):
    """One scripted model turn: a tool call by canonical kind, a final text, or an API error."""

    tool: str
    text: str
    error: ApiError
    command: str
    path: str
    content: str
    prompt: str
    old: str
    new: str
    escalate: bool  # shell: ask to run outside the sandbox (Codex: sandbox_permissions require_escalated)
    input: dict[str, Any]  # arguments as written, over those filled from the tool's schema


class Markers(TypedDict):
    """Regular expressions on the rendered screen of an interactive session."""

    ready: str
    busy: str
    approval: str
    # A screen that says the session will never get ready (a demand to sign in): the start step
    # fails once it shows and the screen is quiet, not at the ready timeout.
    stuck: NotRequired[str]
    # A screen the CLI draws at start that a person dismisses with Enter, its default choice
    # going on with the session (Claude Code's "Settings Warning" for a hook event it does not
    # know): the start step records it and presses Enter.
    notice: NotRequired[str]


class TtyStep(TypedDict):
    """One thing the terminal driver does: start (argv), prompt, answer (keys), command, exit, wait."""

    do: str
    argv: NotRequired[list[str]]
    text: NotRequired[str]
    keys: NotRequired[str]
    presses: NotRequired[list[str]]  # command: keys pressed, one at a time, in the dialog it opens
    seconds: NotRequired[float]  # wait: how long nothing is typed


class Interactive(TypedDict):
    steps: list[TtyStep]
    markers: Markers
    rows: int
    cols: int
    ready_timeout_s: float


class ShBind(TypedDict):
    source: str  # the chosen shell's binary
    target: str  # the binary /bin/sh resolves to on the host


class Inode(TypedDict):
    dev: int
    ino: int


class JailSpec(TypedDict):
    """What the filesystem jail makes writable, keeps readable and hides (see jail.py)."""

    writable: list[str]
    owned: list[str]
    keep: list[str]
    hide: list[str]
    host_mount_ns: NotRequired[str]  # the backend's, so the runner can tell it has its own
    shells: NotRequired[dict[str, str]]  # probe check: a system shell's real path -> where the real binary is bound
    wrapper: NotRequired[str]  # what is bound over those shells (the check's launcher of shim.py)
    sh: NotRequired[ShBind]  # the setup's shell, bound over the host's /bin/sh binary


class Plan(TypedDict):
    argv: list[str]  # "{port}" in an argument is the scripted model's port, as in env
    env: dict[str, str]  # "{port}" in a value is the scripted model's port
    cwd: str
    budget_s: float  # from the CLI's start: all a CLI that does not reach its model gets
    turn_budget_s: NotRequired[float]  # from its first model request, if that ends later (runner.deadline)
    run_id: str
    script: list[ScriptStep]
    subagent_script: NotRequired[list[ScriptStep]]
    subagent_sentinel: NotRequired[str]  # a conversation opened with it plays subagent_script
    prompt_scripts: NotRequired[dict[str, list[ScriptStep]]]  # interactive: marker -> script
    tool_names: NotRequired[dict[str, list[str]]]  # the agent's: kind -> its tool names, most likely first
    hook_answers: NotRequired[dict[str, HookAnswer]]  # prompt and http hooks: key -> what the run answers
    interrupt_s: NotRequired[float]  # SIGINT to the CLI this long after the model first served a tool call
    port_files: NotRequired[list[str]]  # config files holding "{port}" (an http hook's URL): filled in at start
    interactive: NotRequired[Interactive]
    records: str
    model_log: str
    stdout: str
    stderr: str
    result: str
    jail: NotRequired[JailSpec | None]
    bring_up_loopback: NotRequired[bool]
    capped: NotRequired[dict[str, str]]  # name -> a run directory on its own size-capped filesystem
    disk: NotRequired[str]  # how the run's directories are capped, for the evidence


# ---------------------------------------------------------------- the result


class Jailed(TypedDict):
    """What the run was jailed by (for the evidence)."""

    filesystem: str
    user: str
    hidden: NotRequired[list[str]]
    error: NotRequired[str]  # why the jail could not be made
    sh: NotRequired[Inode]  # the file /bin/sh is inside the jail (a bind keeps its source's inode)


class TtyStepRecord(TypedDict):
    do: str
    text: str | None
    offset_s: float
    took_s: float
    ok: bool
    state: str | None
    screen: str
    dismissed: NotRequired[list[str]]  # start: the notices (markers' notice) it dismissed, as drawn


class TtyRecord(TypedDict):
    steps: list[TtyStepRecord]
    error: str | None
    rows: NotRequired[int]
    cols: NotRequired[int]
    exit_codes: list[int | None]
    timed_out: bool


class Failure(TypedDict):
    """The result of a runner that could not start the session."""

    network_loopback_up: bool | None
    jail: Jailed
    error: str


class Result(TypedDict):
    network_loopback_up: bool | None
    jail: Jailed
    tty: NotRequired[TtyRecord]  # interactive sessions
    exit_code: int | None
    exit_signal: str | None
    timed_out: bool
    interrupted: str | None  # the signal that interrupted the run
    runner_at: NotRequired[float]  # when the runner's main began (after namespaces and interpreter start)
    started_at: float
    cli_ended_at: float
    wall_s: float
    first_model_request_at: NotRequired[float | None]  # the model log's first `t`: the CLI's start-up ended
    deadline_at: NotRequired[float]  # when the budget cut, or would have cut, the session
    port: int
    hook_deaths: dict[str, float]  # pid -> when it was seen gone
    alive_at_cli_exit: list[int]
    harness_killed: list[int]
    disk_full: NotRequired[str]  # the session was ended when it filled a capped directory


# ---------------------------------------------------------------- the model log


class Message(TypedDict):
    role: str
    text: str


class Reply(TypedDict, total=False):
    """The scripted model's answer to one request."""

    text: str
    tool: str  # the tool name picked from those the CLI sent
    kind: str  # the canonical kind asked for
    arguments: dict[str, Any]
    turn: int
    aux: bool  # a request with no tools (titles, summaries): not a turn
    subagent: bool
    missing_tool: str  # no tool of this kind was offered
    error: ApiError  # answered with this HTTP error, not a message
    hook: str  # a prompt hook's evaluation: the key of the hook that asked ("unplaced": none)
    hold_s: float | None  # answered after this long; None: held until the run ends (a hook that hangs)
    status: int  # an http hook's delivery: the status answered


class Delivery(TypedDict):
    """What an http hook's delivery adds to its log entry: the body the CLI posted, its headers."""

    hook_payload: Any
    headers: dict[str, str]


class ModelLogEntry(TypedDict):
    seq: int
    t: float
    method: str
    path: str
    user_agent: str
    model: str | None
    stream: bool
    tools: list[str]
    messages: list[Message]
    reply: Reply | None
    hook_payload: NotRequired[Any]  # an http hook's delivery (Delivery)
    headers: NotRequired[dict[str, str]]


# ---------------------------------------------------------------- hooks


class HookBehavior(TypedDict, total=False):
    """What the instrumented hook (or extension handler) does; see recipes.Behavior."""

    read_stdin: bool
    grandchild: str
    ignore_sigterm: bool
    seconds: float
    hang: bool
    signal: str
    stdout: str | dict[str, Any]
    stdout_pad: int
    stderr: str
    exit_code: int
    throw: bool
    exit_process: bool


class HookEntry(TypedDict):
    event: str  # the native key (or extension handler) it is registered under
    canonical: str
    behavior: HookBehavior


class HookConfig(TypedDict):
    """hook.json beside hook.py: key -> entry."""

    records: str
    hooks: dict[str, HookEntry]


class ExtensionEntry(HookEntry):
    key: str


class ExtensionConfig(TypedDict):
    """The extension's config: handler name -> entry."""

    records: str
    hooks: dict[str, ExtensionEntry]


class ShimEntry(TypedDict):
    """A user's own hook, as shim.py knows it (probe check)."""

    key: str  # names its records
    event: str  # the native key it is configured under


class ShimConfig(TypedDict):
    """shim.json: what the watched shells (shim.py) need."""

    records: str  # where a hook's invocation is recorded
    log: str  # shells.jsonl: every other shell started with -c, and its string
    real: dict[str, str]  # a system shell's real path -> where its real binary is bound
    hooks: dict[str, list[ShimEntry]]  # a configured command, exactly as written -> its hooks
    scripts: NotRequired[dict[str, list[ShimEntry]]]  # a hook file's real path -> its hooks (a shell run with it as its script)


class Signal(TypedDict):
    signal: str
    at: float


class Parent(TypedDict):
    exe: str  # as /proc shows it: a bound binary shows the path it is bound over
    dev: int  # the file it is: which shell, whatever path it was bound over
    ino: int


class HookRecord(TypedDict):
    """One hook call, as hook.py (or extension.mjs) leaves it."""

    key: str
    event: str
    argv: list[str]
    cwd: str
    env: dict[str, str]
    pid: int
    ppid: int
    pgid: NotRequired[int]
    started_at: float  # the process's own start (the kernel's), before Python started
    main_at: NotRequired[float]  # when the hook's Python began to run (started_at's upper bound)
    ended_at: float | None
    stdin_raw: str | None
    stdin_eof: bool | None
    stdin_read_at: NotRequired[float]
    payload: Any
    output: str | None
    output_padding: NotRequired[int]
    stderr: str | None
    exit_code: int | None
    killed_by_signal: str | None
    parent: NotRequired[Parent | None]  # the process that started the hook (None: gone, or not readable)
    crashed_with: NotRequired[str]
    grandchild_pid: NotRequired[int]
    signals: NotRequired[list[Signal]]
    surface: NotRequired[str]  # "extension" for a handler call
    extension_result: NotRequired[str | None]
    error: NotRequired[str | None]
    child_pid: NotRequired[int]  # shim.py: the user's command
    handler_type: NotRequired[str]  # mcp_server.py: "mcp_tool" (a hook's call), "mcp_server" (its own); absent: a command


class McpHook(TypedDict):
    event: str  # the native event the mcp_tool hook is registered under
    answer: HookAnswer  # what its call answers (body: the tool's text; status >= 400: an error)


class McpConfig(TypedDict):
    """mcp.json beside mcp_server.py: where its records go, what each call answers."""

    records: str
    hooks: dict[str, McpHook]  # a hook's key (its input's probe_key) -> entry
    tools: dict[str, HookAnswer]  # a tool the model calls (probe_tool) -> its answer
    offered: NotRequired[dict[str, dict[str, str]]]  # probe check: a user's server name -> its tool -> the hook's key
