"""The readers of the newer agents (qwen, pi, ...) on small fake files: our own parsing only
(tests/real/test_surface.py reads real installs)."""

from __future__ import annotations

from probes.surface import auggie, cline, droid, opencode, pi, qwen
from probes.surface.model import Item, dedupe
from probes.surface.scan import Blob, ts_enum


def names(items: list[Item], kind: str) -> list[str]:
    return [i.name for i in items if i.kind == kind]


def at_name(data: bytes, items: list[Item]) -> None:
    """Every offset points at the item's name (a field's last part; an event's whole, dotted or not)."""
    for item in items:
        name = item.name if item.kind == "event" else item.name.rsplit(".", 1)[-1]
        assert item.offset is not None
        assert data[item.offset : item.offset + len(name)].decode() == name, item


QWEN_BLOB = b"""var HookEventName = /* @__PURE__ */ ((HookEventName2) => {
  HookEventName2["PreToolUse"] = "PreToolUse";
  HookEventName2["TodoCreated"] = "TodoCreated";
  return HookEventName2;
})(HookEventName || {});
function getHookKey(hook) {
  switch (hook.type) {
    case "command" /* Command */:
      return hook.command;
    case "function" /* Function */:
      return hook.id;
  }
}
var HOOK_DEFINITION_ITEMS = {
  type: "object",
  properties: {
    matcher: { type: "string" },
    hooks: {
      type: "array",
      items: {
        type: "object",
        properties: {
          type: {
            type: "string",
            enum: ["command", "http"],
          },
          command: {
            type: "string",
            description: 'The command. Required for "command" type.'
          },
          url: {
            type: "string",
            description: 'The URL {to} POST. Required for "http" type.'
          },
          timeout: {
            type: "number",
            description: "Timeout in seconds, for any type."
          }
        }
      }
    }
  }
};
var DefaultHookOutput = class {
  static {
    __name(this, "DefaultHookOutput");
  }
  continue;
  terminalSequence;
  constructor(data = {}) {}
};
        QWEN_PROJECT_DIR: input.cwd,
"""

# tsc's enum, as Qwen Code 0.15's cli.js carries it
QWEN_TSC = b"""    (function(HookType2) {
      HookType2["Command"] = "command";
      HookType2["Http"] = "http";
    })(HookType || (HookType = {}));
"""


def test_qwen_reads_its_enum_schema_key_cases_and_output_class():
    items = qwen.read_blob(Blob("chunk.js", QWEN_BLOB))
    assert names(items, "event") == ["PreToolUse", "TodoCreated"]
    assert names(items, "handler_type") == ["command", "http", "command", "function"]  # deduped by the surface
    assert names(items, "handler_field") == ["command.command", "http.url", "command.timeout"]
    assert names(items, "decision_field") == ["continue", "terminalSequence"]
    at_name(QWEN_BLOB, items)


def test_ts_enum_reads_tscs_function_form():
    found = ts_enum(QWEN_TSC, "HookType")
    assert [[v for _, v, _ in members] for _, members in found] == [["command", "http"]]
    assert qwen.read_blob(Blob("cli.js", QWEN_TSC))[1].name == "http"


PI_BLOB = b"""export interface ToolCallEventResult {
    /** Block tool execution. */
    block?: boolean;
    reason?: string;
    nested?: {
        inner: string;
    };
}
export interface ExtensionAPI {
    on(event: "session_start", handler: ExtensionHandler<SessionStartEvent>): void;
    on(event: "tool_call", handler: ExtensionHandler<ToolCallEvent, ToolCallEventResult>): void;
    on(event: "input", handler: ExtensionHandler<InputEvent, MissingResult>): void;
}
"""


def test_pi_reads_the_on_overloads_and_their_result_fields():
    items = pi.read_blob(Blob("types.d.ts", PI_BLOB))
    assert names(items, "event") == ["session_start", "tool_call", "input"]
    assert names(items, "decision_field") == ["tool_call.block", "tool_call.reason", "tool_call.nested"]
    at_name(PI_BLOB, items)


# opencode's binary, minified (1.18) and not (Kilo 7.0): triggers with their output, the plugin
# loop, bus event definitions
OPENCODE_BLOB = (
    b'yield*i.trigger("tool.execute.before",{tool:k.id,sessionID:H.sessionID},{args:b});'
    b"for(let V of K)V.event?.({event:{id:N.id}});"
    b'cs=mo.define({type:"session.idle",schema:{sessionID:Po}}),'
    b'Created:Q_({type:"session.created",version:1,aggregate:"sessionID",schema:{}}),'
    b'Other:{type:"not.an.event"},\n'
    b'      await Plugin.trigger("chat.message", {\n        sessionID\n      }, { message: m, parts });\n'
    b'        hook["config"]?.(cfg);\n'
    b'for (const hook of hooks) {\n          hook["config"]?.(cfg);\n'
    b'      Idle: BusEvent.define("session.error", zod_default.object({}))\n'
)


def test_opencode_reads_triggers_their_outputs_plugin_loops_and_bus_events():
    items = opencode.read_blob(Blob("opencode", OPENCODE_BLOB))
    assert names(items, "event") == [
        "tool.execute.before",
        "chat.message",
        "event",
        "config",
        "session.idle",
        "session.created",
        "session.error",
    ]
    assert [i.heuristic for i in items if i.kind == "event"] == [False] * 4 + [True] * 3  # a bus event may not reach plugins
    # a shorthand key (`{ parts }`) is not read: object_keys reads `key:` only
    assert names(items, "decision_field") == ["tool.execute.before.args", "chat.message.message"]
    at_name(OPENCODE_BLOB, items)


