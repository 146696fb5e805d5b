// Bulk statistics for benchmarks: daily rollup rows (video_stats, ad_stats, viewer_stats,
// ecommerce_stats) over the year before the reference day, for the bulk organizations' videos,
// loaded into the LOCAL statistics database (binding STATS_DB) in chunked SQL files, then their
// totals (per content key and day and month, per organization and day, running per content key) summed
// from them, as the queue consumer would have kept them. Deterministic for a seed.
//
//   npm run seed:bulk -- --videos 10000 --stats-rows 1000000     (seed-bulk calls seedStats)
//   node scripts/bulk/stats.mjs --rows 1000000 [--orgs bulk1,bulk2] [--seed 1] [--now ISO]
//
// Standalone, it reads the organizations (default: every bulk* one) and their listable videos
// from the local catalog database and REPLACES their statistics; statistics of organizations no
// longer in the catalog (left by `seed:bulk --reset`) are deleted too. Shape of the data:
// - rows per organization in proportion to its listable videos; per table about 55% video,
//   25% ad, 12% viewer (only with viewer_analytics), 8% ecommerce (only with ecommerce) —
//   the shares of the tables an organization cannot have go to video and ad rows;
// - per day a weekly rhythm, videos drawn by popularity (Zipf over the org's videos, only
//   those published by then), each row a distinct dimension combination (country, device,
//   player; ad creative/system/position; viewer fingerprint/tput/ip; ecommerce item);
// - viewers come from a pool of 20,000 per organization: fingerprint fp-<n>, tput user-<n>
//   for every other one, stored as the worker's hashTput (SHA-256 of tput:v1:<org id>:<tput>),
//   so `tput=user-2` works in E10; ecommerce items item-1..item-40 exist in ecommerce_items.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { AD_COUNTERS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS, VIEWER_COUNTERS } from "../lib/rules.mjs";
import { ROLLUPS, rebuildTotals } from "../stats-totals.mjs";
import { d1ExecFile, d1Query, d1Rows } from "./d1.mjs";
import { rng, Zipf } from "./random.mjs";
import { insertStatements, lit } from "./sql.mjs";

const DAY = 86_400_000;
const DAYS = 365;
const STATEMENT_BYTES = 8_000; // see scripts/bulk/catalog.mjs: wrangler's splitter is quadratic
const VIEWER_POOL = 20_000;
const ECOMMERCE_ITEMS = 40;

/** Same scheme as src/domain/stats/viewers.ts hashTput. */
export const tputHash = (organizationId, tput) =>
  createHash("sha256").update(`tput:v1:${organizationId}:${tput}`, "utf8").digest("hex");

const COUNTRIES = [
  ["USA", "US", 30],
  ["GBR", "GB", 12],
  ["DEU", "DE", 10],
  ["FRA", "FR", 8],
  ["NLD", "NL", 5],
  ["ESP", "ES", 5],
  ["ITA", "IT", 5],
  ["CAN", "CA", 5],
  ["BRA", "BR", 5],
  ["IND", "IN", 5],
  ["JPN", "JP", 4],
  ["AUS", "AU", 3],
  ["none", "none", 3],
];
const DEVICES = [
  ["Desktop", 40],
  ["Mobile", 40],
  ["Tablet", 8],
  ["TV", 8],
  ["Other", 4],
];
const PLAYERS = [
  ["player-1", 50],
  ["player-2", 25],
  ["player-3", 10],
  ["none", 15],
];
const AD_SYSTEMS = [
  ["vast", 50],
  ["ima", 30],
  ["vpaid", 10],
  ["none", 10],
];
const AD_POSITIONS = [
  ["preroll", 70],
  ["midroll", 30],
];

/**
 * The daily rows' tables: their dimension columns, and their counters as the service counts them
 * (src/shared/counters.ts, through scripts/lib/rules.mjs).
 */
