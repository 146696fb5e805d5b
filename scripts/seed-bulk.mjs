// Bulk catalog for benchmarks: fills the LOCAL D1 database with organizations bulk1..bulkK and
// N videos (names, custom fields, service categories, syndication windows, feeds), generated
// deterministically from --seed, then ANALYZEs and prints what it loaded.
//
//   npm run seed:bulk -- --videos 10000 [--orgs 5] [--feeds 0] [--seed 1] [--reset]
//
// See docs/benchmarks.md. The catalog itself is described in scripts/bulk/catalog.mjs.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  BULK_ORG_GLOB,
  collectLabels,
  feedStatements,
  generateVideo,
  organizationStatements,
  planCatalog,
  STATEMENT_BYTES,
  videoStatements,
} from "./bulk/catalog.mjs";
import { d1ExecFile, d1Query, d1Rows, localDatabaseBytes } from "./bulk/d1.mjs";
import { applyMigrations, ROOT } from "./lib/wrangler.mjs";

const USAGE = `Usage: npm run seed:bulk -- --videos N [options]

Fills the LOCAL D1 database (the one \`npm run dev\` serves) with a generated catalog.

  --videos N        videos to create (required)
  --orgs K          organizations bulk1..bulkK (default 5; bulk1 gets ~40% of the videos)
  --feeds F         feeds to create (default 0)
  --seed S          PRNG seed (default 1): same seed, same reference day, same catalog
  --now ISO         reference time (default: today 00:00 UTC); dates spread over the 2 years before it
  --reset           delete the existing bulk organizations (and, by cascade, all their rows) first
  --chunk V         videos per SQL file (default 5000; one wrangler run and one transaction per file)
  --statement-bytes B  bytes per INSERT statement (default 8000; see STATEMENT_BYTES in scripts/bulk/catalog.mjs)
  --stats-rows R    also call seedStats({ orgs, rows: R }) of scripts/bulk/stats.mjs
  --keep-sql DIR    keep the generated SQL files in DIR
  --persist-to DIR  wrangler's --persist-to (default: wrangler's .wrangler/state)

Organizations: bulkN, sync code bulkN-sync, API key bulkN-key, API secret bulkN-secret,
API token bulkN-token, sub-organization MMI key bulkN-mmi, all in network bulk-network.`;

const BULK_ORGS = `SELECT id FROM organizations WHERE organization_key GLOB '${BULK_ORG_GLOB}'`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      videos: { type: "string" },
      orgs: { type: "string", default: "5" },
      feeds: { type: "string", default: "0" },
      seed: { type: "string", default: "1" },
      now: { type: "string" },
      reset: { type: "boolean", default: false },
      chunk: { type: "string", default: "5000" },
      "statement-bytes": { type: "string", default: String(STATEMENT_BYTES) },
      "stats-rows": { type: "string" },
      "keep-sql": { type: "string" },
      "persist-to": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { help: true };
  const integer = (name, min, max) => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new Error(
        `--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`,
      );
    }
    return Number(raw);
  };
  const videos = integer("videos", 0, 10_000_000);
  if (videos === undefined) throw new Error("--videos N is required");
  let now;
  if (values.now !== undefined) {
    now = Date.parse(values.now);
    if (Number.isNaN(now))
      throw new Error(`--now must be an ISO 8601 time, got ${JSON.stringify(values.now)}`);
  } else {
    const today = new Date();
    now = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  }
  return {
    videos,
    orgs: integer("orgs", 1, 999),
    feeds: integer("feeds", 0, 1_000_000),
    seed: values.seed,
    now,
    reset: values.reset,
    chunk: integer("chunk", 1, 1_000_000),
    statementBytes: integer("statement-bytes", 1000, 100_000),
    statsRows: integer("stats-rows", 0, 1_000_000_000),
    keepSql: values["keep-sql"] ? resolve(values["keep-sql"]) : null,
    persistTo: values["persist-to"] ? resolve(values["persist-to"]) : undefined,
  };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The highest id in use per table (AUTOINCREMENT never reuses ids, so sqlite_sequence counts too). */
