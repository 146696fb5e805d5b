// Prints the gzipped size of the built client and fails over the budget.
// Usage: node sdk/client/scripts/check-size.mjs (after build.mjs).
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { gzipSync } from "node:zlib";
import { BUNDLE, PACKAGE_DIR } from "./build.mjs";

export const BUDGET_BYTES = 8 * 1024;

if (!existsSync(BUNDLE)) {
  console.error(
    `sdk/client: ${relative(PACKAGE_DIR, BUNDLE)} is missing; run node sdk/client/scripts/build.mjs first`,
  );
  process.exit(1);
}
const raw = readFileSync(BUNDLE);
const gzipped = gzipSync(raw, { level: 9 }).length;
const ok = gzipped <= BUDGET_BYTES;
console.log(
  `sdk/client esm  ${relative(PACKAGE_DIR, BUNDLE)}: ${raw.length} B, ${gzipped} B gzipped (budget ${BUDGET_BYTES} B) ${ok ? "ok" : "OVER BUDGET"}`,
);
if (!ok) process.exit(1);
