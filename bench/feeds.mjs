// Feed publishing cost: time and D1 rows read to rebuild one feed, the feeds a typical write
// touches, and every feed; plus the size of the largest file.
//
//   npm run seed:bulk -- --reset --videos 10000 --feeds 1000
//   npm run dev            (in another terminal)
//   npm run bench:feeds -- [--url http://127.0.0.1:8787] [--runs 5]
//
// Rebuilds go through the operator endpoint POST /admin/feeds/rebuild with force=true (every
// file written), so the numbers are the full cost, not the "unchanged" shortcut.
import { performance } from "node:perf_hooks";
import { readFileSync } from "node:fs";
import { parseBenchArgs } from "./lib/args.mjs";
import { d1Rows } from "./lib/local-db.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";
import { parseD1Timing } from "./lib/server-timing.mjs";
import { median, percentile, max } from "./lib/stats.mjs";

const args = parseBenchArgs(process.argv.slice(2), { token: { type: "string" } });
const runs = Math.min(args.runs, 20);

function adminToken() {
  if (args.token) return args.token;
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const vars = readFileSync(new URL("../.dev.vars", import.meta.url), "utf8");
  return vars.match(/^ADMIN_TOKEN=(.*)$/m)?.[1]?.trim();
}
const token = adminToken();

async function rebuild(body) {
  const started = performance.now();
  const res = await fetch(new URL("/admin/feeds/rebuild", args.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ force: true, ...body }),
  });
  const json = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`rebuild ${JSON.stringify(body)}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return { ms, ...parseD1Timing(res.headers.get("server-timing")), ...json };
}

const summary = (name, samples) => ({
  name,
  samples: samples.length,
  feeds: median(samples.map((s) => s.feeds)),
  rowsRead: median(samples.map((s) => s.rowsRead)),
  d1Ms: median(samples.map((s) => s.d1Ms)),
  p50: median(samples.map((s) => s.ms)),
  p95: percentile(samples.map((s) => s.ms), 95),
});

const feedIds = (await d1Rows("select feed_id from feeds where organization_id in (select id from organizations where organization_key like 'bulk%') order by random() limit 50", args)).map((r) => r.feed_id);
const videos = (await d1Rows("select content_key from contents where status = 'available' and removed = 0 and organization_id in (select id from organizations where organization_key like 'bulk%') order by random() limit 20", args)).map((r) => r.content_key);
const [{ n: totalFeeds }] = await d1Rows("select count(*) as n from feeds", args);
if (feedIds.length === 0) throw new Error("no bulk feeds: run npm run seed:bulk -- --reset --videos 10000 --feeds 1000 first");
console.log(`feeds: ${totalFeeds}; measuring ${runs} runs each`);

const oneFeed = [];
for (let i = 0; i < runs; i++) oneFeed.push(await rebuild({ feedId: feedIds[i % feedIds.length] }));
const typicalWrite = [];
for (let i = 0; i < runs; i++) typicalWrite.push(await rebuild({ contentKey: videos[i % videos.length] }));

// Every feed, 25 at a time (one request per page keeps each invocation bounded).
const all = { ms: 0, rowsRead: 0, d1Ms: 0, feeds: 0, pages: 0 };
for (let afterId = 0; afterId !== null; ) {
  const page = await rebuild({ all: true, afterId, limit: 25 });
  all.ms += page.ms;
  all.rowsRead += page.rowsRead;
  all.d1Ms += page.d1Ms;
  all.feeds += page.feeds;
  all.pages += 1;
  afterId = page.nextAfterId;
}

// Largest file: HEAD every feed's files through the worker.
let largest = { key: null, bytes: 0 };
const allFeedIds = (await d1Rows("select feed_id from feeds", args)).map((r) => r.feed_id);
for (const id of allFeedIds) {
  for (const path of [`/${id}-feed.json`, `/v2/feeds/${id}/videos.json`]) {
    const res = await fetch(new URL(path, args.url), { method: "HEAD" });
    const bytes = Number(res.headers.get("content-length") ?? 0);
    if (bytes > largest.bytes) largest = { key: path, bytes };
  }
}

const rows = [
  summary("rebuild one feed (3 files)", oneFeed),
  summary("rebuild the feeds of one video (typical write)", typicalWrite),
  { name: `rebuild every feed (${all.feeds} feeds, ${all.pages} requests)`, samples: 1, feeds: all.feeds, rowsRead: all.rowsRead, d1Ms: Math.round(all.d1Ms), p50: Math.round(all.ms), p95: null },
];
console.log(
  markdownTable(
    [
      { title: "operation", value: (r) => r.name, align: "left" },
      { title: "feeds", value: (r) => r.feeds },
      { title: "D1 rows read", value: (r) => r.rowsRead },
      { title: "D1 ms", value: (r) => (r.d1Ms === null ? null : Math.round(r.d1Ms)) },
      { title: "ms p50 (total for all)", value: (r) => Math.round(r.p50) },
      { title: "ms p95", value: (r) => (r.p95 === null ? null : Math.round(r.p95)) },
    ],
    rows,
  ),
);
console.log(`\nlargest file: ${largest.key} ${largest.bytes} bytes; max feeds touched by one write: ${max(typicalWrite.map((s) => s.feeds))}`);
writeResults("feeds", { rows, largest, totalFeeds });