async function baseIds(d1) {
  const tables = [
    "organizations",
    "sub_organizations",
    "api_tokens",
    "contents",
    "labels",
    "syndications",
    "feeds",
  ];
  const [row] = await d1Rows(
    `SELECT ${tables
      .map(
        (t) =>
          `max(coalesce((SELECT max(id) FROM ${t}), 0), coalesce((SELECT seq FROM sqlite_sequence WHERE name = '${t}'), 0)) AS ${t}`,
      )
      .join(", ")}`,
    d1,
  );
  return row;
}

async function summarize(d1) {
  const tables = [
    "organizations",
    "sub_organizations",
    "api_tokens",
    "contents",
    "labels",
    "content_labels",
    "content_custom_fields",
    "syndications",
    "feeds",
    "listing_counts",
  ];
  const bulkContents = `SELECT id FROM contents WHERE organization_id IN (${BULK_ORGS})`;
  const [totals, perOrg, subOrgs, copies] = await d1Query(
    [
      // One row of subqueries: D1 caps the terms of a compound SELECT (UNION ALL).
      `SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(", ")},
         (SELECT count(*) FROM contents_fts_docsize) AS "contents_fts (docsize)";`,
      `SELECT o.organization_key AS org, o.plan AS plan, count(c.id) AS videos,
         coalesce(sum(c.status = 'available' AND c.removed = 0), 0) AS listable,
         (SELECT videos FROM listing_counts lc WHERE lc.organization_id = o.id AND lc.sub_organization_id = 0) AS listing_count,
         (SELECT count(*) FROM labels l WHERE l.organization_id = o.id) AS labels,
         (SELECT count(*) FROM feeds f WHERE f.organization_id = o.id) AS feeds
       FROM organizations o LEFT JOIN contents c ON c.organization_id = o.id
       WHERE o.organization_key GLOB '${BULK_ORG_GLOB}' GROUP BY o.id ORDER BY o.id;`,
      `SELECT s.mmi_key AS sub_org,
         (SELECT count(*) FROM contents c WHERE c.sub_organization_id = s.id AND c.status = 'available' AND c.removed = 0) AS listable,
         (SELECT videos FROM listing_counts lc WHERE lc.organization_id = s.organization_id AND lc.sub_organization_id = s.id) AS listing_count
       FROM sub_organizations s WHERE s.organization_id IN (${BULK_ORGS}) ORDER BY s.id;`,
      `SELECT
         (SELECT count(*) FROM content_labels WHERE content_id IN (${bulkContents})) AS label_links,
         (SELECT coalesce(sum(json_array_length(categories) + json_array_length(tags) + json_array_length(events)), 0)
            FROM contents WHERE id IN (${bulkContents})) AS json_names,
         (SELECT count(*) FROM content_custom_fields WHERE content_id IN (${bulkContents})) AS field_rows,
         (SELECT coalesce(sum(json_array_length(custom_fields)), 0) FROM contents WHERE id IN (${bulkContents})) AS json_fields;`,
    ].join("\n"),
    d1,
  );
  return {
    totals: Object.entries(totals[0]).map(([name, total]) => ({ name, total })),
    perOrg,
    subOrgs,
    copies: copies[0],
  };
}

function printSummary({ totals, perOrg, subOrgs, copies }, bytes) {
  const pad = (s, n) => String(s).padEnd(n);
  const padl = (s, n) => String(s).padStart(n);
  console.log("\nRows per table (whole database):");
  for (const { name, total } of totals) console.log(`  ${pad(name, 24)}${padl(total, 10)}`);
  if (bytes !== null)
    console.log(`  ${pad("database file + WAL", 24)}${padl(megabytes(bytes), 10)}`);
  console.log("\nBulk organizations:");
  console.log(
    `  ${pad("org", 8)}${pad("plan", 12)}${padl("videos", 8)}${padl("listable", 10)}${padl("listing_counts", 16)}${padl("labels", 8)}${padl("feeds", 7)}`,
  );
  const mismatches = [];
  for (const o of perOrg) {
    console.log(
      `  ${pad(o.org, 8)}${pad(o.plan, 12)}${padl(o.videos, 8)}${padl(o.listable, 10)}${padl(o.listing_count ?? "-", 16)}${padl(o.labels, 8)}${padl(o.feeds, 7)}`,
    );
    if ((o.listing_count ?? 0) !== o.listable)
      mismatches.push(`${o.org}: listing_counts ${o.listing_count} vs ${o.listable} listable`);
  }
  for (const s of subOrgs) {
    if ((s.listing_count ?? 0) !== s.listable)
      mismatches.push(`${s.sub_org}: listing_counts ${s.listing_count} vs ${s.listable} listable`);
  }
  console.log(
    mismatches.length
      ? `\nlisting_counts MISMATCH:\n  ${mismatches.join("\n  ")}`
      : `\nlisting_counts matches count(*) of listable videos for every bulk organization and sub-organization.`,
  );
  const copiesOk =
    copies.label_links === copies.json_names && copies.field_rows === copies.json_fields;
  console.log(
    `${copiesOk ? "Denormalized copies agree" : "Denormalized copies DISAGREE"}: ${copies.label_links} content_labels rows / ${copies.json_names} names in JSON columns, ` +
      `${copies.field_rows} content_custom_fields rows / ${copies.json_fields} customFields entries.`,
  );
  return mismatches.length === 0 && copiesOk;
}

