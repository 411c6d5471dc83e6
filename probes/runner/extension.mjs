// The instrumented Copilot CLI extension: the command hook's counterpart on the SDK surface.
// An ES module with no dependency but the SDK the CLI provides; copied into every run as
// $COPILOT_HOME/extensions/probe/extension.mjs, beside probe-ext.json:
//   {"records": DIR, "hooks": {HANDLER: {"key", "event", "canonical", "behavior"}}}
// Each handler call writes one record, DIR/<start ns>-<pid>.json, in the instrumented hook's
// format (see hook.py), rewritten atomically as it learns more, so a killed extension keeps
// what it had. `extension_result` says how the call ended: returned, threw, exited, or null
// (never answered).
//
// Behaviour keys (all optional): seconds (wait, then answer), hang (never answer), throw
// (reject with an Error), exit_process (process.exit(exit_code) inside the handler), stdout
// (the object the handler returns; nothing when absent).
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const config = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "probe-ext.json"), "utf8"));
const open = new Set(); // records of calls that have not answered yet
let seq = 0;

function save(record) {
  const tmp = record.path + ".tmp";
  const { path, ...data } = record;
  writeFileSync(tmp, JSON.stringify(data));
  renameSync(tmp, path);
}

function now() {
  return Date.now() / 1000;
}

function handler(name, entry) {
  const b = entry.behavior || {};
  return async (input) => {
    const started = now();
    const record = {
      path: join(config.records, `${Date.now()}${String(seq++).padStart(6, "0")}-${process.pid}.json`),
      key: entry.key, event: name, surface: "extension", argv: process.argv, cwd: process.cwd(),
      env: { ...process.env }, pid: process.pid, ppid: process.ppid, started_at: started,
      ended_at: null, stdin_raw: null, stdin_eof: null, payload: input ?? null, output: null,
      stderr: null, exit_code: null, killed_by_signal: null, extension_result: null, error: null,
    };
    save(record);
    open.add(record);
    if (b.seconds) await new Promise((resolve) => setTimeout(resolve, b.seconds * 1000));
    if (b.hang) await new Promise(() => setInterval(() => {}, 1 << 30));
    if (b.exit_process) {
      Object.assign(record, { ended_at: now(), exit_code: b.exit_code ?? 1, extension_result: "exited" });
      save(record);
      process.exit(record.exit_code);
    }
    open.delete(record);
    if (b.throw) {
      Object.assign(record, { ended_at: now(), extension_result: "threw", error: `PROBE-THROW from ${name}` });
      save(record);
      throw new Error(record.error);
    }
    Object.assign(record, { ended_at: now(), extension_result: "returned",
                            output: b.stdout === undefined ? null : JSON.stringify(b.stdout) });
    save(record);
    return b.stdout;
  };
}

for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => {
    for (const record of open) {
      Object.assign(record, { killed_by_signal: sig, signals: [{ signal: sig, at: now() }] });
      save(record);
    }
    process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig]);
  });
}

const { joinSession } = await import("@github/copilot-sdk/extension");
await joinSession({
  hooks: Object.fromEntries(Object.entries(config.hooks).map(([name, entry]) => [name, handler(name, entry)])),
});
