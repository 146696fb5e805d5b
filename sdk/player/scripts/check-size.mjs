// Prints the gzipped size of each built bundle and fails when one is over the budget.
// Usage: node sdk/player/scripts/check-size.mjs (after build.mjs).
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { gzipSync } from "node:zlib";
import { BUNDLES, PACKAGE_DIR } from "./build.mjs";

export const BUDGET_BYTES = 5 * 1024;

let over = false;
for (const [format, file] of Object.entries(BUNDLES)) {
  if (!existsSync(file)) {
    console.error(
      `sdk/player: ${relative(PACKAGE_DIR, file)} is missing; run node sdk/player/scripts/build.mjs first`,
    );
    process.exit(1);
  }
  const raw = readFileSync(file);
  // Level 9: what a CDN serving it compressed would send.
  const gzipped = gzipSync(raw, { level: 9 }).length;
  const ok = gzipped <= BUDGET_BYTES;
  over ||= !ok;
  console.log(
    `sdk/player ${format.padEnd(4)} ${relative(PACKAGE_DIR, file)}: ${raw.length} B, ${gzipped} B gzipped (budget ${BUDGET_BYTES} B) ${ok ? "ok" : "OVER BUDGET"}`,
  );
}
if (over) process.exit(1);