/** What seedStats receives: the organizations with their listable videos. */
function statsOrganizations(plan, listable) {
  return plan.organizations.map((o) => ({
    id: o.id,
    organizationKey: o.organizationKey,
    syncCode: o.syncCode,
    plan: o.plan,
    entitlements: o.entitlements,
    subOrganizationId: o.subOrganizationId,
    mmiKey: o.mmiKey,
    videos: listable[o.n - 1],
  }));
}

export async function seedBulk(options) {
  const started = Date.now();
  const d1 = { persistTo: options.persistTo };
  const statsModule = join(ROOT, "scripts", "bulk", "stats.mjs");
  if (options.statsRows !== undefined && !existsSync(statsModule)) {
    throw new Error(
      "--stats-rows needs scripts/bulk/stats.mjs (exporting seedStats), which does not exist yet",
    );
  }

  // A fresh clone has no local database yet: prepare it as `npm run dev` does (idempotent).
  const migrated = await applyMigrations({ persistTo: options.persistTo });
  for (const [binding, names] of Object.entries(migrated)) {
    if (names.length)
      console.log(
        `Applied ${names.length} D1 migration(s) to the local ${binding}: ${names.join(", ")}`,
      );
  }
  const [{ n: existing }] = await d1Rows(
    `SELECT count(*) AS n FROM organizations WHERE organization_key GLOB '${BULK_ORG_GLOB}'`,
    d1,
  );
  if (existing > 0 && !options.reset) {
    throw new Error(
      `the local database already has ${existing} bulk organization(s) (bulk1...). ` +
        "Run again with --reset to delete them and everything they own, then load the new catalog.",
    );
  }
  if (existing > 0) {
    const t = Date.now();
    process.stdout.write(`Deleting ${existing} bulk organization(s) and their rows (cascade)... `);
    // Contents first: deleting an organization with sub-organizations cascades into a SET NULL
    // update of its contents, whose listing_counts trigger then fails (see docs/benchmarks.md).
    // One --command is one D1 batch, so both deletes commit together or not at all.
    await d1Query(
      `DELETE FROM contents WHERE organization_id IN (${BULK_ORGS}); ` +
        `DELETE FROM organizations WHERE organization_key GLOB '${BULK_ORG_GLOB}';`,
      d1,
    );
    console.log(seconds(Date.now() - t));
  }

  const ids = await baseIds(d1);
  const plan = planCatalog({
    videos: options.videos,
    orgs: options.orgs,
    feeds: options.feeds,
    seed: options.seed,
    now: options.now,
    baseIds: ids,
    statementBytes: options.statementBytes,
  });
  console.log(
    `Generating ${options.videos} videos over ${options.orgs} organizations, ${options.feeds} feeds ` +
      `(seed ${options.seed}, reference time ${new Date(options.now).toISOString()}); first content id ${ids.contents + 1}.`,
  );
  const labels = collectLabels(plan);

  const dir = options.keepSql ?? mkdtempSync(join(tmpdir(), "video-catalog-bulk-"));
  mkdirSync(dir, { recursive: true });
  const counts = {
    contents: 0,
    content_labels: 0,
    content_custom_fields: 0,
    syndications: 0,
    labels: labels.rows.length,
    feeds: options.feeds,
  };
  const listable = plan.organizations.map(() => []);
  const wantStats = options.statsRows !== undefined;
  let syndicationId = ids.syndications;

  // Files in load order: organizations and labels, video chunks, feeds. Each file is built
  // while wrangler loads the previous one.
  const chunks = [];
  for (let from = 0; from < options.videos; from += options.chunk)
    chunks.push([from, Math.min(from + options.chunk, options.videos)]);
  const files = [
    { label: "organizations, labels", build: () => organizationStatements(plan, labels.rows) },
    ...chunks.map(([from, to]) => ({
      label: `videos ${from + 1}-${to}`,
      build: () => {
        const out = videoStatements(plan, labels.ids, from, to, syndicationId);
        syndicationId = out.syndicationId;
        for (const [k, v] of Object.entries(out.counts)) counts[k] += v;
        if (wantStats) {
          for (let i = from; i < to; i++) {
            const v = generateVideo(plan, i);
            if (v.status === "available" && !v.removed) {
              listable[v.org.n - 1].push({
                id: v.id,
                contentKey: v.contentKey,
                publishedAt: v.publishedAt,
                duration: v.duration,
                subOrganizationId: v.subOrganizationId,
              });
            }
          }
        }
        return out.statements;
      },
    })),
    ...(options.feeds > 0 ? [{ label: "feeds", build: () => feedStatements(plan) }] : []),
  ];

  const loadStarted = Date.now();
  let pending = null;
  try {
    for (let i = 0; i <= files.length; i++) {
      let next = null;
      if (i < files.length) {
        const file = join(dir, `${String(i).padStart(4, "0")}.sql`);
        const sql = files[i].build().join("\n") + "\n";
        writeFileSync(file, sql);
        next = { file, label: files[i].label, bytes: Buffer.byteLength(sql), index: i };
      }
      if (pending) await pending;
      if (next) {
        const t = Date.now();
        pending = d1ExecFile(next.file, d1).then(() => {
          console.log(
            `  [${next.index + 1}/${files.length}] ${next.label}: ${megabytes(next.bytes)} in ${seconds(Date.now() - t)}`,
          );
          if (!options.keepSql) rmSync(next.file, { force: true });
        });
      } else {
        pending = null;
      }
    }
  } catch (err) {
    throw new Error(
      `${err.message}\nThe files loaded before this one stay in the database (each file is one transaction); ` +
        "run again with --reset to start over.",
    );
  } finally {
    if (!options.keepSql) rmSync(dir, { recursive: true, force: true });
  }
  const loadMs = Date.now() - loadStarted;

  const analyzeStarted = Date.now();
  await d1Query("ANALYZE; PRAGMA optimize;", d1);
  const analyzeMs = Date.now() - analyzeStarted;

  const summary = await summarize(d1);
  const ok = printSummary(summary, localDatabaseBytes(d1));
  console.log(
    `\nLoaded ${counts.contents} contents, ${counts.labels} labels, ${counts.content_labels} content_labels, ` +
      `${counts.content_custom_fields} content_custom_fields, ${counts.syndications} syndications, ${counts.feeds} feeds.` +
      `\nTime: load ${seconds(loadMs)} (${files.length} files), ANALYZE ${seconds(analyzeMs)}, total ${seconds(Date.now() - started)}.` +
      (options.keepSql ? `\nSQL files kept in ${dir}` : ""),
  );

  if (wantStats) {
    const { seedStats } = await import(pathToFileURL(statsModule).href);
    if (typeof seedStats !== "function")
      throw new Error("scripts/bulk/stats.mjs does not export seedStats");
    const t = Date.now();
    await seedStats({
      orgs: statsOrganizations(plan, listable),
      rows: options.statsRows,
      seed: options.seed,
      now: options.now,
      persistTo: options.persistTo,
    });
    console.log(`Statistics seeded in ${seconds(Date.now() - t)}.`);
  }
  return { ok, counts, loadMs, analyzeMs, totalMs: Date.now() - started, summary };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(USAGE);
    process.exit(0);
  }
  seedBulk(options).then(
    ({ ok }) => process.exit(ok ? 0 : 1),
    (err) => {
      console.error(`seed:bulk failed: ${err.message}`);
      process.exit(1);
    },
  );
}