export const TABLES = {
  video_stats: {
    dims: ["country", "video_device_type", "video_player_id"],
    counters: VIDEO_COUNTERS,
  },
  ad_stats: {
    dims: [
      "ad_country",
      "ad_creative",
      "ad_device_type",
      "ad_player_id",
      "ad_position",
      "ad_system",
    ],
    counters: AD_COUNTERS,
  },
  viewer_stats: {
    dims: ["country", "device_type", "ip", "fingerprint", "tput_hash", "ad_position"],
    counters: VIEWER_COUNTERS,
  },
  ecommerce_stats: {
    dims: ["ecommerce_key", "device_type"],
    counters: ECOMMERCE_COUNTERS,
  },
};
const TABLE_NAMES = Object.keys(TABLES);

/** Share of an organization's rows per table, given what it is entitled to. */
function tableShares(entitlements) {
  const viewer = entitlements.includes("viewer_analytics") ? 0.12 : 0;
  const ecommerce = entitlements.includes("ecommerce") ? 0.08 : 0;
  const rest = 1 - viewer - ecommerce;
  return {
    video_stats: rest * (55 / 80),
    ad_stats: rest * (25 / 80),
    viewer_stats: viewer,
    ecommerce_stats: ecommerce,
  };
}

const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/**
 * How each counter follows from a row's size n (its impressions, or its viewer's events): a
 * share [lo, hi] of another counter of the row (or of n where the row has no such counter), or
 * a function of them. Plausible funnels in small integers. A counter the service adds needs a
 * rule here: without one, generating its rows throws (test/unit/lists.test.ts).
 */
const RULES = {
  thumbnail_view: ["n", 1, 2],
  video_impression: ["n", 1, 1],
  video_played: ["video_impression", 0.4, 0.85],
  played_1s: ["video_played", 0.9, 1],
  played_3s: ["played_1s", 0.8, 0.95],
  played_15s: ["played_3s", 0.5, 0.8],
  played_30s: ["played_15s", 0.5, 0.8],
  played_25percent: ["video_played", 0.6, 0.8],
  played_50percent: ["played_25percent", 0.6, 0.8],
  played_75percent: ["played_50percent", 0.6, 0.85],
  video_ended: ["played_75percent", 0.6, 0.9],
  video_autoplay: ["video_played", 0.1, 0.4],
  video_muted: ["video_played", 0.05, 0.2],
  video_unmuted: ["video_muted", 0.3, 0.8],
  video_played_muted: ["video_played", 0.1, 0.4],
  video_played_unmuted: (c) => c("video_played") - c("video_played_muted"),
  video_caption_enabled: ["video_played", 0, 0.1],
  video_pause: ["video_played", 0.1, 0.4],
  video_resume: ["video_pause", 0.6, 0.95],
  // The viewer row's names for the same two.
  video_paused: ["video_played", 0.1, 0.4],
  video_resumed: ["video_paused", 0.6, 0.95],
  video_docked: ["video_played", 0, 0.1],
  video_undocked: ["video_docked", 0.8, 1],
  video_entered_fullscreen: ["video_played", 0.02, 0.15],
  video_exited_fulscreen: ["video_entered_fullscreen", 0.8, 1],
  ad_impression: ["n", 1, 1],
  ad_25: ["ad_impression", 0.7, 0.95],
  ad_50: ["ad_25", 0.7, 0.95],
  ad_75: ["ad_50", 0.7, 0.95],
  ad_100: ["ad_75", 0.7, 0.95],
  ad_done: ["ad_100", 0.9, 1],
  ad_skip: ["ad_impression", 0.05, 0.3],
  ad_autoplayed: ["ad_impression", 0.1, 0.4],
  ad_muted: ["ad_impression", 0.02, 0.1],
  ad_unmuted: ["ad_muted", 0.3, 0.8],
  ad_played_muted: ["ad_impression", 0.1, 0.4],
  ad_played_unmuted: (c) => Math.max(0, c("ad_impression") - c("ad_played_muted")),
  ad_paused: ["ad_impression", 0, 0.1],
  ad_resumed: ["ad_paused", 0.6, 1],
  ad_clicked: ["ad_impression", 0, 0.05],
  ecommerce_visible: (_c, n) => Math.max(1, n),
  ecommerce_clicked: ["ecommerce_visible", 0.02, 0.2],
  ecommerce_hidden: ["ecommerce_visible", 0, 0.1],
  ecommerce_bar_shown: ["ecommerce_visible", 0.3, 1],
  ecommerce_bar_hidden: ["ecommerce_bar_shown", 0, 0.3],
};

