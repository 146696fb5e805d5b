// The operator token of the local server the benches talk to: --token, else ADMIN_TOKEN, else
// the one `npm run dev` wrote into .dev.vars.
import { existsSync, readFileSync } from "node:fs";

export function adminToken(given) {
  if (given) return given;
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const file = new URL("../../.dev.vars", import.meta.url);
  if (!existsSync(file))
    throw new Error(
      "no operator token: give --token or ADMIN_TOKEN, or run `npm run dev` once to create .dev.vars",
    );
  return readFileSync(file, "utf8")
    .match(/^ADMIN_TOKEN=(.*)$/m)?.[1]
    ?.trim();
}
