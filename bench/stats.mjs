// Statistics benchmark on the bulk statistics (`npm run seed:bulk -- --reset --videos 10000
// --stats-rows 1000000`, after `npm run dev` once for the migrations and .dev.vars):
//
// 1. beacons: requests/s of POST /v2/events with 5 and with 500 events, and of a route without
//    D1 (GET of an unknown path: the same middleware, a JSON 404) for the ratio; D1 cost per
//    request from Server-Timing; and the request's own work step by step (bench/beacon-cost.ts:
//    JSON.parse, the events judged, the queue messages), timed in Node on the same bodies;
// 2. the queue consumer: 100 beacons of 500 events queued at once, then the time until the
//    consumer has counted them all (GET /v2/ingestion), and from its log lines the D1 statements,
//    events and milliseconds of each queue batch;
// 3. shards: two organizations' beacons at once, both on statistics shard 0, then on shards 0
//    and 1 (events/s per shard and in total);
// 4. reports (E9 top 10, E7 summary, detailed and daily, and with --reports all every report
//    E7–E12) over the last 30 and 365 days of the data: D1 rows read (Server-Timing), latency.
//
//   node bench/stats.mjs [--persist-to DIR] [--org bulk1] [--runs 5] [--rounds 3] [--reports key|all]
//   node bench/stats.mjs --url http://127.0.0.1:8787 ...   (a running server: no consumer log figures)
//   node bench/stats.mjs --before --url ...                 (the code before issue 12: statistics in DB, no queue)
//
// Without --url the bench starts its own worker of this checkout on a free loopback port over the
// same local state (scripts/lib/dev-worker.mjs: wrangler's API with the DevTools inspector off,
// EVENTS_PER_IP_PER_MINUTE raised so one address may send the load), reads its log, and stops it.
// Stop `npm run dev` first: two servers on one local state contend for its SQLite files.
// Loopback only; every phase is bounded in requests. Prints markdown tables and writes
// bench/results/stats-<timestamp>.json. See docs/statistics.md.
import { randomBytes } from "node:crypto";
import { join, resolve as resolvePath } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { freePort, isLoopbackUrl } from "../scripts/lib/net.mjs";
import { parseD1Timing } from "../scripts/lib/server-timing.mjs";
import { withTsModule } from "../scripts/lib/ts-module.mjs";
import { launchProcessGroup, readyUrl } from "../scripts/lib/worker-launcher.mjs";
import { adminToken } from "./lib/admin-token.mjs";
import { benchOptions, COMMON_USAGE } from "./lib/args.mjs";
import { d1Query, sqlString } from "./lib/local-db.mjs";
import { failureNotes, markdownTable, STANDARD_COLUMNS, writeResults } from "./lib/report.mjs";
import { checkServer, runAll } from "./lib/runner.mjs";
import { max, median, min, percentile } from "./lib/stats.mjs";

const USAGE = `Usage: node bench/stats.mjs [options]

${COMMON_USAGE}
  (without --url: starts its own worker over the local state, inspector off)
  --org KEY         organization (default bulk1: every entitlement; sync code KEY-sync)
  --rounds R        beacon rounds (default 3, at most 10): each measures the route without D1, 5-event
                    and 500-event beacons one after the other, so a busy machine slows all alike
  --requests N      requests per phase and round (default 1000 for 5 events and the references, a
                    tenth for 500; at most 5000)
  --concurrency C   requests in flight in the beacon phases (default 8, at most 64)
  --reports SET     key (E9 top 10, E7 summary/detailed/daily; default) or all (every report)
  --port P          the port of its own worker (default: a free one)
  --shard-beacons B beacons of 500 events per organization in the shards phase (default 60; 0 skips it):
                    two new organizations at once, both on shard 0, then on shards 0 and 1
  --token T         operator token for the shards phase (default: ADMIN_TOKEN, or .dev.vars)
  --before          the code before issue 12: statistics in the catalog database, written in the request`;

const DAY = 86_400_000;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
const round = (v, d = 1) => (v === null || v === undefined ? null : Number(v.toFixed(d)));

