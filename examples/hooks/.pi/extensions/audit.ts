// An audit logger: every tool call appended to .pi/audit.log; it answers nothing.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    appendFileSync(join(ctx.cwd, ".pi", "audit.log"), JSON.stringify({ tool: event.toolName, input: event.input }) + "\n");
  });
}
