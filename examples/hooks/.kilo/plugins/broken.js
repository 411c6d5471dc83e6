// Deliberately broken: it reads a config file that is not there when it loads (ENOENT).
import { readFileSync } from "node:fs";

const config = JSON.parse(readFileSync(new URL("./broken-config.json", import.meta.url), "utf8"));

export const Broken = async () => ({
  "tool.execute.before": async (input) => {
    if (config.deny?.includes(input.tool)) throw new Error(`broken: ${input.tool} denied`);
  },
});
