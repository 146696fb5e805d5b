// Statistics benchmark against a running worker loaded with bulk statistics
// (`npm run seed:bulk -- --videos 10000 --stats-rows 1000000`, or node scripts/bulk/stats.mjs):
//
// 1. ingestion: POST /v2/events batches of 500 events, sequentially (and --concurrency at once):
//    events per second through the worker and D1 rows written per batch;
// 2. every report (E7–E12) over the last 30 and 365 days of the data: D1 rows read (Server-
//    Timing) and client latency p50/p95 over --runs runs.
//
//   node bench/stats.mjs [--url http://127.0.0.1:8787] [--org bulk1] [--runs 5] [--batches 20]
//
// Loopback only; every loop is bounded. Prints markdown tables and writes
// bench/results/stats-<timestamp>.json. See docs/statistics.md.
import { performance } from "node:perf_hooks";
import { benchOptions, COMMON_USAGE } from "./lib/args.mjs";
import { d1Query, sqlString } from "./lib/local-db.mjs";
import { STANDARD_COLUMNS, failureNotes, markdownTable, writeResults } from "./lib/report.mjs";
import { checkServer, runAll } from "./lib/runner.mjs";
import { parseD1Timing } from "./lib/server-timing.mjs";
import { median, percentile } from "./lib/stats.mjs";

const USAGE = `Usage: node bench/stats.mjs [options]

${COMMON_USAGE}
  --org KEY         organization (default bulk1: every entitlement; sync code KEY-sync)
  --batches N       ingestion batches of 500 events (default 20, at most 200)
  --concurrency C   batches in flight in the concurrent ingestion run (default 4, at most 16)`;

const DAY = 86_400_000;
const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
const round = (v, d = 1) => (v === null || v === undefined ? null : Number(v.toFixed(d)));

function isLoopback(url) {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || host === "::1" || /^127\./.test(host);
}

/** The inputs of the queries, read from the local database. */
async function chooseInputs(org, d1) {
  const orgId = `(SELECT id FROM organizations WHERE organization_key = ${sqlString(org)})`;
  const [orgRows, last, topKey, viewerKey, tputRow, fpRows, keys, tagRows] = await d1Query(
    [
      `SELECT id, sync_code, entitlements FROM organizations WHERE organization_key = ${sqlString(org)};`,
      `SELECT max(date) AS last, count(*) AS n FROM video_stats WHERE organization_id = ${orgId};`,
      `SELECT content_key, count(*) AS n FROM video_stats WHERE organization_id = ${orgId} GROUP BY content_key ORDER BY n DESC LIMIT 1;`,
      `SELECT content_key, count(*) AS n FROM viewer_stats WHERE organization_id = ${orgId} GROUP BY content_key ORDER BY n DESC LIMIT 1;`,
      `SELECT fingerprint FROM viewer_stats WHERE organization_id = ${orgId} AND tput_hash <> 'none' ORDER BY date DESC LIMIT 1;`,
      `SELECT DISTINCT fingerprint FROM viewer_stats WHERE organization_id = ${orgId} ORDER BY date DESC LIMIT 3;`,
      `SELECT content_key FROM contents WHERE organization_id = ${orgId} AND status = 'available' ORDER BY id DESC LIMIT 50;`,
      `SELECT l.name AS name FROM labels l JOIN content_labels cl ON cl.label_id = l.id WHERE l.organization_id = ${orgId} AND l.kind = 'tag'
       GROUP BY l.id ORDER BY count(*) DESC LIMIT 1;`,
    ].join("\n"),
    d1,
  );
  if (orgRows.length === 0) throw new Error(`organization ${org} is not in the local database; run \`npm run seed:bulk -- --videos 10000 --stats-rows 1000000\``);
  if (!last[0]?.last) throw new Error(`organization ${org} has no statistics; run \`node scripts/bulk/stats.mjs --rows 1000000\``);
  if (keys.length === 0) throw new Error(`organization ${org} has no available content to send events for`);
  // scripts/bulk/stats.mjs: fingerprint fp-<n> belongs to tput user-<n>.
  const tput = tputRow[0] ? `user-${tputRow[0].fingerprint.slice(3)}` : null;
  return {
    org,
    syncCode: orgRows[0].sync_code,
    statsRows: last[0].n,
    lastDay: last[0].last,
    topKey: topKey[0].content_key,
    viewerKey: viewerKey[0]?.content_key ?? topKey[0].content_key,
    tput,
    fingerprints: fpRows.map((r) => r.fingerprint),
    keys: keys.map((r) => r.content_key),
    tag: tagRows[0]?.name ?? null,
  };
}

