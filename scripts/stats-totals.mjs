// Rebuilds the statistics totals (<kind>_day_totals, <kind>_month_totals, <kind>_org_day_totals,
// <kind>_running_totals, <kind>_totals_keys, and video_lifetime_totals with no key left marked
// changed)
// from the daily rows of the statistics database (binding STATS_DB). The queue consumer keeps
// them in the transaction that writes the rows (src/domain/stats/tally.ts); rows that arrive any
// other way — the bulk statistics of the benchmark, or rows copied from the catalog database
// when upgrading a deployment from before the statistics database (docs/operations.md) — need
// their totals summed once.
//
//   node scripts/stats-totals.mjs [--orgs 1,2] [--persist-to DIR]     the local database
//   node scripts/stats-totals.mjs --remote [--orgs 1,2]               the deployed one
//
// Per run one SQL file, i.e. one transaction: the totals of the organizations are deleted and
// summed again, never half done. A large deployed database may need --orgs in parts (D1 stops a
// statement after 30 s).
//
// The SQL is not written here: the worker's own totals rule (src/db/stats/totals-rule.ts
// rebuildTotalsSql, from the rollup definitions in rollups.ts) is bundled with esbuild when the
// script runs (Node 20 does not import .ts), so the rule, the tables and the counters have one
// home.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { d1ExecFile } from "./bulk/d1.mjs";
import { withTsModule } from "./lib/ts-module.mjs";

/** The kinds of statistics, each with its daily rows `<kind>_stats` (src/db/stats/rollups.ts). */
export const ROLLUPS = {
  video: "video_stats",
  ad: "ad_stats",
  viewer: "viewer_stats",
  ecommerce: "ecommerce_stats",
};

const TOTALS_RULE = fileURLToPath(new URL("../src/db/stats/totals-rule.ts", import.meta.url));

/** SQL that replaces the totals of these organization ids (all organizations if null) with the sums of their rows. */
export async function totalsSql(orgIds = null) {
  return withTsModule(TOTALS_RULE, (rule) => rule.rebuildTotalsSql(orgIds));
}

/** The binding of statistics shard `shard` (docs/statistics.md "Shards"). */
export const shardBinding = (shard) => (shard ? `STATS_DB_${shard}` : "STATS_DB");

/** Rebuilds the totals of one shard in one transaction (one SQL file). */
export async function rebuildTotals({ orgIds = null, persistTo, remote = false, shard = 0 } = {}) {
  const d1 = { persistTo, remote, binding: shardBinding(shard) };
  const statements = await totalsSql(orgIds);
  if (statements.length === 0) return;
  const dir = mkdtempSync(join(tmpdir(), "video-catalog-totals-"));
  try {
    const file = join(dir, "totals.sql");
    writeFileSync(file, `${statements.join("\n")}\n`);
    await d1ExecFile(file, d1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USAGE = `Usage: node scripts/stats-totals.mjs [--orgs ID,ID] [--shard N] [--persist-to DIR] [--remote]

Sums the statistics totals again from the daily rows of one statistics shard (default 0,
STATS_DB; N is STATS_DB_N), for the organizations given by id (default: all of the shard), in one
transaction.`;

async function main() {
  const { values } = parseArgs({
    options: {
      orgs: { type: "string" },
      shard: { type: "string", default: "0" },
      "persist-to": { type: "string" },
      remote: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return console.log(USAGE);
  let orgIds = null;
  if (values.orgs !== undefined) {
    orgIds = values.orgs.split(",").map((v) => Number(v.trim()));
    if (orgIds.some((id) => !Number.isInteger(id) || id < 1))
      throw new Error(`--orgs takes organization ids (positive integers), got ${values.orgs}`);
  }
  const shard = Number(values.shard);
  if (!Number.isInteger(shard) || shard < 0)
    throw new Error(`--shard takes a shard number (0, 1, …), got ${values.shard}`);
  const started = Date.now();
  await rebuildTotals({ orgIds, persistTo: values["persist-to"], remote: values.remote, shard });
  console.log(
    `Totals of ${orgIds === null ? "every organization" : `organizations ${orgIds.join(", ")}`} summed from the daily rows ${values.remote ? "(remote)" : "(local)"} in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
