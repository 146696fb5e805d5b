// Feed publishing cost, two parts (`--only rebuild` or `--only write` runs one):
//
// - rebuild: time and D1 rows read of operator rebuilds (POST /admin/feeds/rebuild, force=true,
//   so every file is written): one feed, the feeds of one video, the feeds of the write's
//   video, every feed; plus the size of the largest file.
// - write: what one write costs the way a publisher makes it. The video of --org that sits in
//   the most feeds (among its newest 1,000, so it is in every one of those feeds' files) gets an
//   E4 title change; the bench then polls the feeds' files until each shows the new title and
//   reports the time from the write, and the D1 rows read by the republishing (the feed work
//   counters the worker keeps in cron_state, read from the local database before and after).
//
//   npm run seed:bulk -- --reset --videos 100000 --feeds 1000
//   npm run dev            (in another terminal)
//   npm run bench:feeds -- [--url http://127.0.0.1:8787] [--runs 5] [--only write] [--org bulk1]
//                          [--cron-every 60]
//
// `wrangler dev` does not fire cron triggers by itself: `--cron-every S` calls /__scheduled every
// S seconds while the write scenario waits (a code base that relies on the cron to finish a
// write's feeds needs it; measure it as the minute cron would run).
import { performance } from "node:perf_hooks";
import { parseD1Timing } from "../scripts/lib/server-timing.mjs";
import { adminToken } from "./lib/admin-token.mjs";
import { benchOptions, COMMON_USAGE } from "./lib/args.mjs";
import { d1Rows, sqlString } from "./lib/local-db.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";
import { max, median, percentile } from "./lib/stats.mjs";

const USAGE = `Usage: npm run bench:feeds -- [options]

${COMMON_USAGE}
  --org KEY         organization of the write scenario (default bulk1; credentials KEY-sync, KEY-key, KEY-secret)
  --cron-every S    while waiting for the write's feeds, run the cron (GET /__scheduled) every S seconds (default: never)
  --timeout S       give up waiting for the write's feeds after S seconds (default 600)
  --token T         operator token (default: ADMIN_TOKEN, or .dev.vars)`;

const args = benchOptions(USAGE, {
  token: { type: "string" },
  org: { type: "string", default: "bulk1" },
  "cron-every": { type: "string", default: "0" },
  timeout: { type: "string", default: "600" },
});
const runs = Math.min(args.runs, 20);
const cronEveryMs = Number(args["cron-every"]) * 1000;
const timeoutMs = Number(args.timeout) * 1000;
const wanted = (part) => !args.only || args.only.test(part);
const d1 = { persistTo: args.persistTo };

const token = adminToken(args.token);

async function rebuild(body, attempts = 3) {
  const started = performance.now();
  const res = await fetch(new URL("/admin/feeds/rebuild", args.url), {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ force: true, ...body }),
  });
  // wrangler dev answers 503 "worker restarted mid-request" (plain text) when a long request
  // overlaps a restart of its runtime; the rebuild is idempotent, so ask again.
  if (res.status === 503 && attempts > 1 && !res.headers.get("content-type")?.includes("json")) {
    await res.body?.cancel();
    return rebuild(body, attempts - 1);
  }
  const json = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200)
    throw new Error(`rebuild ${JSON.stringify(body)}: HTTP ${res.status} ${JSON.stringify(json)}`);
  return { ms, ...parseD1Timing(res.headers.get("server-timing")), ...json };
}

/** Every feed, 25 at a time (one request per page keeps each invocation bounded). */
async function rebuildAll(force) {
  const all = { ms: 0, rowsRead: 0, d1Ms: 0, feeds: 0, pages: 0 };
  for (let afterId = 0; afterId !== null; ) {
    const page = await rebuild({ all: true, afterId, limit: 25, force });
    all.ms += page.ms;
    all.rowsRead += page.rowsRead;
    all.d1Ms += page.d1Ms;
    all.feeds += page.feeds;
    all.pages += 1;
    afterId = page.nextAfterId;
  }
  return all;
}

const summary = (name, samples) => ({
  name,
  samples: samples.length,
  feeds: median(samples.map((s) => s.feeds)),
  rowsRead: median(samples.map((s) => s.rowsRead)),
  d1Ms: median(samples.map((s) => s.d1Ms)),
  p50: median(samples.map((s) => s.ms)),
  p95: percentile(
    samples.map((s) => s.ms),
    95,
  ),
});

const [{ n: totalFeeds }] = await d1Rows("select count(*) as n from feeds", d1);
if (totalFeeds === 0)
  throw new Error("no feeds: run npm run seed:bulk -- --reset --videos 10000 --feeds 1000 first");
console.log(`feeds: ${totalFeeds}; measuring ${runs} runs each`);

