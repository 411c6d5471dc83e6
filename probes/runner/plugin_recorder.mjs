// `probe check`'s recording wrapper around a user's own plugin (opencode, Kilo) or extension
// (pi): written at the user's file's path in the check's copy, the user's file moved beside it
// under a name the CLI does not load (probes/check/plugins.py), and imported here unchanged.
// Every handler the user's plugin returns (opencode: the hooks object of each exported plugin
// function) or registers (pi: pi.on) is wrapped; each call is recorded in the instrumented
// hook's record format (hook.py), surface "plugin": the handler's name as `event`, its
// arguments as `payload`, how it ended (`extension_result` returned or threw, `error`), and as
// `output` what it returned and what it changed in its arguments ({"returned", "changed"}).
// Loading is recorded too (`event` "load": the handlers registered, or the error it threw).
// The wrapper answers what the user's handler answers: the same return, the same throw.
// Plain JavaScript, only Node's imports. Its config replaces CONFIG below:
//   {"key", "records": DIR, "api": "returned" (opencode's plugins) | "registered" (pi's
//    extensions), "module": "./NAME" (the moved file)}
import { renameSync, writeFileSync } from "node:fs";

const CONFIG = { key: "0-plugin", records: "/tmp", api: "returned", module: "./plugin.mjs" }; // PROBE-RECORDER-CONFIG
const KEPT = 20000; // characters of a payload or an answer kept in a record
let seq = 0;

function json(value) {
  const seen = new WeakSet();
  try {
    return JSON.stringify(value ?? null, (_k, v) => {
      if (typeof v === "bigint") return String(v);
      if (typeof v === "function") return undefined;
      if (v && typeof v === "object") {
        if (seen.has(v)) return undefined;
        seen.add(v);
      }
      return v;
    });
  } catch (e) {
    return JSON.stringify(`(not serialisable: ${e})`);
  }
}

function kept(value) {
  const text = json(value);
  return text.length <= KEPT ? JSON.parse(text) : `${text.slice(0, KEPT)}...`;
}

/** Top-level keys of an argument whose JSON differs after the call: what the handler changed. */
function snapshot(obj) {
  if (!obj || typeof obj !== "object") return {};
  return Object.fromEntries(Object.keys(obj).map((k) => [k, json(obj[k])]));
}

function changes(before, obj) {
  const after = snapshot(obj);
  const out = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[k] !== after[k]) out[k] = k in after ? kept(obj[k]) : null;
  }
  return out;
}

function save(record) {
  const { path, ...data } = record;
  try {
    writeFileSync(path + ".tmp", JSON.stringify(data));
    renameSync(path + ".tmp", path);
  } catch { /* the records folder gone: the session is over */ }
}

function start(event, payload) {
  const record = {
    path: `${CONFIG.records}/${Date.now()}${String(seq++).padStart(6, "0")}-${process.pid}.json`,
    key: CONFIG.key, event, surface: "plugin", argv: process.argv, cwd: process.cwd(), env: { ...process.env },
    pid: process.pid, ppid: process.ppid, started_at: Date.now() / 1000, ended_at: null, stdin_raw: null,
    stdin_eof: null, payload: kept(payload), output: null, stderr: null, exit_code: null, killed_by_signal: null,
    extension_result: null, error: null,
  };
  save(record);
  return record;
}

function end(record, result, answer, error) {
  Object.assign(record, { ended_at: Date.now() / 1000, extension_result: result, output: answer === undefined ? null : json(answer) });
  if (error !== undefined) record.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  save(record);
}

/** A handler of the user's, recorded: the same arguments, the same answer or throw. */
function wrap(name, handler, args) {
  return async function (...given) {
    const watched = given.slice(0, args); // what it may change in place: opencode's (input, output), pi's event
    const before = watched.map(snapshot);
    const record = start(name, args === 1 ? given[0] : { input: given[0], output: given[1] });
    try {
      const returned = await handler.apply(this, given);
      end(record, "returned", { returned: kept(returned), changed: Object.assign({}, ...watched.map((o, i) => changes(before[i], o))) });
      return returned;
    } catch (e) {
      end(record, "threw", { returned: null, changed: Object.assign({}, ...watched.map((o, i) => changes(before[i], o))) }, e);
      throw e;
    }
  };
}

async function imported() {
  const loading = start("load", { module: CONFIG.module });
  try {
    const mod = await import(CONFIG.module);
    return { mod, loading };
  } catch (e) {
    end(loading, "threw", { returned: null, changed: {} }, e);
    throw e;
  }
}

/** opencode: each distinct export is a plugin (a function, or {server}), called as opencode
 *  calls it (its loader: "Plugin export is not a function" for any other); their hooks merged
 *  into one object, each name's handlers called in the plugins' order. */
async function opencode(ctx, options) {
  const { mod, loading } = EAGER ?? (await imported());
  const seen = new Set();
  const all = [];
  try {
    for (const value of Object.values(mod)) {
      if (seen.has(value)) continue;
      seen.add(value);
      const fn = typeof value === "function" ? value : value && typeof value === "object" && typeof value.server === "function" ? value.server : null;
      if (!fn) throw new TypeError("Plugin export is not a function");
      all.push((await fn(ctx, options)) ?? {});
    }
  } catch (e) {
    end(loading, "threw", { returned: null, changed: {} }, e);
    throw e;
  }
  const merged = {};
  for (const hooks of all) {
    for (const [name, handler] of Object.entries(hooks)) {
      if (typeof handler !== "function") { merged[name] ??= handler; continue; }
      const recorded = wrap(name, handler, name === "event" ? 1 : 2);
      const prev = merged[name];
      merged[name] = typeof prev === "function" ? async (...a) => { await prev(...a); return recorded(...a); } : recorded;
    }
  }
  end(loading, "returned", { returned: { hooks: [...new Set(all.flatMap((h) => Object.keys(h)))] }, changed: {} });
  return merged;
}

/** pi: the module's default export is the factory; pi.on's handlers are recorded, the rest of
 *  the API passed through. */
async function pi(api) {
  const { mod, loading } = await imported();
  const factory = typeof mod.default === "function" ? mod.default : typeof mod === "function" ? mod : null;
  const events = [];
  const proxy = new Proxy(api, {
    get(target, prop) {
      if (prop === "on") {
        return (event, handler, ...rest) => {
          events.push(event);
          return target.on(event, typeof handler === "function" ? wrap(event, handler, 1) : handler, ...rest);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  try {
    if (!factory) throw new Error(`Extension does not export a valid factory function: ${CONFIG.module}`);
    await factory(proxy);
  } catch (e) {
    end(loading, "threw", { returned: null, changed: {} }, e);
    throw e;
  }
  end(loading, "returned", { returned: { hooks: [...new Set(events)] }, changed: {} });
}

// opencode: the user's module imported as the wrapper loads (top-level await), so a module that
// fails to load fails the wrapper's import as it would its own; pi loads both in one try.
const EAGER = null; // PROBE-EAGER-IMPORT

export default CONFIG.api === "registered" ? pi : opencode;