function reportQueries(inputs, days) {
  const end = inputs.lastDay;
  const start = isoDay(Date.parse(`${end}T00:00:00Z`) - (days - 1) * DAY);
  const range = `start_date=${start}&end_date=${end}`;
  const base = `organization_key=${encodeURIComponent(inputs.org)}&${range}`;
  const fp = inputs.fingerprints.map((f) => `"${f}"`).join(",");
  const analytics = `startDate=${start}&endDate=${end}`;
  const sync = { "X-Service-Sync-Code": inputs.syncCode };
  // Viewer reports need write credentials (the bulk organizations' secrets are <key>-secret).
  const write = { ...sync, "X-Service-Api-Key": `${inputs.org}-key`, "X-Service-Api-Secret": `${inputs.org}-secret` };
  const q = (name, path, headers = sync) => ({ name: `${name} (${days} d)`, path, headers });
  return [
    q("E8 video, all", `/prod/get_video_reports?${base}`),
    q("E8 video, content_key", `/prod/get_video_reports?${base}&content_key=${inputs.topKey}`),
    q("E9 combined, top 10 by video_played", `/prod/get_video_reports_combined?${base}&sort_field=video_played&column_list=video_played,played_1s&result_limit=10`),
    q("E9 combined, content_key", `/prod/get_video_reports_combined?${base}&content_key=${inputs.topKey}`),
    q("E10 viewers, dates only", `/prod/get_viewer_reports?${base}`, write),
    q("E10 viewers, content_key", `/prod/get_viewer_reports?${base}&content_key=${inputs.viewerKey}`, write),
    q("E10 viewers, fingerprint_list (3)", `/prod/get_viewer_reports?${base}&fingerprint_list=${encodeURIComponent(fp)}`, write),
    ...(inputs.tput ? [q("E10 viewers, tput", `/prod/get_viewer_reports?${base}&tput=${inputs.tput}`, write)] : []),
    q("E11 ads, all", `/prod/get_ad_reports?${base}`),
    q("E11 ads, content_key", `/prod/get_ad_reports?${base}&content_key=${inputs.topKey}`),
    q("E12 ecommerce, all + info", `/prod/get_ecommerce_reports?${base}&include_video_data=1&include_ecommerce_data=1`),
    q("E12 ecommerce, content_key", `/prod/get_ecommerce_reports?${base}&content_key=${inputs.topKey}`),
    q("E7 video summary, page 1", `/v2/analytics/video?summary&${analytics}&fields=played_1,played_30`, sync),
    q("E7 video detailed, page 1", `/v2/analytics/video?detailed&${analytics}&fields=played_1s`, sync),
    ...(inputs.tag ? [q("E7 video summary, tags filter", `/v2/analytics/video?summary&${analytics}&tags=${encodeURIComponent(inputs.tag)}`, sync)] : []),
    q("E7 viewers summary", `/v2/analytics/viewers?summary&${analytics}&fields=video_played`, sync),
  ];
}

const COUNTERS = ["video_impression", "video_played", "played_1s", "played_3s", "played_30s", "played_25percent", "video_ended", "ad_impression", "ad_done", "ecommerce_visible"];

function batchBody(inputs, b) {
  const events = Array.from({ length: 500 }, (_, i) => {
    const n = b * 500 + i;
    return {
      event: COUNTERS[n % COUNTERS.length],
      contentKey: inputs.keys[(n * 7) % inputs.keys.length],
      deviceType: ["Desktop", "Mobile", "Tablet", "TV"][n % 4],
      playerId: `player-${n % 3}`,
      fingerprint: `bench-fp-${n % 40}`,
      consent: n % 2 === 0,
    };
  });
  return JSON.stringify({ events });
}

async function postBatch(url, inputs, b) {
  const started = performance.now();
  const res = await fetch(new URL("/v2/events", url), {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Service-Sync-Code": inputs.syncCode, "CF-IPCountry": "DE", "User-Agent": "bench/stats" },
    body: batchBody(inputs, b),
    signal: AbortSignal.timeout(30_000),
  });
  const body = await res.json().catch(() => null);
  return { status: res.status, latencyMs: performance.now() - started, accepted: body?.accepted ?? 0, rejected: body?.rejected?.length ?? 0, ...parseD1Timing(res.headers.get("server-timing")) };
}

