// Deny `rm`: a plugin stops a tool by throwing from tool.execute.before (opencode's plugin docs).
export const DenyRm = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash" && /(^|[;&|\s])rm\s/.test(String(output.args?.command ?? ""))) {
      throw new Error("deny-rm: rm is not allowed in this repository");
    }
  },
});