/** The counters of one row of `table` from its size n, in the table's column order. */
export function counters(table, n, r) {
  const names = TABLES[table].counters;
  const values = new Map();
  const count = (name) => {
    if (!names.includes(name)) return n;
    if (!values.has(name)) {
      const rule = RULES[name];
      if (!rule) throw new Error(`scripts/bulk/stats.mjs has no rule for the counter ${name}`);
      const [base, lo, hi] = Array.isArray(rule) ? rule : [];
      const value = base ? Math.round(count(base) * (lo + r.next() * (hi - lo))) : rule(count, n);
      values.set(name, value);
    }
    return values.get(name);
  };
  return names.map(count);
}

/** Dimension values of one row (distinctness per day is checked by the caller). */
function dimensions(table, r, orgId) {
  const country = r.weighted(COUNTRIES.map((c) => [c, c[2]]));
  const device = r.weighted(DEVICES);
  switch (table) {
    case "video_stats":
      return [country[0], device, r.weighted(PLAYERS)];
    case "ad_stats":
      return [
        country[1],
        `creative-${r.int(1, 30)}`,
        device,
        r.weighted(PLAYERS),
        r.weighted(AD_POSITIONS),
        r.weighted(AD_SYSTEMS),
      ];
    case "viewer_stats": {
      const v = r.int(1, VIEWER_POOL);
      const position = r.chance(0.7) ? "none" : r.weighted(AD_POSITIONS);
      return [
        country[0],
        device,
        `198.51.${(v >> 8) & 255}.${v & 255}`,
        `fp-${v}`,
        v % 2 === 0 ? tputHash(orgId, `user-${v}`) : "none",
        position,
      ];
    }
    default:
      return [r.chance(0.2) ? "none" : `item-${r.int(1, ECOMMERCE_ITEMS)}`, device];
  }
}