DROID_BLOB = (
    b'VL=x(["PreToolUse","PostToolUse","Stop","SessionEnd"]),og=["PreToolUse","Stop"];'
    b'hn=n({type:f("http"),name:H(),url:H().url()}),fn=F([Sn,hn]),'  # an MCP server's, not a hook's
    b'We=n({type:f("command"),command:H(),timeout:l().optional(),preserveRiskLevel:E().optional()}),'
    b"Ye=n({matcher:H().optional(),hooks:c(We)}),"
    b'Ne=n({hookEventName:qe.optional(),permissionDecision:x(["allow","deny"]).optional(),updatedInput:U(N()).optional()}),'
    b"Le=n({continue:E().optional(),decision:x([]).optional(),hookSpecificOutput:Ne.optional()}).passthrough();"
    b"S=In({...process.env,FACTORY_PROJECT_DIR:y,DROID_PROJECT_DIR:y,OTHER:1})"
)
# 0.99.0: no output schema, its fields copied off the parsed output
DROID_OLD = (
    b"if(z.continue=y.continue,z.stopReason=y.stopReason,z.reason=y.reason,y.hookSpecificOutput)"
    b"z.hookSpecificOutput={permissionDecision:y.hookSpecificOutput.permissionDecision}"
)


def test_droid_reads_its_event_list_handler_schema_output_schema_and_env():
    items = droid.read_blob(Blob("droid", DROID_BLOB))
    assert names(items, "event") == ["PreToolUse", "PostToolUse", "Stop", "SessionEnd"]
    assert names(items, "handler_type") == ["command"]  # the http object is named by no matcher's hooks
    assert names(items, "handler_field") == ["command.command", "command.timeout", "command.preserveRiskLevel"]
    assert names(items, "decision_field") == [
        "continue",
        "decision",
        "hookSpecificOutput",
        "hookSpecificOutput.permissionDecision",
        "hookSpecificOutput.updatedInput",
    ]
    assert names(items, "env") == ["FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR"]
    at_name(DROID_BLOB, items)
    old = dedupe(droid.read_blob(Blob("droid", DROID_OLD)))  # as the surface is: a read of hookSpecificOutput too
    assert names(old, "decision_field") == ["continue", "stopReason", "reason", "hookSpecificOutput.permissionDecision"]
    assert all(i.heuristic for i in old)
    at_name(DROID_OLD, old)


AUGGIE_BLOB = (
    b'var Whn=["PreToolUse","Stop","PromptSubmit"],Lnt=["beforeShellExecution","afterFileEdit","stop"];'
    b'dgi=te.enum(["PreToolUse","Stop"],{errorMap:()=>({message:"Invalid event type"})}),YQs=dgi.options,'
    b'Hnt=te.object({type:te.literal("command"),command:te.string().min(1,"a {brace"),timeout:te.number().optional()}),'
    + b" " * 700
    + b'Srv=te.object({type:te.literal("http"),url:te.string()});'  # far from the enum: not a hook's
    + b"var mao=te.object({continue:te.boolean().optional(),systemMessage:te.string().optional()}),"
    b"gao=te.object({permissionDecision:te.enum([]).optional(),updatedInput:te.record(te.unknown()).optional()}),"
    b'Eao=te.discriminatedUnion("hookEventName",[te.object({hookEventName:te.literal("PreToolUse"),...gao.shape}),'
    b'te.object({hookEventName:te.literal("Stop")})]),bao=mao.extend({hookSpecificOutput:Eao.optional()});'
    b"let l={...process.env,AUGMENT_PROJECT_DIR:e,AUGMENT_HOOK_EVENT:e.hook_event_name};"
)


def test_auggie_reads_its_lists_handler_schema_and_output_union():
    items = auggie.read_blob(Blob("augment.mjs", AUGGIE_BLOB))
    assert names(items, "event") == ["PreToolUse", "Stop", "PromptSubmit", "beforeShellExecution", "afterFileEdit", "stop"]
    assert names(items, "handler_type") == ["command"]
    assert names(items, "handler_field") == ["command.command", "command.timeout"]
    assert names(items, "decision_field") == [
        "continue",
        "systemMessage",
        "PreToolUse.permissionDecision",
        "PreToolUse.updatedInput",
    ]
    assert names(items, "env") == ["AUGMENT_PROJECT_DIR", "AUGMENT_HOOK_EVENT"]
    at_name(AUGGIE_BLOB, items)


# Cline 3.x's binary (Bun's minified enum, its output parser) and 2.x's bundle
CLINE3 = (
    b'var uE;((G)=>{G.TaskStart="TaskStart";G.PreToolUse="PreToolUse";G.SessionShutdown="SessionShutdown"})(uE||={});'
    b'let Q=Bp0.safeParse(Z);if(!(("cancel"in $)||("review"in $)||("overrideInput"in $)))return;'
)
CLINE2 = (
    b'jHt=["TaskStart","TaskResume","Notification"],o=["TaskStart"];'
    b'function F6n(){return{contextModification:"",cancel:!1,errorMessage:""}}'
)


def test_cline_reads_both_generations():
    three = cline.read_blob(Blob("cline", CLINE3))
    assert names(three, "event") == ["TaskStart", "PreToolUse", "SessionShutdown"]
    assert names(three, "decision_field") == ["cancel", "review", "overrideInput"]
    at_name(CLINE3, three)
    two = cline.read_blob(Blob("cli.mjs", CLINE2))
    assert names(two, "event") == ["TaskStart", "TaskResume", "Notification"]
    assert names(two, "decision_field") == ["contextModification", "cancel", "errorMessage"]
    at_name(CLINE2, two)
