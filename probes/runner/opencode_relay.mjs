// The probe's opencode plugin: opencode has no command hooks, so this relays each hooked plugin
// hook or bus event to a command as a CLI runs a command hook (relay_core.mjs, written beside
// the plugins folder as probe-relay-core.mjs), and applies the command's answer through
// opencode's plugin API. Plain JavaScript; one export, the plugin (opencode calls every
// exported function of a plugin file as a plugin). The agent module (probes/agents/opencode.py)
// writes it as .opencode/plugins/probe-relay.js (or ~/.config/opencode/plugins/) with its
// config in place of CONFIG below:
//   {"hooks": [{"key", "event", "command", "timeout_s", "matcher"}], "shell": "/bin/sh",
//    "default_timeout_s": 600, "version_file": PATH, "cost_log": PATH}
// An event named as a plugin hook (HOOKS) is that hook, called (input, output) and awaited by
// opencode; any other is a bus event type (session.created, session.idle, ...), delivered to
// the plugin's `event` hook, which opencode calls without awaiting it.
//
// The command's stdin: {"hook": NAME, "input": ..., "output": ...} (the hook's two arguments as
// opencode passed them), or {"hook": "event", "event": {...}}. What an answer does:
// - tool.execute.before: a block throws an Error carrying the reason (the plugin docs' way to
//   stop a tool); updatedInput replaces output.args's keys in place (opencode runs that object);
// - tool.execute.after: context, or a block's reason, appended to output.output (what the
//   model is sent as the tool's result);
// - chat.message: context is a text part added to the prompt (output.parts); a block throws;
// - permission.ask: allow or deny set as output.status (a block: deny);
// - experimental.session.compacting: context pushed to output.context;
// - session.created (an event): context added to each later system prompt
//   (experimental.chat.system.transform), since an event cannot answer;
// - continue false: the session aborted through the client opencode hands the plugin, and the
//   hook's own effect (a throw, on the hooks that can);
// - a failed hook (an exit other than 0 and 2, a signal, its timeout) throws an Error naming it.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { decide, matches, payload, replaceInPlace, run } from "../probe-relay-core.mjs";

const CONFIG = { hooks: [], shell: "/bin/sh", default_timeout_s: 600, version_file: null, cost_log: null }; // PROBE-RELAY-CONFIG

// opencode's plugin hooks of the form (input, output) the relay can hook.
const HOOKS = new Set([
  "tool.execute.before", "tool.execute.after", "chat.message", "chat.params", "chat.headers", "permission.ask",
  "command.execute.before", "shell.env", "experimental.session.compacting", "experimental.chat.system.transform",
  "experimental.chat.messages.transform", "experimental.text.complete", "tool.definition",
]);
const TOOL_HOOKS = new Set(["tool.execute.before", "tool.execute.after"]); // where a matcher applies
const PLAIN_CONTEXT = new Set(["chat.message", "session.created"]); // Claude: UserPromptSubmit, SessionStart
const SYSTEM = "experimental.chat.system.transform";

function why(hook, d) {
  return d.reason || d.stopReason || `blocked by probe hook ${hook.key}`;
}

function textPart(output, text, n) {
  const last = (output.parts ?? []).at(-1) ?? {};
  const id = `${last.id ?? "prt_probe"}probe${n}`; // sorts after the prompt's own parts
  return { id, type: "text", text, synthetic: true, messageID: output.message?.id ?? last.messageID, sessionID: output.message?.sessionID ?? last.sessionID };
}