/** `batches` batches, `concurrency` in flight; wall time gives events per second. */
async function ingest(url, inputs, batches, concurrency) {
  const results = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches) results.push(await postBatch(url, inputs, next++));
    }),
  );
  const wallMs = performance.now() - started;
  const ok = results.filter((r) => r.status === 200);
  const pick = (k) => ok.map((r) => r[k]);
  return {
    name: `${batches} batches × 500 events, concurrency ${concurrency}`,
    batches,
    concurrency,
    ok: ok.length,
    accepted: ok.reduce((n, r) => n + r.accepted, 0),
    rejected: ok.reduce((n, r) => n + r.rejected, 0),
    eventsPerSecond: round((ok.reduce((n, r) => n + r.accepted, 0) / wallMs) * 1000, 0),
    rowsWrittenP50: median(pick("rowsWritten")),
    rowsWrittenMax: Math.max(...pick("rowsWritten")),
    rowsReadP50: median(pick("rowsRead")),
    queriesP50: median(pick("queries")),
    latencyP50: round(median(pick("latencyMs"))),
    latencyP95: round(percentile(pick("latencyMs"), 95)),
    statuses: [...new Set(results.map((r) => r.status))],
  };
}

async function main() {
  const extra = {
    org: { type: "string", default: "bulk1" },
    batches: { type: "string", default: "20" },
    concurrency: { type: "string", default: "4" },
  };
  const options = benchOptions(USAGE, extra, (o) => {
    for (const [name, max] of [["batches", 200], ["concurrency", 16]]) {
      const n = Number(o[name]);
      if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be an integer from 1 to ${max}`);
      o[name] = n;
    }
    if (!isLoopback(o.url)) throw new Error(`--url must be a loopback address (127.0.0.1, localhost, [::1]); got ${o.url}`);
  });
  // The defaults of the shared runner (20 runs, 2 warm-ups) are for fast reads; reports are fewer.
  if (!process.argv.includes("--runs")) options.runs = 5;
  if (!process.argv.includes("--warmups")) options.warmups = 1;
  await checkServer(options.url);
  const d1 = { persistTo: options.persistTo };
  const inputs = await chooseInputs(options.org, d1);
  console.error(`Statistics bench: ${options.org}, ${inputs.statsRows} video_stats rows, last day ${inputs.lastDay}; ${options.url}`);

  console.error("Ingestion...");
  const ingestion = [await ingest(options.url, inputs, options.batches, 1), await ingest(options.url, inputs, options.batches, options.concurrency)];

  const queries = [...reportQueries(inputs, 30), ...reportQueries(inputs, 365)].filter((q) => !options.only || options.only.test(q.name));
  console.error(`Reports: ${queries.length} queries × ${options.runs} runs (+${options.warmups} warm-up)...`);
  const reports = await runAll(options.url, queries, { runs: options.runs, warmups: options.warmups, timeoutMs: 60_000 });

  const ingestionTable = markdownTable(
    [
      { title: "ingestion", value: (r) => r.name, align: "left" },
      { title: "events/s", value: (r) => r.eventsPerSecond },
      { title: "D1 rows written per batch (p50)", value: (r) => r.rowsWrittenP50 },
      { title: "max", value: (r) => r.rowsWrittenMax },
      { title: "D1 rows read (p50)", value: (r) => r.rowsReadP50 },
      { title: "D1 queries", value: (r) => r.queriesP50 },
      { title: "latency p50 ms", value: (r) => r.latencyP50 },
      { title: "latency p95 ms", value: (r) => r.latencyP95 },
    ],
    ingestion,
  );
  const reportTable = markdownTable(
    STANDARD_COLUMNS.filter((c) => c.title !== "count"),
    reports,
  );
  const notes = failureNotes(reports);
  console.log(`\n${ingestionTable}\n\n${reportTable}\n${notes.length ? `\n${notes.join("\n")}\n` : ""}`);
  const file = writeResults("stats", { url: options.url, options: { ...options, only: options.only?.source ?? null }, inputs, ingestion, reports });
  console.error(`Results: ${file}`);
}

main().catch((err) => {
  console.error(`bench/stats failed: ${err.message}`);
  process.exit(1);
});
