// Bundles the worker as `wrangler deploy` would (--dry-run: nothing is uploaded, no account
// needed), prints its size and fails when the gzipped bundle is over its budget. Run by CI.
// Usage: node scripts/check-worker-bundle.mjs [--budget-kib N]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { runWrangler } from "./lib/wrangler.mjs";

/** Workers allow 3 MB (free) / 10 MB (paid) gzipped; the budget catches bloat long before. */
const DEFAULT_BUDGET_KIB = 420;

const { values } = parseArgs({ options: { "budget-kib": { type: "string" } } });
const budget = Number(values["budget-kib"] ?? DEFAULT_BUDGET_KIB);
const outdir = mkdtempSync(join(tmpdir(), "worker-bundle-"));
// `wrangler deploy --dry-run` builds the [[containers]] images (Docker), which have no part in
// the worker's bundle: it runs on wrangler.toml without those tables, a file beside it (its
// relative paths stay right), removed afterwards.
const ROOT = join(import.meta.dirname, "..");
const config = join(ROOT, ".wrangler-bundle-check.toml");
writeFileSync(
  config,
  readFileSync(join(ROOT, "wrangler.toml"), "utf8").replace(
    /^\[\[containers\]\][\s\S]*?(?=^\[)/gm,
    "",
  ),
);
try {
  await runWrangler(["deploy", "--dry-run", "--outdir", outdir, "--config", config], {
    quiet: true,
  });
  const bundle = readFileSync(join(outdir, "index.js"));
  const kib = (n) => (n / 1024).toFixed(1);
  const gzipped = gzipSync(bundle, { level: 9 }).byteLength;
  console.log(
    `worker bundle: ${kib(bundle.byteLength)} KiB, ${kib(gzipped)} KiB gzipped (budget ${budget} KiB gzipped)`,
  );
  if (gzipped > budget * 1024) {
    console.error(
      `worker bundle is over its budget by ${kib(gzipped - budget * 1024)} KiB gzipped`,
    );
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
  rmSync(config, { force: true });
}
