// The probe's pi extension: pi has no command hooks, so this relays each hooked extension
// event to a command as a CLI runs a command hook, and applies the command's answer through
// pi's extension API. Plain JavaScript (pi loads it with jiti, as TypeScript); its only
// imports are Node's. The agent module (probes/agents/pi.py) writes it into the workspace's
// .pi/extensions/ (or ~/.pi/agent/extensions/) with its config in place of CONFIG below:
//   {"hooks": [{"key", "event" (pi's event name), "command", "timeout_s", "matcher"}],
//    "shell": "/bin/sh", "default_timeout_s": 600, "version_file": PATH, "cost_log": PATH}
//
// Per hooked event, in registration order (pi awaits each handler before the next):
// - the command runs as `shell -c COMMAND` in its own process group, in pi's working
//   directory, with pi's environment, and pi's event object as JSON on stdin;
// - at its timeout its process group gets SIGTERM, and the hook has failed;
// - exit 0: its stdout, read as Claude Code's JSON answer (decide below); plain text is
//   context on input and session_start (Claude's rule for UserPromptSubmit and SessionStart);
// - exit 2: a block, its stderr the reason (Claude's rule);
// - any other end (another exit code, a signal, the timeout, no start): the handler throws an
//   Error naming it, so pi's own handling of a failing extension shows (its docs: tool_call
//   errors block the tool; other handlers' errors are logged and the agent goes on).
import { decide as decideAnswer, failure, matches, payload, run as runHook } from "./relay_core.mjs";
import { appendFileSync, mkdirSync, realpathSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const CONFIG = { hooks: [], shell: "/bin/sh", default_timeout_s: 600, version_file: null, cost_log: null }; // PROBE-RELAY-CONFIG

const TOOL_EVENTS = new Set(["tool_call", "tool_result"]); // where a matcher applies

// What every relay shares (Claude's matcher, the payload, running a hook, its failure and its
// answer's rules) is relay_core.mjs, written beside this file (opencode's and Kilo's relay use it too).
export { matches, payload, failure } from "./relay_core.mjs";

/** Run one hook: how it ended, what it printed (relay_core's, with this relay's config). */
export function run(hook, input, cwd, config = CONFIG) {
  return runHook(hook, input, cwd, config);
}

/** What a hook's answer asks of pi, by Claude Code's rules for a command hook: plain stdout is
 *  context on a prompt (`input`) and at session start, as on Claude's UserPromptSubmit and SessionStart. */
export function decide(hook, result) {
  return decideAnswer(hook, result, hook.event === "input" || hook.event === "session_start");
}

function text(content, extra) {
  return [...(Array.isArray(content) ? content : []), { type: "text", text: extra }];
}

/** Apply a decision through pi's API, as the event allows; what the handler returns. */
export function apply(pi, hook, event, ctx, d, state) {
  if (d.fail) throw new Error(d.fail);
  if (d.halt) ctx?.abort?.(); // continue false: stop the agent's loop
  const stop = d.block || d.halt;
  const reason = d.block ? d.reason : d.stopReason;
  switch (hook.event) {
    case "tool_call":
      if (d.updatedInput && event.input && typeof event.input === "object") {
        for (const k of Object.keys(event.input)) delete event.input[k]; // pi runs the object it passed, mutated in place
        Object.assign(event.input, d.updatedInput);
      }
      return stop ? { block: true, reason } : undefined;
    case "tool_result": {
      const extra = [stop ? reason : null, d.context].filter(Boolean).join("\n");
      return extra ? { content: text(event.content, extra) } : undefined;
    }
    case "input":
      if (d.context) state.pending.push(d.context); // sent after the prompt, by before_agent_start
      return stop ? { action: "handled" } : undefined;
    case "session_start":
      if (d.context) pi.sendMessage({ customType: "probe-hook-context", content: d.context, display: false });
      return undefined;
    case "agent_end":
      if (d.block && reason) pi.sendUserMessage(reason, { deliverAs: "followUp" }); // Stop's block: go on
      return undefined;
    default:
      return undefined;
  }
}

function reportVersion(config) {
  if (!config.version_file) return;
  const write = (version, source) => {
    try {
      mkdirSync(dirname(config.version_file), { recursive: true });
      writeFileSync(config.version_file, JSON.stringify({ version, source }));
    } catch { /* the run reads none: its version unknown */ }
  };
  // The version the running pi says of itself: its package's own VERSION export (what
  // `pi --version` prints), else the package.json beside the script pi runs from.
  import("@mariozechner/pi-coding-agent").then(
    (m) => write(m.VERSION ?? null, "the running pi's VERSION export"),
    () => {
      try {
        const pkg = join(dirname(realpathSync(process.argv[1])), "..", "package.json");
        write(JSON.parse(readFileSync(pkg, "utf8")).version ?? null, "package.json of the running pi script");
      } catch {
        write(null, "neither VERSION nor the running script's package.json");
      }
    },
  );
}

/** Register one handler per hook (pi calls an event's handlers one at a time, in this order). */
export function relay(pi, config = CONFIG) {
  reportVersion(config);
  const state = { pending: [] };
  for (const hook of config.hooks) {
    pi.on(hook.event, async (event, ctx) => {
      if (TOOL_EVENTS.has(hook.event) && !matches(hook.matcher, event?.toolName)) return undefined;
      const entered = Date.now();
      const result = await run(hook, payload(event), ctx?.cwd ?? process.cwd(), config);
      const closed = Date.now();
      try {
        return apply(pi, hook, event, ctx, decide(hook, result), state);
      } finally {
        if (config.cost_log) {
          const cost = { key: hook.key, event: hook.event, before_spawn_ms: result.spawned - entered, after_close_ms: Date.now() - closed };
          try { appendFileSync(config.cost_log, JSON.stringify(cost) + "\n"); } catch { /* not evidence */ }
        }
      }
    });
  }
  if (config.hooks.some((h) => h.event === "input")) {
    // A prompt hook's context goes to the model with the prompt, as a message of its own.
    pi.on("before_agent_start", async () => {
      if (!state.pending.length) return undefined;
      const content = state.pending.splice(0).join("\n");
      return { message: { customType: "probe-hook-context", content, display: false } };
    });
  }
}

export default function (pi) {
  relay(pi, CONFIG);
}