/** How many of the videos (sorted by publishedAt) were published before `endIso`. */
function publishedBy(videos, endIso) {
  let lo = 0;
  let hi = videos.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (videos[mid].publishedAt < endIso) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rows of one organization, table and day. Videos are drawn by popularity among those
 * published by the end of the day; a drawn (video, dimensions) already used is drawn again.
 */
function dayRows(org, table, dayMs, count, seed) {
  const r = rng(seed, "stats", org.id, table, dayMs);
  const available = publishedBy(org.videos, new Date(dayMs + DAY).toISOString());
  if (available === 0) return [];
  const zipf = org.zipf(available);
  const day = isoDay(dayMs);
  const seen = new Set();
  const rows = [];
  for (let attempts = 0; rows.length < count && attempts < count * 4; attempts++) {
    // Popularity by rank among published videos, newest first (new videos are watched more).
    const video = org.videos[available - 1 - zipf.sample(r)];
    const dims = dimensions(table, r, org.id);
    const key = `${video.contentKey}\u0000${dims.join("\u0000")}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const n = 1 + Math.floor(60 * Math.pow(r.next(), 4));
    rows.push([org.id, day, video.contentKey, ...dims, ...counters(table, n, r)]);
  }
  return rows;
}

/** Rows per day for a yearly total: a weekly rhythm (weekends +20%) and ±15% noise. */
function dailyCounts(total, firstDayMs, seed, label) {
  const r = rng(seed, "daily", label);
  const weights = Array.from({ length: DAYS }, (_, i) => {
    const weekday = new Date(firstDayMs + i * DAY).getUTCDay();
    return (weekday === 0 || weekday === 6 ? 1.2 : 1) * (0.85 + 0.3 * r.next());
  });
  const sum = weights.reduce((a, b) => a + b, 0);
  let carry = 0;
  return weights.map((w) => {
    const exact = (total * w) / sum + carry;
    const n = Math.floor(exact);
    carry = exact - n;
    return n;
  });
}

/** Every table of the statistics database that carries an organization id. */
const TOTALS_TABLES = Object.keys(ROLLUPS).flatMap((k) => [
  `${k}_day_totals`,
  `${k}_month_totals`,
  `${k}_org_day_totals`,
  `${k}_running_totals`,
  `${k}_totals_keys`,
]);
const ORG_TABLES = [
  ...TABLE_NAMES,
  ...TOTALS_TABLES,
  "ecommerce_items",
  "dimension_values",
  "dimension_counts",
  "ingestion_days",
  "dead_letters",
];

/** Deletes the statistics of these organizations and of any not in `catalogIds` (orphans). */
function statsDeleteSql(orgIds, catalogIds) {
  const ids = orgIds.join(", ");
  const known = catalogIds.join(", ");
  return ORG_TABLES.map(
    (t) =>
      `DELETE FROM ${t} WHERE organization_id IN (${ids}) OR organization_id NOT IN (${known});`,
  ).join(" ");
}

function itemStatements(org, nowIso) {
  const rows = Array.from({ length: ECOMMERCE_ITEMS }, (_, i) => [
    org.id,
    `item-${i + 1}`,
    `https://shop.example/${org.organizationKey}/item-${i + 1}`,
    `Item ${i + 1}`,
    nowIso,
    nowIso,
  ]);
  return insertStatements(
    "ecommerce_items",
    [
      "organization_id",
      "ecommerce_key",
      "ecommerce_link",
      "ecommerce_name",
      "created_at",
      "updated_at",
    ],
    rows,
    {
      maxBytes: STATEMENT_BYTES,
    },
  ).map((s) => s.replace(/;$/, " ON CONFLICT (organization_id, ecommerce_key) DO NOTHING;"));
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Writes about `rows` daily rows for `orgs` ([{ id, organizationKey, entitlements, videos:
 * [{ contentKey, publishedAt }] }], the shape scripts/seed-bulk.mjs passes) into the local D1.
 * `now` (ms) is the reference time: the year of statistics ends the UTC day before it.
 * Replaces any statistics these organizations already have.
 */
export async function seedStats({
  orgs,
  rows,
  seed = 1,
  now = Date.now(),
  persistTo,
  chunkRows = 50_000,
  keepSql,
} = {}) {
  const started = Date.now();
  const d1 = { persistTo, binding: "STATS_DB" };
  const withVideos = orgs
    .map((o) => ({
      ...o,
      videos: [...o.videos].sort((a, b) =>
        a.publishedAt < b.publishedAt ? -1 : a.publishedAt > b.publishedAt ? 1 : 0,
      ),
    }))
    .filter((o) => o.videos.length > 0);
  if (withVideos.length === 0)
    throw new Error("no organization has listable videos to count statistics for");
  // Zipf samplers per number of published videos, reused across days.
  for (const o of withVideos) {
    const cache = new Map();
    o.zipf = (n) => {
      if (!cache.has(n)) {
        if (cache.size > 64) cache.clear();
        cache.set(n, new Zipf(n, 0.9));
      }
      return cache.get(n);
    };
  }
  const totalVideos = withVideos.reduce((n, o) => n + o.videos.length, 0);
  const todayMs = Math.floor(now / DAY) * DAY;
  const firstDayMs = todayMs - DAYS * DAY;
  const plan = withVideos.map((o) => {
    const orgRows = Math.round((rows * o.videos.length) / totalVideos);
    const shares = tableShares(o.entitlements ?? []);
    return {
      org: o,
      perTable: Object.fromEntries(
        TABLE_NAMES.map((t) => [
          t,
          dailyCounts(Math.round(orgRows * shares[t]), firstDayMs, seed, `${o.id}:${t}`),
        ]),
      ),
    };
  });
  console.log(
    `Statistics: about ${rows} daily rows for ${withVideos.map((o) => `${o.organizationKey} (${o.videos.length} videos)`).join(", ")}, ` +
      `${isoDay(firstDayMs)} to ${isoDay(todayMs - DAY)} (seed ${seed}).`,
  );

  // The bulk organizations are created on statistics shard 0 (STATS_DB), where this loads.
  const moved = await d1Rows(
    `SELECT organization_key FROM organizations WHERE stats_shard <> 0 AND id IN (${withVideos.map((o) => Number(o.id)).join(", ")})`,
    { persistTo },
  );
  if (moved.length)
    throw new Error(
      `bulk statistics load into shard 0 (STATS_DB); ${moved.map((r) => r.organization_key).join(", ")} moved to another shard`,
    );

  process.stdout.write(
    "Deleting their existing statistics (and those of organizations no longer in the catalog)... ",
  );
  let t = Date.now();
  const catalogIds = (await d1Rows("SELECT id FROM organizations", { persistTo })).map((r) => r.id);
  await d1Query(
    statsDeleteSql(
      withVideos.map((o) => o.id),
      catalogIds,
    ),
    d1,
  );
  console.log(seconds(Date.now() - t));

  const dir = keepSql ?? mkdtempSync(join(tmpdir(), "video-catalog-stats-"));
  mkdirSync(dir, { recursive: true });
  const written = Object.fromEntries(TABLE_NAMES.map((tb) => [tb, 0]));
  const nowIso = new Date(now).toISOString();
  let statements = withVideos
    .filter((o) => (o.entitlements ?? []).includes("ecommerce"))
    .flatMap((o) => itemStatements(o, nowIso));
  let pendingRows = 0;
  let fileIndex = 0;
  let pending = null;
  const flush = async () => {
    if (statements.length === 0) return;
    const file = join(dir, `stats-${String(fileIndex++).padStart(4, "0")}.sql`);
    writeFileSync(file, statements.join("\n") + "\n");
    const label = `file ${fileIndex} (${pendingRows} rows)`;
    statements = [];
    pendingRows = 0;
    if (pending) await pending;
    const t0 = Date.now();
    pending = d1ExecFile(file, d1).then(() => {
      console.log(`  ${label} loaded in ${seconds(Date.now() - t0)}`);
      if (!keepSql) rmSync(file, { force: true });
    });
  };

  const loadStarted = Date.now();
  try {
    for (let d = 0; d < DAYS; d++) {
      const dayMs = firstDayMs + d * DAY;
      for (const { org, perTable } of plan) {
        for (const table of TABLE_NAMES) {
          const count = perTable[table][d];
          if (!count) continue;
          const dayRowsOut = dayRows(org, table, dayMs, count, seed);
          if (dayRowsOut.length === 0) continue;
          const spec = TABLES[table];
          statements.push(
            ...insertStatements(
              table,
              ["organization_id", "date", "content_key", ...spec.dims, ...spec.counters],
              dayRowsOut,
              { maxBytes: STATEMENT_BYTES },
            ),
          );
          written[table] += dayRowsOut.length;
          pendingRows += dayRowsOut.length;
        }
      }
      if (pendingRows >= chunkRows) await flush();
    }
    await flush();
    if (pending) await pending;
  } catch (err) {
    throw new Error(
      `${err.message}\nThe files loaded before this one stay in the database; run again to replace them.`,
    );
  } finally {
    if (!keepSql) rmSync(dir, { recursive: true, force: true });
  }
  const loadMs = Date.now() - loadStarted;
  t = Date.now();
  await rebuildTotals({ orgIds: withVideos.map((o) => o.id), persistTo });
  const totalsMs = Date.now() - t;
  t = Date.now();
  await d1Query("ANALYZE; PRAGMA optimize;", d1);
  const total = Object.values(written).reduce((a, b) => a + b, 0);
  console.log(
    `Loaded ${total} statistics rows (${TABLE_NAMES.map((tb) => `${tb} ${written[tb]}`).join(", ")}) in ${fileIndex} files: ` +
      `load ${seconds(loadMs)}, totals ${seconds(totalsMs)}, ANALYZE ${seconds(Date.now() - t)}, total ${seconds(Date.now() - started)}.` +
      (keepSql ? ` SQL kept in ${dir}.` : ""),
  );
  return { rows: written, total, loadMs, files: fileIndex };
}

// ---------------------------------------------------------------------------------------------
// Standalone: node scripts/bulk/stats.mjs --rows N

const USAGE = `Usage: node scripts/bulk/stats.mjs --rows N [options]

Replaces the statistics of organizations in the LOCAL statistics database (STATS_DB) with about
N generated daily rows over the year before the reference day, and their totals (for
bench/stats.mjs). Organizations and videos are read from the local catalog database (DB).

  --rows N          daily rows in all (required; e.g. 1000000)
  --orgs a,b        organization keys (default: every bulk* organization, see npm run seed:bulk)
  --seed S          PRNG seed (default 1)
  --now ISO         reference time (default now): the year ends the UTC day before it
  --chunk-rows R    rows per SQL file (default 50000; one wrangler run per file)
  --keep-sql DIR    keep the generated SQL files in DIR
  --persist-to DIR  wrangler's --persist-to (default: wrangler's .wrangler/state)`;

async function organizationsFromDb(keys, d1) {
  const where = keys
    ? `organization_key IN (${keys.map(lit).join(", ")})`
    : "organization_key GLOB 'bulk[0-9]*'";
  const orgs = await d1Rows(
    `SELECT id, organization_key, entitlements FROM organizations WHERE ${where} ORDER BY id`,
    d1,
  );
  if (orgs.length === 0) {
    throw new Error(
      keys
        ? `none of ${keys.join(", ")} is in the local database`
        : "no bulk organizations in the local database: run `npm run seed:bulk -- --videos 10000` first",
    );
  }
  const videos = await d1Rows(
    `SELECT organization_id AS o, content_key AS k, published_at AS p FROM contents
     WHERE organization_id IN (${orgs.map((o) => o.id).join(", ")}) AND status = 'available' AND removed = 0 ORDER BY published_at`,
    d1,
  );
  return orgs.map((o) => ({
    id: o.id,
    organizationKey: o.organization_key,
    entitlements: JSON.parse(o.entitlements),
    videos: videos.filter((v) => v.o === o.id).map((v) => ({ contentKey: v.k, publishedAt: v.p })),
  }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        rows: { type: "string" },
        orgs: { type: "string" },
        seed: { type: "string", default: "1" },
        now: { type: "string" },
        "chunk-rows": { type: "string", default: "50000" },
        "keep-sql": { type: "string" },
        "persist-to": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    if (
      !/^\d+$/.test(values.rows ?? "") ||
      Number(values.rows) < 1 ||
      Number(values.rows) > 100_000_000
    )
      throw new Error("--rows N (1 to 100000000) is required");
    if (!/^\d+$/.test(values["chunk-rows"]) || Number(values["chunk-rows"]) < 1000)
      throw new Error("--chunk-rows must be an integer >= 1000");
    if (values.now !== undefined && Number.isNaN(Date.parse(values.now)))
      throw new Error("--now must be an ISO 8601 time");
  } catch (err) {
    console.error(`${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  const d1 = { persistTo: values["persist-to"] };
  organizationsFromDb(
    values.orgs
      ? values.orgs
          .split(",")
          .map((k) => k.trim())
          .filter(Boolean)
      : null,
    d1,
  )
    .then((orgs) =>
      seedStats({
        orgs,
        rows: Number(values.rows),
        seed: values.seed,
        now: values.now ? Date.parse(values.now) : Date.now(),
        persistTo: values["persist-to"],
        chunkRows: Number(values["chunk-rows"]),
        keepSql: values["keep-sql"],
      }),
    )
    .then(
      () => process.exit(0),
      (err) => {
        console.error(`stats seeding failed: ${err.message}`);
        process.exit(1);
      },
    );
}
