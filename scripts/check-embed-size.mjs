// Prints the gzipped size of the embeddable player's files (what /embed/{contentKey} loads
// besides its page) and fails over the budget. Usage: node scripts/check-embed-size.mjs (after
// npm run build). `npm run size:embed`. Most of it is hls.js light; the full build (subtitles,
// EME, alternate audio) would not fit, which is why the embed's captions are <track>s.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { PUBLIC_DIR } from "./build-assets.mjs";

export const BUDGET_BYTES = 128 * 1024;
const FILES = ["player.js", "player.css"];

let total = 0;
for (const file of FILES) {
  const path = join(PUBLIC_DIR, "embed", file);
  if (!existsSync(path)) {
    console.error(`embed: ${file} is missing; run npm run build first`);
    process.exit(1);
  }
  const raw = readFileSync(path);
  const gzipped = gzipSync(raw, { level: 9 }).length;
  total += gzipped;
  console.log(`embed ${file}: ${raw.length} B, ${gzipped} B gzipped`);
}
const ok = total <= BUDGET_BYTES;
console.log(
  `embed total: ${total} B gzipped (budget ${BUDGET_BYTES} B) ${ok ? "ok" : "OVER BUDGET"}`,
);
if (!ok) process.exit(1);
