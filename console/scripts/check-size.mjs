// Prints the gzipped size of the built console (every file the page loads) and fails over the
// budget. Usage: node console/scripts/check-size.mjs (after build.mjs). `npm run size:console`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { CONSOLE_DIST, CONSOLE_FILES } from "./build.mjs";

export const BUDGET_BYTES = 150 * 1024;

let total = 0;
for (const file of CONSOLE_FILES) {
  const path = join(CONSOLE_DIST, file);
  if (!existsSync(path)) {
    console.error(`console: ${file} is missing; run node console/scripts/build.mjs first`);
    process.exit(1);
  }
  const raw = readFileSync(path);
  const gzipped = gzipSync(raw, { level: 9 }).length;
  total += gzipped;
  console.log(`console ${file}: ${raw.length} B, ${gzipped} B gzipped`);
}
const ok = total <= BUDGET_BYTES;
console.log(
  `console total: ${total} B gzipped (budget ${BUDGET_BYTES} B) ${ok ? "ok" : "OVER BUDGET"}`,
);
if (!ok) process.exit(1);
