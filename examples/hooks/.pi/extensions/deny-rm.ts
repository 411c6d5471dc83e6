// Deny `rm`: a tool_call handler blocks the call by returning {block: true, reason} (pi's extension docs).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event) => {
    if (event.toolName === "bash" && /(^|[;&|\s])rm\s/.test(String(event.input?.command ?? ""))) {
      return { block: true, reason: "deny-rm: rm is not allowed in this repository" };
    }
    return undefined;
  });
}