/** Apply a decision to an (input, output) hook's output, as the hook allows; throws to block. */
function apply(hook, input, output, d, state) {
  if (d.fail) throw new Error(d.fail);
  if (d.halt && input?.sessionID) {
    // continue false: the session's loop aborted, as its own abort (the SDK client the plugin
    // is handed, served in-process); not awaited, since the loop waits on this very hook
    state.ctx?.client?.session?.abort?.({ path: { id: input.sessionID } })?.catch?.(() => {});
  }
  const stop = d.block || d.halt;
  switch (hook.event) {
    case "tool.execute.before":
      if (d.updatedInput && output?.args && typeof output.args === "object") replaceInPlace(output.args, d.updatedInput);
      if (stop) throw new Error(why(hook, d));
      return;
    case "tool.execute.after": {
      const extra = [stop ? why(hook, d) : null, d.context].filter(Boolean).join("\n");
      if (extra && output) output.output = [output.output, extra].filter((x) => typeof x === "string" && x).join("\n");
      return;
    }
    case "chat.message":
      if (d.context && Array.isArray(output?.parts)) output.parts.push(textPart(output, d.context, state.parts++));
      if (stop) throw new Error(why(hook, d));
      return;
    case "permission.ask":
      if (d.permission) output.status = d.permission;
      else if (d.block) output.status = "deny";
      return;
    case "experimental.session.compacting":
      if (d.context && Array.isArray(output?.context)) output.context.push(d.context);
      if (stop) throw new Error(why(hook, d));
      return;
    default:
      if (stop) throw new Error(why(hook, d));
  }
}

function reportVersion(config) {
  if (!config.version_file) return;
  // The running binary's package: opencode-ai/bin/opencode.exe (1.18) or
  // opencode-linux-x64/bin/opencode, each with its package.json one folder up.
  let version = null;
  let source = "no package.json beside the running binary";
  try {
    version = JSON.parse(readFileSync(join(dirname(process.execPath), "..", "package.json"), "utf8")).version ?? null;
    source = "package.json of the running opencode binary";
  } catch { /* unknown */ }
  try {
    mkdirSync(dirname(config.version_file), { recursive: true });
    writeFileSync(config.version_file, JSON.stringify({ version, source }));
  } catch { /* the run reads none: its version unknown */ }
}

/** Run one hook and apply its answer; the relay's own time goes to the cost log. */
async function relayed(hook, body, cwd, config, then) {
  const entered = Date.now();
  const result = await run(hook, payload(body), cwd, config);
  const closed = Date.now();
  try {
    return then(decide(hook, result, PLAIN_CONTEXT.has(hook.event)));
  } finally {
    if (config.cost_log) {
      const cost = { key: hook.key, event: hook.event, before_spawn_ms: result.spawned - entered, after_close_ms: Date.now() - closed, total_ms: Date.now() - entered };
      try { appendFileSync(config.cost_log, JSON.stringify(cost) + "\n"); } catch { /* not evidence */ }
    }
  }
}

/** The plugin's hooks for `config`: one handler per hooked name, its hooks run in order. */
function relay(ctx, config = CONFIG) {
  reportVersion(config);
  const cwd = ctx?.directory ?? process.cwd();
  const state = { parts: 0, system: [], ctx };
  const byName = new Map();
  for (const hook of config.hooks) byName.set(hook.event, [...(byName.get(hook.event) ?? []), hook]);
  const hooks = {};
  for (const [name, list] of byName) {
    if (!HOOKS.has(name)) continue;
    hooks[name] = async (input, output) => {
      for (const hook of list) {
        if (TOOL_HOOKS.has(name) && !matches(hook.matcher, input?.tool)) continue;
        await relayed(hook, { hook: name, input, output }, cwd, config, (d) => apply(hook, input, output, d, state));
      }
    };
  }
  const events = [...byName].filter(([name]) => !HOOKS.has(name));
  if (events.length) {
    hooks.event = async ({ event }) => {
      for (const hook of byName.get(event?.type) ?? []) {
        await relayed(hook, { hook: "event", event }, cwd, config, (d) => {
          if (d.fail) throw new Error(d.fail);
          if (event.type === "session.created" && d.context) state.system.push(d.context);
        });
      }
    };
  }
  if (byName.has("session.created")) {
    const own = hooks[SYSTEM];
    hooks[SYSTEM] = async (input, output) => {
      if (own) await own(input, output);
      if (state.system.length && Array.isArray(output?.system)) output.system.push(...state.system);
    };
  }
  return hooks;
}

export default async function ProbeRelay(ctx) {
  return relay(ctx, CONFIG);
}
// For the unit tests, as properties: another export would be called as a plugin.
ProbeRelay.relay = relay;
ProbeRelay.apply = apply;
