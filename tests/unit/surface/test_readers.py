"""The surface readers on small fake byte blobs: our own parsing only (tests/real/test_surface.py
reads the real installs)."""

from __future__ import annotations

import json
import os

import pytest

from probes.limits import BadFile
from probes.surface import claude, codex, copilot, gemini
from probes.surface.help import flags, subcommands
from probes.surface.scan import Blob, enclosing_object, mapped, object_keys, string_arrays, ts_enum

CLAUDE_BLOB = (
    b'xx var Oc=["PreToolUse","PostToolUse","Stop","PreModelSwitch"],z=["PreToolUse","Stop"];'
    b'a=u({type:P("command").describe("Shell command hook type"),command:r().describe("a {brace} \\" in it"),'
    b"if:H(),timeout:v().optional(),async:M().optional()}),"
    b'n=u({type:P("prompt").describe("LLM prompt hook type"),prompt:r(),model:r().optional()});'
    b'NM=p(()=>u({continue:M().describe("Whether Claude should continue after hook (default: true)").optional(),'
    b'decision:U(["approve","block"]).optional(),hookSpecificOutput:dt([u({hookEventName:P("PreToolUse"),'
    b'permissionDecision:U_().optional()}),u({hookEventName:P("SessionStart"),additionalContext:r()})]).optional()}));'
    b"let ko={...qo,CLAUDE_PROJECT_DIR:Dn(co),CLAUDE_ENV_FILE:x,other:1};ko.CLAUDE_PLUGIN_ROOT=Dn(e);"
)


def names(items, kind):
    return [i.name for i in items if i.kind == kind]


def test_claude_reads_events_types_fields_decisions_and_env_with_offsets():
    items = claude.read_blob(Blob("cli.js", CLAUDE_BLOB))
    assert names(items, "event") == ["PreToolUse", "PostToolUse", "Stop", "PreModelSwitch"]  # the longest list
    assert names(items, "handler_type") == ["command", "prompt"]
    assert names(items, "handler_field") == [
        "command.command",
        "command.if",
        "command.timeout",
        "command.async",
        "prompt.prompt",
        "prompt.model",
    ]
    assert names(items, "decision_field") == [
        "continue",
        "decision",
        "hookSpecificOutput",
        "PreToolUse.permissionDecision",
        "SessionStart.additionalContext",
    ]
    assert names(items, "env") == ["CLAUDE_PROJECT_DIR", "CLAUDE_ENV_FILE", "CLAUDE_PLUGIN_ROOT"]
    for item in items:  # every offset points at the name (a field's last part, a type's quoted name)
        name = item.name.rsplit(".", 1)[-1]
        assert CLAUDE_BLOB[item.offset : item.offset + len(name)].decode() == name, item


def test_object_keys_skips_strings_nested_values_and_comments():
    data = b'{a:1, "b" : f({x:2}), /* c: */ d: "e:,}", ...s, [k]: 1, f(){}, g :`t${"}"}`}'
    keys, end = object_keys(data, 0)
    assert [k for k, _ in keys] == ["a", "b", "d", "g"]
    assert end == len(data)
    assert object_keys(b"{a:1", 0) == ([("a", 1)], -1)  # does not close: bounded, -1


def test_enclosing_object_is_checked_forward():
    data = b"f({A:1,B:{C:2},D:3})"
    assert enclosing_object(data, data.index(b"D")) == 2
    assert enclosing_object(b"no brace D:1", 10) is None


def test_string_arrays_need_every_element_to_match():
    found = string_arrays(b'["PreToolUse","X y"] ["PreToolUse","Stop"]', "PreToolUse")
    assert [[n for n, _ in names] for _, names in found] == [["PreToolUse", "Stop"]]


GEMINI_BLOB = b"""var HookEventName = /* @__PURE__ */ ((HookEventName2) => {
  HookEventName2["BeforeTool"] = "BeforeTool";
  HookEventName2["AfterTool"] = "AfterTool";
  return HookEventName2;
})(HookEventName || {});
var HookType = /* @__PURE__ */ ((HookType2) => {
  HookType2["Command"] = "command";
  return HookType2;
})(HookType || {});
var DefaultHookOutput = class {
  continue;
  decision;
  constructor(data = {}) {
    if (x.hookSpecificOutput?.tool_input) {}
  }
};
var S = { HookDefinitionArray: {
    type: "array",
    items: { type: "object", properties: { matcher: { type: "string" }, hooks: {
          type: "array",
          items: { type: "object", properties: {
              name: { type: "string", description: "a { brace" },
              type: { type: "string" },
              command: { type: "string" },
              timeout: { type: "number" }
            } } } } } } };
      const env2 = {
        ...sanitizeEnvironment(process.env),
        GEMINI_PROJECT_DIR: input.cwd,
        GEMINI_CWD: input.cwd,
        CLAUDE_PROJECT_DIR: input.cwd
      };
"""


