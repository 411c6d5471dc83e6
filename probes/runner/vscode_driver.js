// The probe's driver extension for VS Code (code-server): once the scripted model is listed,
// it opens the chat in agent mode with the probe's prompt, waits for the turn to end
// (blockOnResponse) and writes the turn's result where the session launcher polls for it.
// Its settings come from probe-driver.json beside it (vscode_session.py writes it).
"use strict";
const vscode = require("vscode");
const fs = require("fs");
const path = require("path");

function write(file, obj) {
  let text;
  try {
    text = JSON.stringify(obj);
  } catch (e) {
    text = JSON.stringify({ ok: obj.ok, unserializable: String(e) });
  }
  fs.writeFileSync(file + ".tmp", text);
  fs.renameSync(file + ".tmp", file);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function drive(cfg) {
  const deadline = Date.now() + cfg.model_wait_ms;
  // A fresh profile disables the built-in Copilot Chat until chat set-up completes (with a
  // GitHub sign-in): enable it again, wait until the extension host lists it, activate it.
  let chat = vscode.extensions.getExtension(cfg.chat_extension);
  if (!chat) await vscode.commands.executeCommand("workbench.extensions.action.enableAll");
  while (!chat && Date.now() < deadline) {
    await sleep(100);
    chat = vscode.extensions.getExtension(cfg.chat_extension);
  }
  if (!chat) throw new Error(`${cfg.chat_extension} is not enabled`);
  if (!chat.isActive) await chat.activate();
  const versions = { vscode: vscode.version, chat: chat.packageJSON.version };
  let models = [];
  while (Date.now() < deadline) {
    models = await vscode.lm.selectChatModels({ vendor: cfg.vendor });
    if (models.length) break;
    await sleep(100);
  }
  if (!models.length) throw new Error(`no ${cfg.vendor} language model listed`);
  // The versions too: a turn the budget cuts short never writes the result file.
  write(cfg.result + ".started", { versions, models: models.map((m) => m.id), t: Date.now() });
  const result = await vscode.commands.executeCommand("workbench.action.chat.open", {
    query: cfg.query,
    mode: "agent",
    blockOnResponse: true,
    modelSelector: { vendor: cfg.vendor },
  });
  return { versions, models: models.map((m) => m.id), result: result === undefined ? null : result };
}

exports.activate = function () {
  const cfg = JSON.parse(fs.readFileSync(path.join(__dirname, "probe-driver.json"), "utf8"));
  drive(cfg).then(
    (out) => write(cfg.result, { ok: true, ...out, t: Date.now() }),
    (err) => write(cfg.result, { ok: false, error: String((err && err.stack) || err), t: Date.now() })
  );
};

exports.deactivate = function () {};