// ---------------------------------------------------------------------------------------------
// The write's video: of the organization's newest 1,000 listable videos without syndication
// windows (so each is in the files of every feed it belongs to), the one in the most feeds.

const holds = (feed, video) => {
  const names = [
    ["categories", feed.categories],
    ["tags", feed.tags],
    ["events", feed.events],
  ];
  if (names.every(([, list]) => list.length === 0)) return true;
  return names.some(([kind, list]) => list.some((name) => video[kind].includes(name)));
};

async function chooseWriteVideo(org) {
  const orgId = `(select id from organizations where organization_key = ${sqlString(org)})`;
  const parse = (row) => ({
    ...row,
    categories: JSON.parse(row.categories),
    tags: JSON.parse(row.tags),
    events: JSON.parse(row.events),
  });
  const feeds = (
    await d1Rows(
      `select id, feed_id, categories, tags, events from feeds where organization_id = ${orgId} order by id`,
      d1,
    )
  ).map(parse);
  const videos = (
    await d1Rows(
      `select content_key, categories, tags, events from contents
       where organization_id = ${orgId} and status = 'available' and removed = 0
         and not exists (select 1 from syndications s where s.content_id = contents.id)
       order by published_at desc, id desc limit 1000`,
      d1,
    )
  ).map(parse);
  if (feeds.length === 0 || videos.length === 0)
    throw new Error(`organization ${org} has no feeds or no videos; seed with --feeds`);
  let best = null;
  for (const video of videos) {
    const inFeeds = feeds.filter((f) => holds(f, video));
    if (!best || inFeeds.length > best.feeds.length)
      best = { contentKey: video.content_key, feeds: inFeeds };
  }
  return { ...best, orgFeeds: feeds.length, orgId };
}

const writeHeaders = (org) => ({
  "X-Service-Sync-Code": `${org}-sync`,
  "X-Service-Api-Key": `${org}-key`,
  "X-Service-Api-Secret": `${org}-secret`,
});

/** The feed work counters (cron_state feed_work_*), or null where the worker keeps none. */
async function workCounters() {
  const rows = await d1Rows("select name, value from cron_state where name like 'feed_work_%'", d1);
  if (rows.length === 0) return null;
  return Object.fromEntries(rows.map((r) => [r.name.replace(/^feed_work_/, ""), Number(r.value)]));
}

async function dirtyFeeds(orgId) {
  const [{ n }] = await d1Rows(
    `select count(*) as n from feeds where organization_id = ${orgId} and (dirty_since is not null or building_until is not null)`,
    d1,
  );
  return n;
}

/** Title of the video in the feed's v2 file (null: not there). */
async function titleInFile(feedId, contentKey) {
  const res = await fetch(new URL(`/v2/feeds/${feedId}/videos.json`, args.url));
  if (res.status !== 200) return null;
  const body = await res.json();
  return body.videos.find((v) => v.contentKey === contentKey)?.title ?? null;
}

async function writeScenario(choice) {
  const org = args.org;
  // Start from published feeds: nothing of the organization dirty or being rebuilt.
  const dirty = await d1Rows(
    `select feed_id from feeds where organization_id = ${choice.orgId} and (dirty_since is not null or building_until is not null)`,
    d1,
  );
  if (dirty.length > 0) {
    console.log(
      `${org} has ${dirty.length} dirty feeds: publishing them first (operator rebuild, one feed per request)`,
    );
    for (const { feed_id } of dirty) await rebuild({ feedId: feed_id });
  }
  const before = await workCounters();
  const e3 = await fetch(new URL(`/v2/content?contentKey=${choice.contentKey}`, args.url), {
    headers: writeHeaders(org),
  });
  if (e3.status !== 200)
    throw new Error(`E3 ${choice.contentKey}: HTTP ${e3.status} ${await e3.text()}`);
  const video = await e3.json();
  const title = `${video.title.replace(/ \(bench [^)]*\)$/, "")} (bench ${Date.now().toString(36)})`;

  const started = performance.now();
  const e4 = await fetch(new URL("/v2/content", args.url), {
    method: "PUT",
    headers: { ...writeHeaders(org), "Content-Type": "application/json" },
    body: JSON.stringify({ ...video, title }),
  });
  const e4Ms = performance.now() - started;
  if (e4.status !== 200)
    throw new Error(`E4 ${choice.contentKey}: HTTP ${e4.status} ${await e4.text()}`);
  const e4Cost = parseD1Timing(e4.headers.get("server-timing"));

  let pending = choice.feeds.map((f) => f.feed_id);
  let cronRuns = 0;
  let nextCron = cronEveryMs > 0 ? started + cronEveryMs : Infinity;
  while (pending.length > 0) {
    const now = performance.now();
    if (now - started > timeoutMs)
      throw new Error(
        `${pending.length} of ${choice.feeds.length} feeds still without the new title after ${args.timeout} s`,
      );
    if (now >= nextCron) {
      await (await fetch(new URL("/__scheduled", args.url))).body?.cancel();
      cronRuns += 1;
      nextCron += cronEveryMs;
    }
    const titles = await Promise.all(pending.map((id) => titleInFile(id, choice.contentKey)));
    pending = pending.filter((_, i) => titles[i] !== title);
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 200));
  }
  const republishedMs = performance.now() - started;
  // The counters are recorded when a run ends, just after its last file: wait for the end.
  while ((await dirtyFeeds(choice.orgId)) > 0 && performance.now() - started < timeoutMs)
    await new Promise((r) => setTimeout(r, 500));
  const after = await workCounters();
  const work =
    before && after
      ? {
          rowsRead: after.rows_read - before.rows_read,
          ms: after.ms - before.ms,
          runs: after.runs - before.runs,
          feeds: after.feeds - before.feeds,
        }
      : null;
  return {
    contentKey: choice.contentKey,
    feeds: choice.feeds.length,
    orgFeeds: choice.orgFeeds,
    e4Ms,
    e4Cost,
    republishedMs,
    cronRuns,
    work,
  };
}

