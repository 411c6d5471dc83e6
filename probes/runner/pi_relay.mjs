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
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, realpathSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const CONFIG = { hooks: [], shell: "/bin/sh", default_timeout_s: 600, version_file: null, cost_log: null }; // PROBE-RELAY-CONFIG

const OUTPUT_MAX = 1 << 20; // bytes of a hook's stdout and of its stderr kept
const TOOL_EVENTS = new Set(["tool_call", "tool_result"]); // where a matcher applies

/** Claude Code's matcher: none, "" and "*" match every tool, else a regex on the whole name. */
export function matches(matcher, toolName) {
  if (matcher === null || matcher === undefined || matcher === "" || matcher === "*") return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(String(toolName ?? ""));
  } catch {
    return matcher === toolName;
  }
}

/** pi's event as JSON: functions dropped, a repeated object written once. */
export function payload(event) {
  const seen = new WeakSet();
  return JSON.stringify(event ?? null, (_key, value) => {
    if (typeof value === "bigint") return String(value);
    if (typeof value === "function") return undefined;
    if (value && typeof value === "object") {
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return value;
  });
}

/** Run one hook: how it ended, what it printed. */
export function run(hook, input, cwd, config = CONFIG) {
  const timeoutS = hook.timeout_s ?? config.default_timeout_s;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(config.shell, ["-c", hook.command], { cwd, env: process.env, detached: true, stdio: "pipe" });
    } catch (err) {
      resolve({ ended: "no-start", error: String(err), stdout: "", stderr: "" });
      return;
    }
    const spawned = Date.now();
    const out = [], err = [];
    let outLen = 0, errLen = 0, done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...result, spawned, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    };
    child.stdout.on("data", (b) => { if (outLen < OUTPUT_MAX) { out.push(b); outLen += b.length; } });
    child.stderr.on("data", (b) => { if (errLen < OUTPUT_MAX) { err.push(b); errLen += b.length; } });
    child.stdin.on("error", () => {}); // a hook that never reads its input
    child.on("error", (e) => finish({ ended: "no-start", error: String(e) }));
    child.on("close", (code, signal) => finish(signal ? { ended: "signal", signal } : { ended: "exit", code }));
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, "SIGTERM"); } catch { /* gone already */ }
      finish({ ended: "timeout", timeout_s: timeoutS });
    }, timeoutS * 1000);
    child.stdin.end(input);
  });
}

/** A hook that did not answer (exit other than 0 and 2, killed, timed out): the thrown text. */
export function failure(hook, result) {
  const how = { exit: `exited ${result.code}`, signal: `was killed by ${result.signal}`,
                timeout: `timed out after ${result.timeout_s} s`, "no-start": `did not start (${result.error})` }[result.ended];
  const said = (result.stderr || "").trim().slice(0, 1000);
  return `probe relay: hook ${hook.key} ${how}${said ? `: ${said}` : ""}`;
}

/** What a hook's answer asks of pi, by Claude Code's rules for a command hook:
 *  {block, reason, context, updatedInput, halt, stopReason}, or {fail} for the relay to throw. */
export function decide(hook, result) {
  if (result.ended !== "exit" || (result.code !== 0 && result.code !== 2)) return { fail: failure(hook, result) };
  if (result.code === 2) return { block: true, reason: result.stderr.trim() };
  const text = result.stdout.trim();
  let answer = null;
  try {
    answer = text ? JSON.parse(text) : null;
  } catch {
    answer = null;
  }
  if (!answer || typeof answer !== "object" || Array.isArray(answer)) {
    const plainContext = text && (hook.event === "input" || hook.event === "session_start");
    return plainContext ? { context: text } : {};
  }
  const specific = answer.hookSpecificOutput && typeof answer.hookSpecificOutput === "object" ? answer.hookSpecificOutput : {};
  const out = {};
  if (answer.decision === "block" || specific.permissionDecision === "deny") {
    out.block = true;
    out.reason = String(specific.permissionDecisionReason ?? answer.reason ?? "");
  }
  if (specific.updatedInput && typeof specific.updatedInput === "object") out.updatedInput = specific.updatedInput;
  const context = specific.additionalContext ?? answer.additionalContext;
  if (typeof context === "string" && context) out.context = context;
  if (answer.continue === false) {
    out.halt = true;
    out.stopReason = String(answer.stopReason ?? "");
  }
  return out;
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