/** Starts scripts/lib/dev-worker.mjs (the inspector-free worker); resolves with its URL, the lines it logs, and stop(). */
async function startWorker(persistTo, fixedPort) {
  const port = fixedPort ?? (await freePort());
  const options = {
    port,
    persist: resolvePath(ROOT, persistTo ?? ".wrangler/state"),
    vars: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, EVENTS_PER_IP_PER_MINUTE: "10000000" },
  };
  const args = [join(ROOT, "scripts", "lib", "dev-worker.mjs"), JSON.stringify(options)];
  const { child, stop } = launchProcessGroup(args, { cwd: ROOT });
  const logs = [];
  let output = "";
  child.stderr.on("data", (d) => (output += d));
  const onLine = (line) => {
    if (!line.startsWith("{")) {
      output += `${line}\n`;
      return;
    }
    try {
      logs.push(JSON.parse(line));
    } catch {
      // not one of the worker's JSON lines
    }
  };
  const url = await readyUrl(child, {
    timeoutMs: 120_000,
    onLine,
    describe: () => output.slice(-2000),
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, logs, stop };
}

/** The inputs of the queries, read from the local databases. */
async function chooseInputs(org, persistTo, before) {
  const catalog = { persistTo };
  const [orgRows, keys, tagRows] = await d1Query(
    [
      `SELECT id, sync_code, ${before ? "0 AS stats_shard" : "stats_shard"} FROM organizations WHERE organization_key = ${sqlString(org)};`,
      `SELECT content_key FROM contents WHERE organization_id = (SELECT id FROM organizations WHERE organization_key = ${sqlString(org)})
       AND status = 'available' ORDER BY id DESC LIMIT 50;`,
      `SELECT l.name AS name FROM labels l JOIN content_labels cl ON cl.label_id = l.id
       WHERE l.organization_id = (SELECT id FROM organizations WHERE organization_key = ${sqlString(org)}) AND l.kind = 'tag'
       GROUP BY l.id ORDER BY count(*) DESC LIMIT 1;`,
    ].join("\n"),
    catalog,
  );
  if (orgRows.length === 0)
    throw new Error(
      `organization ${org} is not in the local database; run \`npm run seed:bulk -- --reset --videos 10000 --stats-rows 1000000\``,
    );
  const orgId = orgRows[0].id;
  // The organization's statistics shard (docs/statistics.md "Shards").
  const shard = orgRows[0].stats_shard;
  const stats = { persistTo, binding: before ? "DB" : shard ? `STATS_DB_${shard}` : "STATS_DB" };
  const [last, topKey, viewerKey, tputRow, fpRows] = await d1Query(
    [
      `SELECT max(date) AS last, count(*) AS n FROM video_stats WHERE organization_id = ${orgId};`,
      `SELECT content_key, count(*) AS n FROM video_stats WHERE organization_id = ${orgId} GROUP BY content_key ORDER BY n DESC LIMIT 1;`,
      `SELECT content_key, count(*) AS n FROM viewer_stats WHERE organization_id = ${orgId} GROUP BY content_key ORDER BY n DESC LIMIT 1;`,
      `SELECT fingerprint FROM viewer_stats WHERE organization_id = ${orgId} AND tput_hash <> 'none' ORDER BY date DESC LIMIT 1;`,
      `SELECT DISTINCT fingerprint FROM viewer_stats WHERE organization_id = ${orgId} ORDER BY date DESC LIMIT 3;`,
    ].join("\n"),
    stats,
  );
  if (!last[0]?.last)
    throw new Error(
      `organization ${org} has no statistics; run \`node scripts/bulk/stats.mjs --rows 1000000\``,
    );
  // Videos with statistics in the 30- and 365-day ranges: a ranking's bound (videos × months).
  const videosWithStatistics = {};
  if (!before) {
    const ranges = [30, 365].map((days) => [
      days,
      isoDay(Date.parse(`${last[0].last}T00:00:00Z`) - (days - 1) * DAY),
    ]);
    const counts = await d1Query(
      ranges
        .map(
          ([, start]) =>
            `SELECT count(DISTINCT content_key) AS n FROM video_day_totals WHERE organization_id = ${orgId} AND date BETWEEN '${start}' AND '${last[0].last}';`,
        )
        .join("\n"),
      stats,
    );
    ranges.forEach(([days], i) => (videosWithStatistics[days] = counts[i][0].n));
  }
  if (keys.length === 0)
    throw new Error(`organization ${org} has no available content to send events for`);
  // scripts/bulk/stats.mjs: fingerprint fp-<n> belongs to tput user-<n>.
  const tput = tputRow[0] ? `user-${tputRow[0].fingerprint.slice(3)}` : null;
  return {
    org,
    shard,
    syncCode: orgRows[0].sync_code,
    statsRows: last[0].n,
    videosWithStatistics,
    lastDay: last[0].last,
    topKey: topKey[0].content_key,
    viewerKey: viewerKey[0]?.content_key ?? topKey[0].content_key,
    tput,
    fingerprints: fpRows.map((r) => r.fingerprint),
    keys: keys.map((r) => r.content_key),
    tag: tagRows[0]?.name ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Beacons

const COUNTERS = [
  "video_impression",
  "video_played",
  "played_1s",
  "played_3s",
  "played_30s",
  "played_25percent",
  "video_ended",
  "ad_impression",
  "ad_done",
  "ecommerce_visible",
];

/** A beacon of `size` events (the n-th of its phase), spread over the org's recent videos. */
function beaconBody(inputs, size, n) {
  const events = Array.from({ length: size }, (_, i) => {
    const k = n * size + i;
    return {
      event: COUNTERS[k % COUNTERS.length],
      contentKey: inputs.keys[(k * 7) % inputs.keys.length],
      deviceType: ["Desktop", "Mobile", "Tablet", "TV"][k % 4],
      playerId: `player-${k % 3}`,
      fingerprint: `bench-fp-${k % 40}`,
      consent: k % 2 === 0,
    };
  });
  // A batch id as the player SDK makes one (sdk/player/src/sender.ts): its time, 96 random bits.
  const batch = Date.now().toString(36).padStart(9, "0") + randomBytes(12).toString("base64url");
  return JSON.stringify({ batch, events });
}

async function send(url, request) {
  const started = performance.now();
  try {
    const res = await fetch(new URL(request.path, url), {
      method: request.method ?? "GET",
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(60_000),
    });
    const body = await res.json().catch(() => null);
    return {
      status: res.status,
      latencyMs: performance.now() - started,
      accepted: body?.accepted ?? 0,
      ...parseD1Timing(res.headers.get("server-timing")),
    };
  } catch (err) {
    return {
      status: 0,
      latencyMs: performance.now() - started,
      accepted: 0,
      error: err.cause?.code ?? err.name,
    };
  }
}

/** `count` requests made by `make(n)`, `concurrency` in flight, after `warmups`; requests/s over the wall time. */
async function load(url, name, make, count, concurrency, warmups = 20) {
  for (let i = 0; i < warmups; i++) await send(url, make(i));
  const results = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) results.push(await send(url, make(warmups + next++)));
    }),
  );
  const wallMs = performance.now() - started;
  const pick = (k) => results.filter((r) => r.status > 0 && r.status < 500).map((r) => r[k]);
  const statuses = {};
  for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  return {
    name,
    requests: count,
    concurrency,
    statuses,
    requestsPerSecond: round((count / wallMs) * 1000, 0),
    eventsAccepted: results.reduce((n, r) => n + r.accepted, 0),
    rowsReadP50: median(pick("rowsRead")),
    rowsWrittenP50: median(pick("rowsWritten")),
    queriesP50: median(pick("queries")),
    latencyP50: round(median(pick("latencyMs"))),
    latencyP95: round(percentile(pick("latencyMs"), 95)),
  };
}

