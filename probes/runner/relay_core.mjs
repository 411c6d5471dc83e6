// What a relay of ours shares, for a CLI that has no command hooks, only a JavaScript plugin
// API: it runs each hooked event's command as a CLI runs a command hook and reads the answer by
// Claude Code's rules. Only Node's imports, so Node, Bun (opencode) and jiti (pi) load it alike.
// The opencode relay (opencode_relay.mjs) imports it from beside itself; pi's relay
// (pi_relay.mjs) has the same functions inline, written before this module existed.
//
// A hook is {"key", "event" (the CLI's name for it), "command", "timeout_s", "matcher"}; a
// config {"shell": "/bin/sh", "default_timeout_s": 600, ...}.
// - the command runs as `shell -c COMMAND` in its own process group, in the CLI's working
//   directory, with the CLI's environment, and the event as JSON on stdin;
// - at its timeout its process group gets SIGTERM, and the hook has failed;
// - exit 0: its stdout, read as Claude Code's JSON answer (decide below); plain text is context
//   where the relay says so (Claude's rule for UserPromptSubmit and SessionStart);
// - exit 2: a block, its stderr the reason (Claude's rule);
// - any other end (another exit code, a signal, the timeout, no start): {fail}, which a relay
//   throws, so the CLI's own handling of a failing plugin shows.
import { spawn } from "node:child_process";

export const OUTPUT_MAX = 1 << 20; // bytes of a hook's stdout and of its stderr kept

/** Claude Code's matcher: none, "" and "*" match every tool, else a regex on the whole name. */
export function matches(matcher, toolName) {
  if (matcher === null || matcher === undefined || matcher === "" || matcher === "*") return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(String(toolName ?? ""));
  } catch {
    return matcher === toolName;
  }
}

/** An event as JSON: functions dropped, a repeated object written once. */
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

/** Run one hook: how it ended, what it printed, when it was spawned (ms). */
export function run(hook, input, cwd, config) {
  const timeoutS = hook.timeout_s ?? config.default_timeout_s;
  return new Promise((resolve) => {
    const spawned = Date.now();
    let child;
    try {
      child = spawn(config.shell, ["-c", hook.command], { cwd, env: process.env, detached: true, stdio: "pipe" });
    } catch (err) {
      resolve({ ended: "no-start", error: String(err), spawned, stdout: "", stderr: "" });
      return;
    }
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

/** What a hook's answer asks, by Claude Code's rules for a command hook: {block, reason,
 *  context, updatedInput, permission ("allow" | "deny"), halt, stopReason}, or {fail}.
 *  `plainContext`: plain stdout of exit 0 is context (Claude: UserPromptSubmit, SessionStart). */
export function decide(hook, result, plainContext = false) {
  if (result.ended !== "exit" || (result.code !== 0 && result.code !== 2)) return { fail: failure(hook, result) };
  if (result.code === 2) return { block: true, reason: result.stderr.trim() };
  const text = result.stdout.trim();
  let answer = null;
  try {
    answer = text ? JSON.parse(text) : null;
  } catch {
    answer = null;
  }
  if (!answer || typeof answer !== "object" || Array.isArray(answer)) return plainContext && text ? { context: text } : {};
  const specific = answer.hookSpecificOutput && typeof answer.hookSpecificOutput === "object" ? answer.hookSpecificOutput : {};
  const out = {};
  if (answer.decision === "block" || specific.permissionDecision === "deny") {
    out.block = true;
    out.reason = String(specific.permissionDecisionReason ?? answer.reason ?? "");
  }
  // PermissionRequest's answer: {"decision": {"behavior": "allow" | "deny", "message"}}
  const behavior = specific.decision && typeof specific.decision === "object" ? specific.decision.behavior : undefined;
  if (behavior === "allow" || behavior === "deny") {
    out.permission = behavior;
    if (behavior === "deny" && specific.decision.message) out.reason = String(specific.decision.message);
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

/** Replace an object's keys by another's, in place (a CLI that runs the object it passed). */
export function replaceInPlace(target, source) {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
}
