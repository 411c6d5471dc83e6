// An audit logger: every tool call appended to .kilo/audit.log; it answers nothing.
import { appendFileSync } from "node:fs";
import { join } from "node:path";

export const Audit = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    appendFileSync(join(directory, ".kilo", "audit.log"), JSON.stringify({ tool: input.tool, args: output.args }) + "\n");
  },
});