def test_gemini_reads_its_enums_schema_output_class_and_env():
    items = gemini.read_blob(Blob("chunk.js", GEMINI_BLOB))
    assert names(items, "event") == ["BeforeTool", "AfterTool"]
    assert names(items, "handler_type") == ["command"]
    assert names(items, "handler_field") == ["command.name", "command.command", "command.timeout"]
    assert names(items, "decision_field") == ["continue", "decision", "hookSpecificOutput.tool_input"]
    assert names(items, "env") == ["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"]
    event = items[0]
    assert GEMINI_BLOB[event.offset : event.offset + 10] == b"BeforeTool"
    assert ts_enum(GEMINI_BLOB, "Missing") == []


def schema_blob(*schemas: dict) -> bytes:
    return b"\0junk\0".join(json.dumps(s, indent=2).encode() for s in schemas) + b"\0"


def test_codex_reads_its_embedded_hook_schemas():
    data = (
        schema_blob(
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "properties": {"hook_event_name": {"const": "PreToolUse", "type": "string"}, "cwd": {"type": "string"}},
                "title": "pre-tool-use.command.input",
            },
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {"W": {"properties": {"hookEventName": {"const": "PreToolUse"}, "permissionDecision": {}}}},
                "properties": {"continue": {}, "hookSpecificOutput": {"allOf": [{"$ref": "#/definitions/W"}]}},
                "title": "pre-tool-use.command.output",
            },
            {"$schema": "x", "title": "not a hook schema", "properties": {"a": {}}},
        )
        + b"commandtimeoutSecstatusMessageinternally tagged enum ConfiguredHookHandler"
    )
    items = codex.read_blob(Blob("codex", data))
    assert names(items, "event") == ["PreToolUse"]
    assert sorted(set(names(items, "handler_type"))) == ["command"]
    assert names(items, "decision_field") == ["continue", "hookSpecificOutput", "PreToolUse.permissionDecision"]
    assert {"command.command", "command.timeoutSec", "command.statusMessage"} <= set(names(items, "handler_field"))
    event = next(i for i in items if i.kind == "event")
    assert data[event.offset : event.offset + 10] == b"PreToolUse"


def test_copilot_reads_the_schema_enum_the_bundle_and_the_native_table():
    schema = json.dumps({"definitions": {"HookType": {"type": "string", "enum": ["preToolUse", "agentStop"]}}}, indent=2).encode()
    assert names(copilot.schema_events(Blob("api.schema.json", schema)), "event") == ["preToolUse", "agentStop"]
    app = (
        b'VRe=re.object({type:re.literal("command").default("command"),bash:re.string().optional(),timeoutSec:re.number()}),'
        b'K8o=re.object({type:re.literal("prompt"),prompt:re.string()}),gxt=re.object({sessionStart:re.array(q8o)}),'
        b'E=re.enum(["sessionStart","preToolUse","agentStop"]);'
    )
    items = copilot.read_app(Blob("app.js", app))
    assert names(items, "event") == ["sessionStart", "preToolUse", "agentStop"]
    assert names(items, "handler_type") == ["command", "prompt"]
    assert names(items, "handler_field") == ["command.bash", "command.timeoutSec", "prompt.prompt"]
    native = (
        b'{"path":"hooks.preToolUse","leafKind":"json"}HTTP hook URL is required'
        b"Specify either 'exec' (native executable) or 'bash'/'powershell'/'command' (shell)"
    )
    items = copilot.native_items(Blob("runtime.node", native))
    assert names(items, "event") == ["preToolUse"]
    assert names(items, "handler_type") == ["http", "command"]
    assert names(items, "handler_field") == ["command.exec", "command.bash", "command.powershell", "command.command"]


HELP = """Usage: claude [options] [command] [prompt]

Options:
  -d, --debug [filter]      Enable debug mode
  --mcp-config <configs...>  Load MCP servers
  -h, --help                Display help

Commands:
  mcp                       Configure and manage MCP servers
  plugin|plugins            Manage plugins
  help [command]            display help for command
"""


def test_help_flags_and_subcommands():
    got = flags(HELP, "claude --help")
    assert [i.name for i in got] == ["--debug", "--mcp-config", "--help"]
    assert got[1].line == "--mcp-config <configs...>  Load MCP servers"
    assert subcommands(HELP, "claude") == ["mcp", "plugin"]
    yargs = "Commands:\n  gemini mcp  Manage MCP servers\n  gemini hooks  Manage hooks\n\nOptions:\n"
    assert subcommands(yargs, "gemini") == ["mcp", "hooks"]
    assert [i.name for i in flags("  --x, --y  both\n", "c sub --help", "sub")] == ["sub --x", "sub --y"]


def test_mapped_refuses_links_and_climbing(tmp_path):
    (tmp_path / "real.js").write_bytes(b"data")
    os.symlink(tmp_path / "real.js", tmp_path / "link.js")
    (tmp_path / "d").mkdir()
    os.symlink("/etc", tmp_path / "d" / "out")
    with mapped(tmp_path, "real.js") as blob:
        assert blob.data[:4] == b"data"
    for rel in ("link.js", "d/out/passwd", "../x"):
        with pytest.raises(BadFile), mapped(tmp_path, rel):
            pass