const beaconRequest = (inputs, size) => (n) => ({
  method: "POST",
  path: "/v2/events",
  headers: {
    "Content-Type": "application/json",
    "X-Service-Sync-Code": inputs.syncCode,
    // request.cf as miniflare takes it from a local client: the country the events count under.
    "MF-CF-Blob": JSON.stringify({ country: "DE" }),
    "User-Agent": "bench/stats",
  },
  body: beaconBody(inputs, size, n),
});

// ---------------------------------------------------------------------------------------------
// The consumer

const writeHeaders = (inputs) => ({
  "X-Service-Sync-Code": inputs.syncCode,
  "X-Service-Api-Key": `${inputs.org}-key`,
  "X-Service-Api-Secret": `${inputs.org}-secret`,
});

async function eventsCounted(url, inputs) {
  const res = await fetch(new URL("/v2/ingestion?days=2", url), { headers: writeHeaders(inputs) });
  if (res.status !== 200)
    throw new Error(`GET /v2/ingestion answered ${res.status}: ${await res.text()}`);
  const { data } = await res.json();
  return data.days.reduce((n, d) => n + d.eventsCounted + d.eventsRejected, 0);
}

/** Polls until the consumer counted `target` events (or the deadline); returns when it did. */
async function drained(url, inputs, target, deadlineMs) {
  for (;;) {
    const counted = await eventsCounted(url, inputs);
    if (counted >= target) return performance.now();
    if (performance.now() > deadlineMs)
      throw new Error(`the consumer counted ${counted} of ${target} events before the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits (at most 5 minutes) until two readings 2 s apart show the consumer counted nothing more. */
async function untilQuiet(url, inputs) {
  const deadline = performance.now() + 300_000;
  let last = await eventsCounted(url, inputs);
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const now = await eventsCounted(url, inputs);
    if (now === last) return;
    last = now;
  }
}

/** Queues `beacons` beacons of 500 events (8 in flight) and measures until the consumer counted them. */
async function consumerRun(url, inputs, logs, beacons) {
  const before = await eventsCounted(url, inputs);
  const firstLog = logs.length;
  const started = performance.now();
  const phase = await load(url, "consumer load", beaconRequest(inputs, 500), beacons, 8, 0);
  const queuedMs = performance.now() - started;
  const events = phase.eventsAccepted;
  const done = await drained(url, inputs, before + events, performance.now() + 600_000);
  const batches = logs.slice(firstLog).filter((l) => l.msg === "events counted");
  const busyMs = batches.reduce((n, b) => n + b.duration_ms, 0);
  const pick = (k) => batches.map((b) => b[k]);
  return {
    beacons,
    events,
    queuedSeconds: round(queuedMs / 1000, 2),
    drainedSeconds: round((done - started) / 1000, 2),
    eventsPerSecondEndToEnd: round((events / (done - started)) * 1000, 0),
    batches: batches.length || null,
    messagesPerBatchP50: median(pick("messages")),
    eventsPerBatchP50: median(pick("events")),
    statementsPerBatch: batches.length
      ? {
          min: min(pick("d1_statements")),
          p50: median(pick("d1_statements")),
          max: max(pick("d1_statements")),
        }
      : null,
    rowsWrittenPerBatchP50: median(pick("d1_rows_written")),
    batchMsP50: median(pick("duration_ms")),
    eventsPerSecondTallying: busyMs
      ? round((batches.reduce((n, b) => n + b.events, 0) / busyMs) * 1000, 0)
      : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Shards: two organizations' beacons at once, on one statistics shard and on two

/** Creates an organization on `shard` with `videos` uploading videos (enough for the consumer to count their events). */
async function benchOrganization(url, token, key, shard, videos) {
  const created = await fetch(new URL("/admin/organizations", url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ organizationKey: key, plan: "enterprise", statsShard: shard }),
  });
  if (created.status !== 200)
    throw new Error(`creating ${key} answered ${created.status}: ${await created.text()}`);
  const { credentials } = await created.json();
  const headers = {
    "X-Service-Sync-Code": credentials.syncCode,
    "X-Service-Api-Key": credentials.apiKey,
    "X-Service-Api-Secret": credentials.apiSecret,
  };
  const keys = [];
  for (let i = 0; i < videos; i++) {
    const res = await fetch(new URL("/v2/content/", url), {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ contentSize: 10 }),
    });
    if (res.status !== 200)
      throw new Error(`E1 for ${key} answered ${res.status}: ${await res.text()}`);
    keys.push((await res.json()).contentKey);
  }
  return { org: key, shard, syncCode: credentials.syncCode, keys, writeHeaders: headers };
}

async function countedOf(url, o) {
  const res = await fetch(new URL("/v2/ingestion?days=2", url), { headers: o.writeHeaders });
  if (res.status !== 200)
    throw new Error(`GET /v2/ingestion answered ${res.status}: ${await res.text()}`);
  return (await res.json()).data.days.reduce((n, d) => n + d.eventsCounted + d.eventsRejected, 0);
}

/**
 * `beacons` beacons of 500 events for each organization, both at once (4 in flight each), then
 * until the consumer counted all of each: events/s per organization (so per shard) and in total.
 */
async function shardsRun(url, orgs, beacons) {
  const before = await Promise.all(orgs.map((o) => countedOf(url, o)));
  const started = performance.now();
  const sent = await Promise.all(
    orgs.map((o) => load(url, `${o.org} beacons`, beaconRequest(o, 500), beacons, 4, 0)),
  );
  const done = await Promise.all(
    orgs.map(async (o, i) => {
      const target = before[i] + sent[i].eventsAccepted;
      const deadline = performance.now() + 600_000;
      while ((await countedOf(url, o)) < target) {
        if (performance.now() > deadline)
          throw new Error(`the consumer did not count ${o.org}'s events within 10 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return performance.now();
    }),
  );
  const perOrg = orgs.map((o, i) => ({
    shard: o.shard,
    events: sent[i].eventsAccepted,
    seconds: round((done[i] - started) / 1000, 2),
    eventsPerSecond: round((sent[i].eventsAccepted / (done[i] - started)) * 1000, 0),
  }));
  const events = perOrg.reduce((n, o) => n + o.events, 0);
  const seconds = (Math.max(...done) - started) / 1000;
  return {
    layout: orgs.map((o) => o.shard).join(" + "),
    perOrg,
    events,
    seconds: round(seconds, 2),
    eventsPerSecond: round(events / seconds, 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Reports

function reportQueries(inputs, days, set, before) {
  const end = inputs.lastDay;
  const start = isoDay(Date.parse(`${end}T00:00:00Z`) - (days - 1) * DAY);
  const base = `organization_key=${encodeURIComponent(inputs.org)}&start_date=${start}&end_date=${end}`;
  const analytics = `startDate=${start}&endDate=${end}`;
  const sync = { "X-Service-Sync-Code": inputs.syncCode };
  const write = writeHeaders(inputs);
  // Cold: a fresh cache-busting parameter per request keeps the edge cache out of the numbers.
  // Issue 23's bounds: a ranking reads at most (videos with statistics) × (months of the range),
  // a page at most 3 × its rows + 50.
  const months = new Set(
    Array.from({ length: days }, (_, i) =>
      isoDay(Date.parse(`${end}T00:00:00Z`) - i * DAY).slice(0, 7),
    ),
  ).size;
  const rankingBound =
    inputs.videosWithStatistics?.[days] === undefined
      ? null
      : inputs.videosWithStatistics[days] * months;
  const q = (name, path, headers = sync) => ({
    name: `${name} (${days} d)`,
    path,
    headers,
    cold: true,
    bound: name.startsWith("E9 combined, top")
      ? { kind: "ranking", rows: rankingBound }
      : { kind: "page" },
  });
  const key = [
    q(
      "E9 combined, top 10 by video_played",
      `/prod/get_video_reports_combined?${base}&sort_field=video_played&column_list=video_played,played_1s&result_limit=10`,
    ),
    q(
      "E7 video summary, page 1",
      `/v2/analytics/video?summary&${analytics}&fields=played_1,played_30`,
    ),
    q("E7 video detailed, page 1", `/v2/analytics/video?detailed&${analytics}&fields=played_1s`),
    ...(before
      ? []
      : [
          q(
            "E7 video daily (the console's chart)",
            `/v2/analytics/video?daily&${analytics}&fields=video_played`,
          ),
        ]),
    ...(inputs.tag
      ? [
          q(
            "E7 video summary, tags filter",
            `/v2/analytics/video?summary&${analytics}&tags=${encodeURIComponent(inputs.tag)}`,
          ),
        ]
      : []),
    q("E7 viewers summary", `/v2/analytics/viewers?summary&${analytics}&fields=video_played`),
    // A common word of the bulk catalog's titles (scripts/bulk/words.mjs): a text filter over
    // every key with statistics (detailed) and over the walk (summary).
    ...(before
      ? []
      : [
          q(
            "E7 video summary, searchString=goal",
            `/v2/analytics/video?summary&${analytics}&searchString=goal`,
          ),
          q(
            "E7 video detailed, searchString=goal",
            `/v2/analytics/video?detailed&${analytics}&searchString=goal`,
          ),
        ]),
  ];
  if (set === "key") return key;
  const fp = inputs.fingerprints.map((f) => `"${f}"`).join(",");
  return [
    q("E8 video, all", `/prod/get_video_reports?${base}`),
    q("E8 video, content_key", `/prod/get_video_reports?${base}&content_key=${inputs.topKey}`),
    q(
      "E9 combined, content_key",
      `/prod/get_video_reports_combined?${base}&content_key=${inputs.topKey}`,
    ),
    q("E10 viewers, dates only", `/prod/get_viewer_reports?${base}`, write),
    q(
      "E10 viewers, content_key",
      `/prod/get_viewer_reports?${base}&content_key=${inputs.viewerKey}`,
      write,
    ),
    q(
      "E10 viewers, fingerprint_list (3)",
      `/prod/get_viewer_reports?${base}&fingerprint_list=${encodeURIComponent(fp)}`,
      write,
    ),
    ...(inputs.tput
      ? [q("E10 viewers, tput", `/prod/get_viewer_reports?${base}&tput=${inputs.tput}`, write)]
      : []),
    q("E11 ads, all", `/prod/get_ad_reports?${base}`),
    q("E11 ads, content_key", `/prod/get_ad_reports?${base}&content_key=${inputs.topKey}`),
    q(
      "E12 ecommerce, all + info",
      `/prod/get_ecommerce_reports?${base}&include_video_data=1&include_ecommerce_data=1`,
    ),
    q(
      "E12 ecommerce, content_key",
      `/prod/get_ecommerce_reports?${base}&content_key=${inputs.topKey}`,
    ),
    ...key,
  ];
}

async function main() {
  const extra = {
    org: { type: "string", default: "bulk1" },
    rounds: { type: "string", default: "3" },
    requests: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "8" },
    reports: { type: "string", default: "key" },
    before: { type: "boolean", default: false },
    port: { type: "string" },
    "shard-beacons": { type: "string", default: "60" },
    token: { type: "string" },
  };
  const options = benchOptions(USAGE, extra, (o) => {
    for (const [name, lo, hi] of [
      ["rounds", 1, 10],
      ["requests", 100, 5000],
      ["concurrency", 1, 64],
      ["shard-beacons", 0, 1000],
    ]) {
      const n = Number(o[name]);
      if (!Number.isInteger(n) || n < lo || n > hi)
        throw new Error(`--${name} must be an integer from ${lo} to ${hi}`);
      o[name] = n;
    }
    o.shardBeacons = o["shard-beacons"];
    if (o.port !== undefined) {
      const port = Number(o.port);
      if (!Number.isInteger(port) || port < 1024 || port > 65535)
        throw new Error("--port must be an integer from 1024 to 65535");
      o.port = port;
    }
    if (!["key", "all"].includes(o.reports)) throw new Error("--reports must be key or all");
    if (!isLoopbackUrl(o.url))
      throw new Error(
        `--url must be a loopback address (127.0.0.1, localhost, [::1]); got ${o.url}`,
      );
  });
  if (!process.argv.includes("--runs")) options.runs = 5;
  if (!process.argv.includes("--warmups")) options.warmups = 1;
  const ownServer = !process.argv.some((a) => a === "--url" || a.startsWith("--url="));
  if (ownServer && options.before)
    throw new Error("--before measures a server of the earlier code: give its --url");

  const inputs = await chooseInputs(options.org, options.persistTo, options.before);
  const server = ownServer
    ? await startWorker(options.persistTo, options.port)
    : { url: options.url, logs: [], stop: async () => {} };
  try {
    const url = server.url;
    await checkServer(url);
    console.error(
      `Statistics bench: ${options.org}, ${inputs.statsRows} video_stats rows, last day ${inputs.lastDay}; ${url}${ownServer ? " (own worker, inspector off)" : ""}`,
    );

    console.error(
      `Beacons: ${options.rounds} rounds of ${options.requests} requests per phase, ${options.concurrency} in flight...`,
    );
    const phases = [
      {
        name: "GET of an unknown path (404, no D1): the reference",
        count: options.requests,
        make: () => ({ path: "/v2/no-such-route" }),
      },
      {
        name: "POST /v2/events without a sync code (401 before any D1 query)",
        count: options.requests,
        make: (n) => ({
          method: "POST",
          path: "/v2/events",
          headers: { "Content-Type": "application/json" },
          body: beaconBody(inputs, 5, n),
        }),
      },
      {
        name: "POST /v2/events, 5 events",
        count: options.requests,
        make: beaconRequest(inputs, 5),
      },
      {
        name: "POST /v2/events, 500 events",
        count: Math.max(10, Math.round(options.requests / 10)),
        make: beaconRequest(inputs, 500),
      },
    ];
    const rounds = [];
    for (let r = 0; r < options.rounds; r++) {
      const measured = [];
      for (const phase of phases)
        measured.push(await load(url, phase.name, phase.make, phase.count, options.concurrency));
      rounds.push(measured);
      console.error(
        `  round ${r + 1}: ${measured.map((p) => `${p.requestsPerSecond}/s`).join(", ")}`,
      );
    }
    // Per phase: the median over the rounds, and the median of its ratio to the reference of the same round.
    const beacons = phases.map((phase, i) => {
      const of = rounds.map((round) => round[i]);
      const pick = (k) => median(of.map((p) => p[k]));
      const statuses = {};
      for (const p of of)
        for (const [k, n] of Object.entries(p.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
      return {
        name: phase.name,
        requests: of.reduce((n, p) => n + p.requests, 0),
        statuses,
        requestsPerSecond: pick("requestsPerSecond"),
        ratio: round(
          median(rounds.map((rd) => (rd[i].requestsPerSecond / rd[0].requestsPerSecond) * 100)),
          0,
        ),
        perRound: of.map((p) => p.requestsPerSecond),
        rowsReadP50: pick("rowsReadP50"),
        rowsWrittenP50: pick("rowsWrittenP50"),
        queriesP50: pick("queriesP50"),
        latencyP50: pick("latencyP50"),
        latencyP95: pick("latencyP95"),
      };
    });

    let consumer = null;
    if (!options.before) {
      console.error(
        "Consumer: waiting for it to count the beacon phases' events, then 100 beacons of 500 events...",
      );
      await untilQuiet(url, inputs);
      consumer = await consumerRun(url, inputs, server.logs, 100);
    }

    let shards = null;
    if (!options.before && options.shardBeacons > 0) {
      const token = adminToken(options.token);
      const stamp = Date.now().toString(36);
      console.error(
        `Shards: three organizations (shards 0, 0, 1), ${options.shardBeacons} beacons of 500 events each for two at once...`,
      );
      const [a, b, c] = await Promise.all(
        [0, 0, 1].map((shard, i) =>
          benchOrganization(url, token, `bench-shards-${stamp}-${i}`, shard, 20),
        ),
      );
      shards = [];
      for (const pair of [
        [a, b],
        [a, c],
        [a, b],
        [a, c],
      ]) {
        const run = await shardsRun(url, pair, options.shardBeacons);
        console.error(
          `  shards ${run.layout}: ${run.eventsPerSecond} events/s (${run.perOrg.map((o) => `shard ${o.shard}: ${o.eventsPerSecond}/s`).join(", ")})`,
        );
        shards.push(run);
      }
    }

    const queries = [
      ...reportQueries(inputs, 30, options.reports, options.before),
      ...reportQueries(inputs, 365, options.reports, options.before),
    ].filter((q) => !options.only || options.only.test(q.name));
    console.error(
      `Reports: ${queries.length} queries × ${options.runs} runs (+${options.warmups} warm-up)...`,
    );
    const reports = await runAll(url, queries, {
      runs: options.runs,
      warmups: options.warmups,
      timeoutMs: 120_000,
    });

    // The request's own work, step by step, on the same bodies (bench/beacon-cost.ts), in Node.
    const beaconCost = options.before
      ? []
      : await withTsModule(join(ROOT, "bench", "beacon-cost.ts"), ({ measure }) =>
          measure((size, n) => beaconBody(inputs, size, n)),
        );
    const beaconCostTable = beaconCost.length
      ? markdownTable(
          [
            {
              title: "a beacon's own work (Node, median)",
              value: (r) => `${r.events} events: ${r.step}`,
              align: "left",
            },
            { title: "ms per request", value: (r) => r.msPerRequest.toFixed(3) },
            { title: "µs per event", value: (r) => r.usPerEvent.toFixed(2) },
          ],
          beaconCost,
        )
      : "";
    const beaconTable = markdownTable(
      [
        { title: "requests", value: (r) => r.name, align: "left" },
        { title: "requests/s (median of rounds)", value: (r) => r.requestsPerSecond },
        { title: "per round", value: (r) => r.perRound.join(" / ") },
        { title: "% of the route without D1 (median)", value: (r) => `${r.ratio} %` },
        {
          title: "statuses",
          value: (r) =>
            Object.entries(r.statuses)
              .map(([k, n]) => `${k}×${n}`)
              .join(" "),
        },
        { title: "D1 rows read (p50)", value: (r) => r.rowsReadP50 },
        { title: "D1 rows written (p50)", value: (r) => r.rowsWrittenP50 },
        { title: "D1 queries (p50)", value: (r) => r.queriesP50 },
        { title: "latency p50 ms", value: (r) => r.latencyP50 },
        { title: "latency p95 ms", value: (r) => r.latencyP95 },
      ],
      beacons,
    );
    const consumerTable = consumer
      ? markdownTable(
          [
            {
              title: "consumer",
              value: () => `${consumer.beacons} beacons × 500 events`,
              align: "left",
            },
            { title: "events", value: () => consumer.events },
            { title: "queued in s", value: () => consumer.queuedSeconds },
            { title: "all counted after s", value: () => consumer.drainedSeconds },
            { title: "events/s end to end", value: () => consumer.eventsPerSecondEndToEnd },
            { title: "events/s while tallying", value: () => consumer.eventsPerSecondTallying },
            { title: "queue batches", value: () => consumer.batches },
            { title: "messages/batch p50", value: () => consumer.messagesPerBatchP50 },
            {
              title: "D1 statements/batch min-p50-max",
              value: () =>
                consumer.statementsPerBatch
                  ? `${consumer.statementsPerBatch.min}-${consumer.statementsPerBatch.p50}-${consumer.statementsPerBatch.max}`
                  : null,
            },
            { title: "rows written/batch p50", value: () => consumer.rowsWrittenPerBatchP50 },
            { title: "batch ms p50", value: () => consumer.batchMsP50 },
          ],
          [{}],
        )
      : "";
    const shardsTable = shards
      ? markdownTable(
          [
            {
              title: "two organizations at once",
              value: (r) => (r.layout === "0 + 0" ? "both on shard 0" : "shard 0 and shard 1"),
              align: "left",
            },
            { title: "events", value: (r) => r.events },
            { title: "all counted after s", value: (r) => r.seconds },
            {
              title: "events/s, first organization",
              value: (r) => `${r.perOrg[0].eventsPerSecond} (shard ${r.perOrg[0].shard})`,
            },
            {
              title: "events/s, second organization",
              value: (r) => `${r.perOrg[1].eventsPerSecond} (shard ${r.perOrg[1].shard})`,
            },
            { title: "events/s total", value: (r) => r.eventsPerSecond },
          ],
          shards,
        )
      : "";
    const bounds = new Map(queries.map((q) => [q.name, q.bound]));
    const boundColumn = {
      title: "bound (issue 23)",
      value: (r) => {
        const bound = bounds.get(r.name);
        const limit =
          bound?.kind === "ranking"
            ? bound.rows
            : r.summary.rows === null
              ? null
              : 3 * r.summary.rows + 50;
        if (limit === null || limit === undefined || r.summary.rowsReadP50 === null) return null;
        const what = bound?.kind === "ranking" ? "videos × months" : "3×rows+50";
        return `${r.summary.rowsReadP50 <= limit ? "ok" : "OVER"} (${what}: ${limit})`;
      },
    };
    const reportTable = markdownTable(
      [
        ...STANDARD_COLUMNS.filter((c) => c.title !== "count"),
        ...(options.before ? [] : [boundColumn]),
      ],
      reports,
    );
    const notes = failureNotes(reports);
    console.log(
      `\n${beaconTable}\n\n${beaconCostTable}\n\n${consumerTable}\n\n${shardsTable}\n\n${reportTable}\n${notes.length ? `\n${notes.join("\n")}\n` : ""}`,
    );
    const file = writeResults("stats", {
      url,
      ownServer,
      options: { ...options, token: undefined, only: options.only?.source ?? null },
      inputs,
      beacons,
      beaconCost,
      consumer,
      shards,
      reports,
    });
    console.error(`Results: ${file}`);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(`bench/stats failed: ${err.message}`);
  process.exit(1);
});