// ---------------------------------------------------------------------------------------------

const results = { totalFeeds };
const choice = await chooseWriteVideo(args.org);
console.log(
  `write video: ${choice.contentKey} of ${args.org}, in ${choice.feeds.length} of its ${choice.orgFeeds} feeds`,
);

if (wanted("rebuild")) {
  const feedIds = (
    await d1Rows(
      "select feed_id from feeds where organization_id in (select id from organizations where organization_key like 'bulk%') order by random() limit 50",
      d1,
    )
  ).map((r) => r.feed_id);
  const videos = (
    await d1Rows(
      "select content_key from contents where status = 'available' and removed = 0 and organization_id in (select id from organizations where organization_key like 'bulk%') order by random() limit 20",
      d1,
    )
  ).map((r) => r.content_key);
  const oneFeed = [];
  for (let i = 0; i < runs; i++)
    oneFeed.push(await rebuild({ feedId: feedIds[i % feedIds.length] }));
  const typicalWrite = [];
  for (let i = 0; i < runs; i++)
    typicalWrite.push(await rebuild({ contentKey: videos[i % videos.length] }));
  const writeVideo = [];
  for (let i = 0; i < Math.min(runs, 3); i++)
    writeVideo.push(await rebuild({ contentKey: choice.contentKey }));
  const all = await rebuildAll(true);

  // Largest file: HEAD every feed's files through the worker.
  let largest = { key: null, bytes: 0 };
  const allFeedIds = (await d1Rows("select feed_id from feeds", d1)).map((r) => r.feed_id);
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
    summary(`rebuild the feeds of the write's video (${choice.contentKey})`, writeVideo),
    {
      name: `rebuild every feed (${all.feeds} feeds, ${all.pages} requests)`,
      samples: 1,
      feeds: all.feeds,
      rowsRead: all.rowsRead,
      d1Ms: Math.round(all.d1Ms),
      p50: Math.round(all.ms),
      p95: null,
    },
  ];
  console.log(
    "\n" +
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
  console.log(
    `\nlargest file: ${largest.key} ${largest.bytes} bytes; max feeds touched by one write: ${max(typicalWrite.map((s) => s.feeds))}`,
  );
  Object.assign(results, { rows, largest });
}

if (wanted("write")) {
  const write = await writeScenario(choice);
  console.log(
    "\n" +
      markdownTable(
        [
          { title: "write (E4 title change)", value: (r) => r.name, align: "left" },
          { title: "feeds", value: (r) => r.feeds },
          { title: "E4 ms", value: (r) => Math.round(r.e4Ms) },
          { title: "E4 D1 rows read", value: (r) => r.e4Cost.rowsRead },
          { title: "all feeds republished after (ms)", value: (r) => Math.round(r.republishedMs) },
          { title: "cron runs", value: (r) => r.cronRuns },
          { title: "republishing D1 rows read", value: (r) => r.work?.rowsRead },
          { title: "republishing runs", value: (r) => r.work?.runs },
          { title: "republishing ms (sum of runs)", value: (r) => r.work?.ms },
        ],
        [{ name: `${write.contentKey} (${args.org})`, ...write }],
      ),
  );
  if (!write.work)
    console.log(
      "(this worker keeps no feed work counters: the republishing's rows read are not measured here)",
    );
  results.write = write;
}

writeResults("feeds", results);
