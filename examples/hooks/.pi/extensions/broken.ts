// Deliberately broken: its tool_call handler reads a config file that is not there (ENOENT) and throws.
import { readFileSync } from "node:fs";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    const config = JSON.parse(readFileSync(`${ctx.cwd}/.pi/broken-config.json`, "utf8"));
    return config.deny?.includes(event.toolName) ? { block: true, reason: "broken: denied" } : undefined;
  });
}
