// Load benchmark (issue 11, section 5): requests per second under concurrency, in one run of one
// server, of a route without D1, the cheapest D1 route, repeated catalog reads answered from the
// Workers cache ("cached"), the same reads with a cache-busting parameter ("kept": the cache
// misses, but the isolate still holds the listing's ids from the read a moment before), cold
// reads ("truly cold": each request a listing no request of the run asked before, for every
// filter the API offers: a tag, two tags any or all, a word, two words, two categories any or
// all, deep pages; what a location pays for the long tail), E15 and a feed file; each as a
// ratio of the route without D1, against the goals (cached >= 80 % of /healthz, kept >= 70 % of
// the cheapest D1 route, cold first pages >= 40 % of it, cold deep pages >= 30 %); then reads
// under writes, the mixed scenarios (bench/lib/mixed-reads.mjs: hit ratio, reads that ran D1,
// p50/p99 and throughput with a writer on the readers' organization and on another, each
// compared with two runs without a writer that agree, more of them run until two do; each
// write's D1 rows); then the rendition rows (bench/lib/rendition-rows.mjs: a rung's media
// segment from the edge cache and on an edge miss, against /healthz measured beside them by a
// client that does not decode the bodies; goals >= 95 % and >= 30 %). Ends with the summary
// docs/benchmarks.md's load table shows. Loopback only; bounded in time (30 rows, 3 interleaved
// passes of 4 s, 2 s warm-up, 5 to 8 mixed runs of 10 s, plus waits for the writers' feed work
// to finish; the rendition rows: a 24 s upload's rung made, then 5 rows of the same passes).
//
//   npm run bench:load                               (demo data, or bulk1 when seeded)
//   npm run seed:bulk -- --reset --videos 10000      (optional: the bulk catalog; --feeds N adds feeds)
//   npm run bench:load -- [--org demo] [--connections 20] [--passes 3] [--duration 4] [--soak 60000] [--only E6]
//
// By default it prepares the local state as `npm run dev` does (assets if missing, D1
// migrations, demo data), then starts its own worker (bench/lib/load-server.mjs: wrangler's API
// with the inspector off, the local D1/R2/KV state of .wrangler/state or --persist-to, a Workers
// cache of its own, and the transcoder program beside it for the rendition rows) on a free
// loopback port, with RATE_LIMIT_PER_MINUTE (and
// PUBLIC_READS_PER_IP_PER_MINUTE) raised so the plan's limit (1000/min) and the per-client budget
// of uncached public reads do not turn the measurement into 429s, and stops it at the end. --url
// measures a server already running instead (it must be started with those settings: see
// docs/benchmarks.md, "Load"). Prints a markdown table and the server's memory, and writes
// bench/results/load-<timestamp>.json.

import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { isLoopbackUrl } from "../scripts/lib/net.mjs";
import { parseD1Timing } from "../scripts/lib/server-timing.mjs";
import { prepareState, startLoadServer } from "./lib/load-server.mjs";
import { d1Query, sqlString } from "./lib/local-db.mjs";
import { AGREEMENT, mixedColumns, mixedScenarios } from "./lib/mixed-reads.mjs";
import { canSampleMemory, sampleMemory } from "./lib/process-memory.mjs";
import { GOALS, renditionRows, startRenditionTranscoder } from "./lib/rendition-rows.mjs";
import { markdownTable, RESULTS_DIR, writeResults } from "./lib/report.mjs";

const USAGE = `Usage: npm run bench:load -- [options]

  --connections N   concurrent connections per row (default 20)
  --passes N        measure every row N times, interleaved (default 3), so that a machine's
                    changing load falls on all rows alike; req/s is over all passes
  --duration S      measured seconds per row and pass (default 4), after --warmup S (default 2)
                    in the first pass
  --soak N          then N more requests over every row's request, round robin, to show the
                    server's memory over a long run (default 0: none)
  --only REGEX      only the rows whose name matches (the two baselines always run; the mixed
                    scenarios run when REGEX matches "mixed")
  --mixed S         seconds per mixed scenario (default 10; 0: none): 20 readers on cached E6
                    and E16 first pages while one title a second changes on their organization,
                    then on another organization, then with no writer (bench/lib/mixed-reads.mjs)
  --org KEY         organization to read as (default: bulk1 when npm run seed:bulk loaded it,
                    else demo); its sync code is KEY-sync, API key KEY-key, secret KEY-secret
  --persist-to DIR  local state to serve and pick inputs from (default .wrangler/state)
  --no-prepare      do not apply migrations and seed the demo data first
  --port N          port of the server it starts (default: a free one)
  --log-requests 0|1  the worker's per-request log line (LOG_REQUESTS; default 1, as deployed)
  --renditions 0|1  the rendition rows (default 1; they run when REGEX of --only matches
                    "rendition"): a video with a rung is published in the demo organization,
                    measured and deleted; they need ffmpeg, and with --url a server that reaches
                    a transcoder (TRANSCODER_URL)
  --url URL         measure a running server instead of starting one (see docs/benchmarks.md)
  --pid PID         with --url: the server's process, to sample its memory (with children)
  --timeout S       per-request timeout (default 30)`;

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        connections: { type: "string", default: "20" },
        passes: { type: "string", default: "3" },
        duration: { type: "string", default: "4" },
        warmup: { type: "string", default: "2" },
        soak: { type: "string", default: "0" },
        mixed: { type: "string", default: "10" },
        only: { type: "string" },
        org: { type: "string" },
        "no-prepare": { type: "boolean", default: false },
        "persist-to": { type: "string" },
        port: { type: "string", default: "0" },
        "log-requests": { type: "string", default: "1" },
        renditions: { type: "string", default: "1" },
        url: { type: "string" },
        pid: { type: "string" },
        timeout: { type: "string", default: "30" },
        help: { type: "boolean", short: "h" },
      },
    }));
    const int = (name, min, max) => {
      const n = Number(values[name]);
      if (!Number.isInteger(n) || n < min || n > max)
        throw new Error(`--${name} must be an integer from ${min} to ${max}`);
      return n;
    };
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    if (!["0", "1"].includes(values["log-requests"]))
      throw new Error("--log-requests must be 0 or 1");
    if (!["0", "1"].includes(values.renditions)) throw new Error("--renditions must be 0 or 1");
    if (values.pid && !values.url) throw new Error("--pid goes with --url");
    const url = values.url ? new URL(values.url).origin : null;
    if (url && !isLoopbackUrl(url)) throw new Error("--url must be a loopback address");
    return {
      connections: int("connections", 1, 1000),
      passes: int("passes", 1, 20),
      duration: int("duration", 1, 600),
      warmup: int("warmup", 0, 60),
      soak: int("soak", 0, 10_000_000),
      mixed: int("mixed", 0, 120),
      only: values.only ? new RegExp(values.only) : null,
      org: values.org ?? null,
      prepare: !values["no-prepare"] && !values.url,
      persistTo: values["persist-to"],
      port: int("port", 0, 65535),
      logRequests: values["log-requests"],
      renditions:
        values.renditions === "1" && (!values.only || new RegExp(values.only).test("rendition")),
      url,
      pid: values.pid ? int("pid", 1, 2 ** 31) : null,
      timeout: int("timeout", 1, 600),
    };
  } catch (err) {
    console.error(`${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
}

const STOPWORDS = new Set(
  "the and with from this that your our for how top episode interview live tour guide diary special moments ideas tips secrets featuring friends location studio".split(
    " ",
  ),
);

/** The most frequent title word (4+ letters, not glue) among up to 3000 listable titles. */
function commonWord(titles) {
  const df = new Map();
  for (const { title } of titles) {
    const words = (title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
      (w) => w.length >= 4 && !STOPWORDS.has(w),
    );
    for (const w of new Set(words)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return [...df.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

/** Every distinct title word (4+ letters, not glue) among the titles, most frequent first. */
function titleWords(titles) {
  const df = new Map();
  for (const { title } of titles) {
    const words = (title.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
      (w) => w.length >= 4 && !STOPWORDS.has(w),
    );
    for (const w of new Set(words)) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return [...df.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([w]) => w);
}

/** Inputs from the local D1 database: the organization's top tags, a video, a common word, a published feed. */
async function chooseInputs(org, persistTo) {
  const orgId = `(SELECT id FROM organizations WHERE organization_key = ${sqlString(org)})`;
  const listable = `organization_id = ${orgId} AND status = 'available' AND removed = 0`;
  const [orgRows, tags, keys, titles, feeds, labels] = await d1Query(
    [
      `SELECT id, plan FROM organizations WHERE organization_key = ${sqlString(org)};`,
      `SELECT l.name AS name, count(*) AS uses FROM labels l JOIN content_labels cl ON cl.label_id = l.id
       WHERE l.organization_id = ${orgId} AND l.kind = 'tag' GROUP BY l.id ORDER BY uses DESC, l.name LIMIT 2;`,
      `SELECT content_key FROM contents WHERE ${listable} ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM contents WHERE ${listable});`,
      `SELECT title FROM contents WHERE ${listable} ORDER BY id LIMIT 3000;`,
      // A feed of the organization if it has one (seed:bulk --feeds), else any (the demo feeds).
      `SELECT f.feed_id, o.organization_key, o.id AS org_id FROM feeds f JOIN organizations o ON o.id = f.organization_id
       ORDER BY (o.organization_key = ${sqlString(org)}) DESC, f.id LIMIT 1;`,
      // The cold rows' pools: every tag and category the organization's videos carry, with
      // their listable videos (labels.videos), most used first.
      `SELECT l.kind AS kind, l.name AS name, l.videos AS videos FROM labels l
       WHERE l.organization_id = ${orgId} AND l.kind IN ('tag', 'category')
         AND EXISTS (SELECT 1 FROM content_labels cl WHERE cl.label_id = l.id)
       ORDER BY l.kind, l.videos DESC, l.name LIMIT 20000;`,
    ].join("\n"),
    { persistTo },
  );
  if (orgRows.length === 0)
    throw new Error(
      `organization ${org} is not in the local database (demo comes with npm run dev; bulk1..bulk5 with \`npm run seed:bulk -- --reset --videos 10000\`)`,
    );
  if (tags.length < 2 || keys.length === 0)
    throw new Error(`organization ${org} has too few videos to benchmark; seed more`);
  const word = commonWord(titles);
  let feed = null;
  if (feeds.length > 0) {
    const owner = feeds[0];
    const ownerTitles =
      owner.organization_key === org
        ? titles
        : (
            await d1Query(
              `SELECT title FROM contents WHERE organization_id = ${owner.org_id} AND status = 'available' AND removed = 0 ORDER BY id LIMIT 3000;`,
              { persistTo },
            )
          )[0];
    feed = {
      feedId: owner.feed_id,
      owner: owner.organization_key,
      word: commonWord(ownerTitles) ?? word,
    };
  }
  return {
    org,
    plan: orgRows[0].plan,
    tags: tags.map((t) => t.name),
    contentKey: keys[0].content_key,
    word,
    feed,
    // Without the values the other rows read: a cold row's listing is one nobody asked.
    pools: {
      tags: labels
        .filter((l) => l.kind === "tag" && !tags.some((t) => t.name === l.name))
        .map((l) => l.name),
      // Tags common enough that two of them share videos (AND) or fill ten pages of 100 (OR).
      commonTags: labels
        .filter((l) => l.kind === "tag" && !tags.some((t) => t.name === l.name))
        .slice(0, 60)
        .map((l) => l.name),
      categories: labels.filter((l) => l.kind === "category").map((l) => l.name),
      words: titleWords(titles).filter((w) => w !== word && w !== feed?.word),
      // The most frequent title words: pairs of them share titles (AND).
      commonWords: titleWords(titles)
        .filter((w) => w !== word && w !== feed?.word)
        .slice(0, 60),
    },
  };
}

/** bulk1 when the bulk catalog is loaded (the larger, more telling catalog), else demo. */
async function defaultOrg(persistTo) {
  const [rows] = await d1Query(
    "SELECT organization_key FROM organizations WHERE organization_key = 'bulk1';",
    { persistTo },
  );
  return rows.length > 0 ? "bulk1" : "demo";
}

const enc = encodeURIComponent;

/** Each value alone (when `singles`), then each pair of values. */
function* valueSets(values, singles) {
  if (singles) for (const v of values) yield [v];
  for (let a = 0; a < values.length; a++)
    for (let b = a + 1; b < values.length; b++) yield [values[a], values[b]];
}

/**
 * Listings nobody asked before, one per call of next(): a filter of one value, then of two
 * (`a|b`, any of them, or `a,b`, all of them, with `joiner: ","`: a listing of its own). Shared by the rows that filter on the same kind
 * of label, so no two requests of the run ask the same listing. When the pool is spent it
 * starts over, and those requests are counted as repeats (the table shows them: a larger
 * catalog, or shorter rows, then).
 */
function freshListings(values, { singles = true, joiner = "|" } = {}) {
  let sets = valueSets(values, singles);
  let spent = false;
  const source = {
    asked: 0,
    repeats: 0,
    next() {
      let n = sets.next();
      if (n.done) {
        spent = true;
        sets = valueSets(values, singles);
        n = sets.next();
      }
      source.asked++;
      if (spent) source.repeats++;
      return n.value.map(enc).join(joiner);
    },
  };
  return source;
}

/**
 * The rows. kind: baseline (no D1), d1 (the cheapest D1 route: E3 by key, one query once the
 * credential is cached in the isolate, never edge-cached), cached (a repeated identical read),
 * kept (the same read with `_cb=<fresh value>` per request: a parameter the worker ignores, so
 * the answer is the same and the cache key is new, but the isolate still keeps the listing's
 * ids and rows from the read a moment before), cold (each request a listing nobody asked
 * before in this run: `next()` gives its path).
 */
function buildRows(v) {
  const sync = { "X-Service-Sync-Code": `${v.org}-sync` };
  const write = {
    ...sync,
    "X-Service-Api-Key": `${v.org}-key`,
    "X-Service-Api-Secret": `${v.org}-secret`,
  };
  const byKey = (path, query) => `${path}?organization_key=${enc(v.org)}&${query}`;
  const reads = [
    { name: "E6 no filter", path: "/v2/videos/?page=1&pageSize=100", headers: sync },
    {
      name: "E6 tags=a,b (AND)",
      path: `/v2/videos/?tags=${enc(v.tags[0])},${enc(v.tags[1])}`,
      headers: sync,
    },
    {
      name: "E6 searchString=common",
      path: `/v2/videos/?searchString=${enc(v.word)}`,
      headers: sync,
    },
    {
      // The country is request.cf's: US, the local worker's placeholder.
      name: "E6 networkVideos=1 (US)",
      path: "/v2/videos/?networkVideos=1",
      headers: sync,
    },
    {
      name: "E13 privateTags=popular",
      path: byKey("/prod/search_metadata", `privateTags=${enc(v.tags[0])}`),
      headers: sync,
    },
    {
      name: "E14 common word",
      path: byKey("/prod/search_video_list", `searchString=${enc(v.word)}`),
      headers: sync,
    },
    { name: "E16 first 100", path: byKey("/get_videos", "limit=100"), headers: sync },
    // A deep page: OFFSET reads every row it skips (issue 21 measured 2 % of E3 here).
    { name: "E16 start=5000", path: byKey("/get_videos", "limit=100&start=5000"), headers: sync },
  ];
  const rows = [
    { name: "GET /healthz (no D1)", kind: "baseline", path: "/healthz", headers: {} },
    {
      name: "E3 by key (cheapest D1 route)",
      kind: "d1",
      path: `/v2/content?contentKey=${enc(v.contentKey)}`,
      headers: write,
    },
    ...reads.map((r) => ({ ...r, name: `${r.name} cached`, kind: "cached" })),
    ...reads.map((r) => ({ ...r, name: `${r.name} kept`, kind: "kept" })),
    ...coldRows(v, sync),
  ];
  if (v.feed) {
    const e15 = `/search_video_feed?feed=${enc(v.feed.feedId)}&searchString=${enc(v.feed.word)}`;
    rows.push(
      { name: "E15 cached", kind: "cached", path: e15, headers: {} },
      { name: "E15 kept", kind: "kept-other", path: e15, headers: {} },
      {
        name: `feed file ${v.feed.feedId}-feed.json`,
        kind: "cached",
        path: `/${v.feed.feedId}-feed.json`,
        headers: {},
      },
    );
  }
  return rows;
}

/**
 * The cold rows ("truly cold": each request a listing no request of the run asked before, so
 * neither the edge cache nor the isolate's kept ids answer it), one per filter the API offers,
 * from the organization's tags, categories and title words: first pages of a new tag, two tags
 * (any, all), two categories (any, all), a new word, two words (all); deep pages (10, rows
 * 901-1000) of two tags and of two categories (any); E13 on a new tag. Each row's listings
 * are its own (no two rows ask the same one). `deep` rows have their own goal. Rows whose pool
 * is empty are left out.
 */
function coldRows(v, sync) {
  const tags = freshListings(v.pools.tags);
  const words = freshListings(v.pools.words);
  const tagsAll = freshListings(v.pools.commonTags, { singles: false, joiner: "," });
  const tagsAnyDeep = freshListings(v.pools.commonTags.slice(0, 40), { singles: false });
  const wordsAll = freshListings(v.pools.commonWords, { singles: false, joiner: "," });
  // Pairs only: one category is a listing the demo and bulk catalogs repeat across rows.
  const categories = freshListings(v.pools.categories, { singles: false });
  const categoriesAll = freshListings(v.pools.categories, { singles: false, joiner: "," });
  const byKey = (path, query) => `${path}?organization_key=${enc(v.org)}&${query}`;
  const pairs = (pool) => (pool.length > 1 ? pool.length : 0);
  const rows = [
    {
      name: "E6 tags=new tag cold",
      path: "/v2/videos/?tags=<new tag, then a|b>",
      source: tags,
      pool: v.pools.tags.length,
      next: () => `/v2/videos/?tags=${tags.next()}`,
    },
    {
      name: "E6 tags=new a,b (AND) cold",
      path: "/v2/videos/?tags=<new pair of common tags, all>",
      source: tagsAll,
      pool: pairs(v.pools.commonTags),
      next: () => `/v2/videos/?tags=${tagsAll.next()}`,
    },
    {
      name: "E6 searchString=new word cold",
      path: "/v2/videos/?searchString=<new word, then a|b>",
      source: words,
      pool: v.pools.words.length,
      next: () => `/v2/videos/?searchString=${words.next()}`,
    },
    {
      name: "E6 searchString=new a,b (AND) cold",
      path: "/v2/videos/?searchString=<new pair of common words, all>",
      source: wordsAll,
      pool: pairs(v.pools.commonWords),
      next: () => `/v2/videos/?searchString=${wordsAll.next()}`,
    },
    {
      name: "E6 categories=new a|b cold",
      path: "/v2/videos/?categories=<new pair>",
      source: categories,
      pool: pairs(v.pools.categories),
      next: () => `/v2/videos/?categories=${categories.next()}`,
    },
    {
      name: "E6 categories=new a,b (AND) cold",
      path: "/v2/videos/?categories=<new pair, all>",
      source: categoriesAll,
      pool: pairs(v.pools.categories),
      next: () => `/v2/videos/?categories=${categoriesAll.next()}`,
    },
    {
      name: "E6 categories=new a|b page 10 cold",
      path: "/v2/videos/?categories=<new pair>&page=10",
      source: categories,
      pool: pairs(v.pools.categories),
      deep: true,
      next: () => `/v2/videos/?categories=${categories.next()}&page=10`,
    },
    {
      name: "E6 tags=new a|b page 10 cold",
      path: "/v2/videos/?tags=<new pair of common tags>&page=10",
      source: tagsAnyDeep,
      pool: pairs(v.pools.commonTags.slice(0, 40)),
      deep: true,
      next: () => `/v2/videos/?tags=${tagsAnyDeep.next()}&page=10`,
    },
    {
      name: "E13 privateTags=new tag cold",
      path: byKey("/prod/search_metadata", "privateTags=<new tag or pair>"),
      source: tags,
      pool: v.pools.tags.length,
      next: () => byKey("/prod/search_metadata", `privateTags=${tags.next()}`),
    },
  ];
  return rows.filter((r) => r.pool > 0).map((r) => ({ ...r, kind: "cold", headers: sync }));
}

// A value of its own per bench run, so a second run against the same server misses too.
const RUN_ID = Date.now().toString(36);
let bustCounter = 0;
const isBusted = (row) => row.kind === "kept" || row.kind === "kept-other";
const bust = (path) => `${path}${path.includes("?") ? "&" : "?"}_cb=${RUN_ID}-${++bustCounter}`;

/** One request to check a row before loading it: the status, X-Edge-Cache and body. */
async function probe(url, row, path = row.path) {
  const res = await fetch(new URL(path, url), {
    headers: row.headers,
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON.
  }
  return { status: res.status, edge: res.headers.get("x-edge-cache"), body, text };
}

/**
 * Checks what each kind promises: 200; a repeated read is a hit; a cache-busted read is a miss
 * with the same data as without the parameter (the worker ignores it); a cold read is a miss.
 * Throws otherwise.
 */
async function checkRow(url, row) {
  if (row.kind === "cold") {
    const cold = await probe(url, row, row.next());
    if (cold.status !== 200 || cold.edge !== "miss")
      throw new Error(
        `${row.name}: a new listing answered HTTP ${cold.status}, X-Edge-Cache: ${cold.edge} (expected 200, miss) ${cold.text.slice(0, 200)}`,
      );
    return;
  }
  const first = await probe(url, row);
  if (first.status !== 200)
    throw new Error(`${row.name}: HTTP ${first.status} ${first.text.slice(0, 200)}`);
  if (row.kind === "cached") {
    const again = await probe(url, row);
    if (again.edge !== "hit")
      throw new Error(
        `${row.name}: a repeated read answered X-Edge-Cache: ${again.edge} (expected hit)`,
      );
  }
  if (isBusted(row)) {
    const busted = await probe(url, row, bust(row.path));
    if (busted.status !== 200 || busted.edge !== "miss") {
      throw new Error(
        `${row.name}: the cache-busting parameter answered HTTP ${busted.status}, X-Edge-Cache: ${busted.edge} (expected 200, miss)`,
      );
    }
    const data = (b) => JSON.stringify(b?.data ?? b);
    if (data(busted.body) !== data(first.body))
      throw new Error(`${row.name}: the answer changed with the unknown parameter _cb`);
  }
}

let requestsSoFar = 0;

/** Runs autocannon over `rows` (round robin per connection) for a duration or an amount. */
async function load(url, rows, { connections, duration, amount, timeout }) {
  const tally = { statuses: {}, edge: {}, rowsRead: 0, queries: 0, timed: 0 };
  const requests = rows.map((row) => ({
    method: "GET",
    path: row.path,
    headers: row.headers,
    ...(isBusted(row) && { setupRequest: (req) => ({ ...req, path: bust(row.path) }) }),
    ...(row.kind === "cold" && { setupRequest: (req) => ({ ...req, path: row.next() }) }),
    onResponse: (status, _body, _context, headers) => {
      tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
      const edge = headers["x-edge-cache"] ?? headers["X-Edge-Cache"] ?? "-";
      tally.edge[edge] = (tally.edge[edge] ?? 0) + 1;
      const timing = parseD1Timing(headers["server-timing"] ?? headers["Server-Timing"] ?? null);
      if (timing.rowsRead !== null) {
        tally.rowsRead += timing.rowsRead;
        tally.queries += timing.queries ?? 0;
        tally.timed++;
      }
    },
  }));
  const instance = autocannon({
    url,
    connections,
    timeout,
    requests,
    ...(amount ? { amount } : { duration }),
  });
  instance.on("response", () => requestsSoFar++);
  const result = await instance;
  return { result, tally };
}

const round = (v, digits = 1) =>
  v === null || v === undefined || !Number.isFinite(v) ? null : Number(v.toFixed(digits));

function summarize(row, { result, tally }) {
  const seconds = result.duration;
  const ok = tally.statuses[200] ?? 0;
  const total = Object.values(tally.statuses).reduce((a, b) => a + b, 0);
  return {
    name: row.name,
    kind: row.kind,
    path: row.path,
    seconds,
    requests: total,
    ok,
    // Completed 200 answers per second over the measured time (errors and other statuses do not count).
    rps: round(ok / seconds),
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    latencyMax: result.latency.max,
    statuses: tally.statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    edgeCache: tally.edge,
    d1RowsReadMean: tally.timed ? round(tally.rowsRead / tally.timed) : null,
    d1QueriesMean: tally.timed ? round(tally.queries / tally.timed) : null,
  };
}

const add = (a, b) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * One row's passes as one summary: req/s over all passes (200 answers / measured seconds), the
 * slowest and fastest pass, the median of the passes' p50 and the highest p99.
 */
function mergePasses(row, passes) {
  const seconds = passes.reduce((a, p) => a + p.seconds, 0);
  const ok = passes.reduce((a, p) => a + p.ok, 0);
  const timed = passes.filter((p) => p.d1RowsReadMean !== null);
  return {
    name: row.name,
    kind: row.kind,
    deep: row.deep ?? false,
    path: row.path,
    passes: passes.length,
    seconds,
    requests: passes.reduce((a, p) => a + p.requests, 0),
    ok,
    rps: round(ok / seconds),
    rpsPasses: passes.map((p) => p.rps),
    latencyP50: median(passes.map((p) => p.latencyP50)),
    latencyP99: Math.max(...passes.map((p) => p.latencyP99)),
    latencyMax: Math.max(...passes.map((p) => p.latencyMax)),
    statuses: passes.reduce((a, p) => add(a, p.statuses), {}),
    errors: passes.reduce((a, p) => a + p.errors, 0),
    timeouts: passes.reduce((a, p) => a + p.timeouts, 0),
    edgeCache: passes.reduce((a, p) => add(a, p.edgeCache), {}),
    d1RowsReadMean: timed.length
      ? round(
          timed.reduce((a, p) => a + p.d1RowsReadMean * p.requests, 0) /
            timed.reduce((a, p) => a + p.requests, 0),
        )
      : null,
    d1QueriesMean: timed.length
      ? round(
          timed.reduce((a, p) => a + p.d1QueriesMean * p.requests, 0) /
            timed.reduce((a, p) => a + p.requests, 0),
        )
      : null,
  };
}

/** Goal of a row, as [reference rps, minimum ratio, reference name] or null. */
function goalOf(row, baseline, d1) {
  if (row.kind === "cached") return [baseline.rps, 0.8, "/healthz"];
  if (row.kind === "kept") return [d1.rps, 0.7, "E3"];
  // A listing no request asked before: first pages >= 40 % of E3, deep pages >= 30 %.
  if (row.kind === "cold") return [d1.rps, row.deep ? 0.3 : 0.4, "E3"];
  return null;
}

function edgeText(edge) {
  const entries = Object.entries(edge).filter(([k]) => k !== "-");
  const total = Object.values(edge).reduce((a, b) => a + b, 0);
  if (entries.length === 0 || total === 0) return "-";
  const hit = edge.hit ?? 0;
  return hit === total
    ? "hit"
    : hit === 0 && (edge.miss ?? 0) === total
      ? "miss"
      : `${Math.round((100 * hit) / total)}% hit`;
}

function statusesText(s) {
  const other = Object.entries(s.statuses).filter(([k]) => k !== "200");
  const parts = other.map(([k, n]) => `${k}×${n}`);
  if (s.errors) parts.push(`errors×${s.errors}`);
  if (s.timeouts) parts.push(`timeouts×${s.timeouts}`);
  return parts.join(" ") || "-";
}

const pct = (x) => (x === null ? null : `${Math.round(x * 100)} %`);

/** The range of a ratio over rows, as "a–b %" (or "a %"). */
function ratioRange(values) {
  const xs = values.filter((x) => x !== null && Number.isFinite(x));
  if (xs.length === 0) return "—";
  const [lo, hi] = [Math.min(...xs), Math.max(...xs)].map((x) => Math.round(100 * x));
  return lo === hi ? `${lo} %` : `${lo}–${hi} %`;
}

/**
 * One line per kind of read (its rows' ratios, against their goal) and per writer of the mixed
 * scenario: what docs/benchmarks.md's load table shows, so a run can be compared with it.
 */
function summaryRows(results, mixed, renditions) {
  const group = (label, rows, of, goal) => {
    const ratios = rows.map((r) => (of === "/healthz" ? r.ratioToBaseline : r.ratioToD1));
    return {
      what: label,
      measured: `${ratioRange(ratios)} of ${of}`,
      goal,
      met: rows.length === 0 ? "—" : rows.every((r) => r.goal?.met) ? "yes" : "no",
      rows: rows.length,
    };
  };
  const out = [
    group(
      "cached reads (edge cache)",
      results.filter((r) => r.kind === "cached"),
      "/healthz",
      "≥ 80 %",
    ),
    group(
      "kept pages (listing ids kept by the isolate)",
      results.filter((r) => r.kind === "kept"),
      "E3",
      "≥ 70 %",
    ),
    group(
      "truly cold first pages",
      results.filter((r) => r.kind === "cold" && !r.deep),
      "E3",
      "≥ 40 %",
    ),
    group(
      "truly cold deep pages",
      results.filter((r) => r.kind === "cold" && r.deep),
      "E3",
      "≥ 30 %",
    ),
  ];
  for (const r of mixed?.results ?? []) {
    if (r.writer === "none") continue;
    const ok = r.rpsVsNone >= 0.8 && r.p99VsNone <= 1.5;
    out.push({
      what: `readers while ${r.label}`,
      measured: `${Math.round(100 * r.rpsVsNone)} % of req/s, p99 ${r.p99VsNone.toFixed(2)}×${r.against?.agreed ? "" : " (baselines did not agree)"}`,
      goal: "≥ 80 %, ≤ 1.5×",
      met: ok ? "yes" : "no",
      rows: r.e4
        ? `E4 ${Math.round(r.e4.rowsRead)} / ${Math.round(r.e4.rowsWritten)} rows, feeds ${r.feedWork ? `${Math.round(r.feedWork.rowsRead)} / ${Math.round(r.feedWork.rowsWritten)}` : "—"} per write`
        : "",
    });
  }
  // The rendition rows: each against the /healthz measured beside it by the same client, and
  // the ceiling a worker's answer of that size meets here (a static file as large, no worker).
  const control = renditions?.rows.find((r) => r.kind === "control");
  for (const [kind, what] of [
    ["cold", "rendition segment on an edge miss (packaged once, stored)"],
    ["cached", "rendition segment from the edge cache"],
  ]) {
    const r = renditions?.rows.find((row) => row.kind === kind);
    if (!r) continue;
    out.push({
      what,
      measured: `${pct(r.ratio)} of /healthz`,
      goal: `≥ ${GOALS[kind] * 100} %`,
      met: r.ratio >= GOALS[kind] ? "yes" : "no",
      rows: `${Math.round(r.bytes / 1000)} KB; a static file of ${Math.round(control.bytes / 1000)} KB: ${pct(control.ratio)}`,
    });
  }
  return out;
}

/** The rendition rows' table: each row's req/s and its share of /healthz measured beside it. */
function renditionColumns() {
  return [
    { title: "row", value: (r) => r.name, align: "left" },
    { title: "req/s", value: (r) => round(r.rps) },
    { title: "× /healthz", value: (r) => pct(r.ratio) },
    {
      title: "goal",
      value: (r) => (r.goal ? `${r.ratio >= r.goal ? "ok" : "MISS"} (≥ ${r.goal * 100} %)` : ""),
    },
    { title: "p50 ms", value: (r) => round(r.p50) },
    { title: "p99 ms", value: (r) => round(r.p99) },
    { title: "KB", value: (r) => (r.bytes ? Math.round(r.bytes / 1000) : "") },
    {
      title: "not 200",
      value: (r) =>
        [
          ...Object.entries(r.statuses)
            .filter(([code]) => code !== "200" && code !== "206")
            .map(([code, n]) => `${code}×${n}`),
          ...(r.errors ? [`errors×${r.errors}`] : []),
        ].join(" ") || "-",
    },
  ];
}

function summaryColumns() {
  return [
    { title: "what", value: (r) => r.what, align: "left" },
    { title: "measured", value: (r) => r.measured },
    { title: "goal", value: (r) => r.goal },
    { title: "met", value: (r) => r.met },
    { title: "rows (or D1 rows read / written)", value: (r) => r.rows },
  ];
}

async function main() {
  const opts = options();
  const startedAt = new Date();
  const t0 = performance.now();
  const log = (line) =>
    console.error(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${line}`);

  if (opts.prepare) {
    log("preparing the local state (as npm run dev: migrations, demo data) ...");
    for (const line of await prepareState({ persistTo: opts.persistTo }))
      log(`  ${line.split("\n").join("\n         ")}`);
  }
  opts.org ??= await defaultOrg(opts.persistTo);
  const inputs = await chooseInputs(opts.org, opts.persistTo);
  log(
    `inputs (${opts.org}, ${inputs.plan}): tags "${inputs.tags[0]}", "${inputs.tags[1]}"; word "${inputs.word}"; contentKey ${inputs.contentKey}; ` +
      (inputs.feed
        ? `feed ${inputs.feed.feedId} of ${inputs.feed.owner} (E15 word "${inputs.feed.word}")`
        : "no feed: E15 and feed file rows left out"),
  );
  const rows = buildRows(inputs).filter(
    (r) => r.kind === "baseline" || r.kind === "d1" || !opts.only || opts.only.test(r.name),
  );

  let server = null;
  let url = opts.url;
  let pid = opts.pid;
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  // The rendition rows' rung is made by the transcoder program beside the worker it starts.
  let transcoder = null;
  let renditionsSkipped = opts.renditions ? null : "--renditions 0 or --only";
  if (!url && opts.renditions) {
    try {
      transcoder = await startRenditionTranscoder();
    } catch (err) {
      renditionsSkipped = err.message;
    }
  }
  if (!url) {
    log("starting the worker (wrangler API, inspector off) ...");
    server = await startLoadServer({
      persistTo: opts.persistTo,
      port: opts.port,
      logFile: `${RESULTS_DIR}/load-${stamp}-server.log`,
      vars: {
        RATE_LIMIT_PER_MINUTE: "100000000",
        // Every request comes from one address: its E15 misses are not a client to refuse.
        PUBLIC_READS_PER_IP_PER_MINUTE: "10000000",
        LOG_REQUESTS: opts.logRequests,
        ...transcoder?.vars,
      },
    });
    url = server.url;
    pid = server.pid;
    log(`worker on ${url} (pid ${pid}; log ${server.logFile})`);
  }
  const stopServer = async () => {
    if (server) {
      const s = server;
      server = null;
      await s.stop();
      log("stopped the worker and everything it started");
    }
    if (transcoder) {
      const t = transcoder;
      transcoder = null;
      await t.close();
    }
  };
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, async () => {
      await stopServer();
      process.exit(130);
    });
  }

  const memory =
    pid && canSampleMemory() ? sampleMemory(pid, 1000, () => ({ requests: requestsSoFar })) : null;
  const results = [];
  let soak = null;
  let mixed = null;
  let renditions = null;
  try {
    // Dirty feeds (seed:bulk --feeds) get their files now; then every row is checked once.
    if (server) await fetch(new URL("/__scheduled", url)).then((r) => r.body?.cancel());
    for (const row of rows) await checkRow(url, row);
    log(
      `checked ${rows.length} rows (200; repeated reads hit the cache; _cb misses it and changes nothing)`,
    );
    const base = { connections: opts.connections, timeout: opts.timeout };
    const passes = rows.map(() => []);
    for (let pass = 0; pass < opts.passes; pass++) {
      for (const [i, row] of rows.entries()) {
        if (pass === 0 && opts.warmup) await load(url, [row], { ...base, duration: opts.warmup });
        const summary = summarize(
          row,
          await load(url, [row], { ...base, duration: opts.duration }),
        );
        passes[i].push(summary);
        const rss = memory ? memory.now().totalMb : null;
        log(
          `[pass ${pass + 1}/${opts.passes}, ${i + 1}/${rows.length}] ${row.name}: ${summary.rps} req/s, p50 ${summary.latencyP50} ms, p99 ${summary.latencyP99} ms, ${statusesText(summary)}${rss ? `, server RSS ${rss} MB` : ""}`,
        );
      }
    }
    for (const [i, row] of rows.entries()) {
      const merged = mergePasses(row, passes[i]);
      merged.rssMb = memory ? memory.now().totalMb : null;
      // Every cold row's source counts the run's requests of all rows sharing it.
      if (row.source) merged.listings = { asked: row.source.asked, repeats: row.source.repeats };
      results.push(merged);
    }
    if (opts.soak) {
      log(
        `soak: ${opts.soak} requests over the ${rows.length} rows, ${opts.connections} connections ...`,
      );
      const soakStarted = performance.now();
      const before = requestsSoFar;
      soak = summarize(
        { name: "soak (every row, round robin)", kind: "soak", path: "-" },
        await load(url, rows, { ...base, amount: opts.soak }),
      );
      soak.seconds = round((performance.now() - soakStarted) / 1000);
      soak.requestsCounted = requestsSoFar - before;
      log(`soak: ${soak.requests} answers in ${soak.seconds} s, ${statusesText(soak)}`);
    }
    if (opts.mixed && (!opts.only || opts.only.test("mixed"))) {
      log(
        `mixed: ${opts.connections} readers on cached E6 and E16 first pages, ${opts.mixed} s per writer ...`,
      );
      mixed = await mixedScenarios(url, {
        org: inputs.org,
        readers: opts.connections,
        durationMs: opts.mixed * 1000,
        persistTo: opts.persistTo,
        log,
      });
    }
    // Last: its upload changes the demo organization's catalog (deleted again at the end).
    if (!renditionsSkipped) {
      log(
        `rendition rows: a 24 s 720p upload with an r360 rung, then ${opts.passes} interleaved pass(es) of ${opts.duration} s, ${opts.connections} connections ...`,
      );
      try {
        renditions = await renditionRows({
          url,
          connections: opts.connections,
          seconds: opts.duration,
          passes: opts.passes,
          log,
        });
      } catch (err) {
        renditionsSkipped = `failed: ${err.message}`;
        process.exitCode = 1;
      }
    }
    if (renditionsSkipped) log(`rendition rows left out: ${renditionsSkipped}`);
  } finally {
    memory?.stop();
    await stopServer();
  }

  const baseline = results.find((r) => r.kind === "baseline");
  const d1 = results.find((r) => r.kind === "d1");
  for (const r of results) {
    r.ratioToBaseline = baseline.rps ? round(r.rps / baseline.rps, 3) : null;
    r.ratioToD1 = d1.rps ? round(r.rps / d1.rps, 3) : null;
    const goal = goalOf(r, baseline, d1);
    r.goal = goal ? { of: goal[2], min: goal[1], met: r.rps >= goal[0] * goal[1] } : null;
  }
  const totalSeconds = round((performance.now() - t0) / 1000);

  const table = markdownTable(
    [
      { title: "row", value: (r) => r.name, align: "left" },
      { title: "req/s", value: (r) => r.rps },
      { title: "passes", value: (r) => `${Math.min(...r.rpsPasses)}–${Math.max(...r.rpsPasses)}` },
      { title: "× /healthz", value: (r) => pct(r.ratioToBaseline) },
      { title: "× E3", value: (r) => pct(r.ratioToD1) },
      {
        title: "goal",
        value: (r) =>
          r.goal ? `${r.goal.met ? "ok" : "MISS"} (≥ ${r.goal.min * 100} % of ${r.goal.of})` : "",
      },
      { title: "p50 ms", value: (r) => r.latencyP50 },
      { title: "p99 ms", value: (r) => r.latencyP99 },
      { title: "answers", value: (r) => r.requests },
      { title: "not 200", value: (r) => statusesText(r) },
      { title: "X-Edge-Cache", value: (r) => edgeText(r.edgeCache) },
      {
        title: "new listings",
        value: (r) =>
          r.listings
            ? `${r.listings.asked}${r.listings.repeats ? ` (${r.listings.repeats} repeats)` : ""}`
            : "",
      },
      { title: "D1 queries/req", value: (r) => r.d1QueriesMean },
      { title: "D1 rows/req", value: (r) => r.d1RowsReadMean },
    ],
    results,
  );
  console.log(`\n${table}`);
  const missed = results.filter((r) => r.goal && !r.goal.met).map((r) => r.name);
  console.log(
    `\nGoals: ${missed.length === 0 ? "all met" : `missed by ${missed.length} row(s): ${missed.join("; ")}`}.`,
  );
  if (mixed) {
    console.log(
      `\nReads while a publisher writes (${opts.connections} readers, half on each of ${mixed.paths.join(" and ")}, ${opts.mixed} s each; goals: readers' req/s ≥ 80 % and p99 ≤ 1.5× the runs without a writer they are compared with, from the edge ≥ 99 %):\n`,
    );
    console.log(markdownTable(mixedColumns(), mixed.results));
    if (!mixed.baselinesAgreed)
      console.log(
        `\nNo two runs without a writer agreed within ${AGREEMENT * 100} % (the machine's load moved too much): the ratios above compare with the runs beside each writer run.`,
      );
  }
  if (renditions) {
    console.log(
      `\nRendition segments (bench/lib/rendition-rows.mjs: ${opts.connections} connections, ${opts.passes} interleaved pass(es) of ${opts.duration} s, a client that counts the body bytes without decoding them; × /healthz is against the /healthz measured beside them by the same client):\n`,
    );
    console.log(markdownTable(renditionColumns(), renditions.rows));
    for (const note of renditions.notes) console.log(`\n${note}`);
  } else if (renditionsSkipped) {
    console.log(`\nRendition rows left out: ${renditionsSkipped}.`);
  }
  console.log(`\nSummary (docs/benchmarks.md's load table):\n`);
  console.log(markdownTable(summaryColumns(), summaryRows(results, mixed, renditions)));

  let memoryReport = null;
  if (memory) {
    const samples = memory.samples;
    const first = samples[0];
    const last = samples.at(-1);
    const peak = samples.reduce((a, b) => (b.totalMb > a.totalMb ? b : a));
    // The timeline at about every tenth of the requests.
    const step = Math.max(1, Math.ceil((last.requests || 1) / 10));
    const marks = [first];
    for (const s of samples) if (s.requests >= (marks.at(-1).requests ?? 0) + step) marks.push(s);
    if (marks.at(-1) !== last) marks.push(last);
    const names = (s) => s.processes.map((p) => `${p.name} ${p.rssMb}`).join(", ");
    console.log(
      `\nServer memory (RSS of pid ${pid} and its children, MB), by requests answered so far:`,
    );
    console.log(
      markdownTable(
        [
          { title: "requests", value: (s) => s.requests },
          { title: "s", value: (s) => round((s.at - first.at) / 1000, 0) },
          { title: "total MB", value: (s) => s.totalMb },
          { title: "processes (MB)", value: (s) => names(s), align: "left" },
        ],
        marks,
      ),
    );
    console.log(
      `peak ${peak.totalMb} MB at ${peak.requests} requests; start ${first.totalMb} MB, end ${last.totalMb} MB.`,
    );
    memoryReport = {
      pid,
      first,
      last,
      peak,
      samples: samples.map(({ at, requests, totalMb }) => ({ at, requests, totalMb })),
    };
  }

  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? null,
    loadavgAtEnd: loadavg().map((x) => round(x, 2)),
  };
  const file = writeResults("load", {
    bench: "load",
    startedAt: startedAt.toISOString(),
    url: opts.url ?? "own server (wrangler API, inspector off)",
    settings: {
      connections: opts.connections,
      passes: opts.passes,
      duration: opts.duration,
      warmup: opts.warmup,
      soak: opts.soak,
      mixed: opts.mixed,
      logRequests: opts.logRequests,
      timeout: opts.timeout,
    },
    machine,
    inputs,
    rows: results,
    soak,
    mixed,
    renditions: renditions ?? { skipped: renditionsSkipped },
    memory: memoryReport,
    totalSeconds,
    requestsTotal: requestsSoFar,
  });
  console.log(
    `\n${opts.connections} connections; ${opts.passes} interleaved pass(es) of ${opts.duration} s per row (${opts.warmup} s warm-up in the first); ` +
      `req/s = 200 answers per second over all passes, "passes" = the slowest and fastest pass; ` +
      `machine: ${machine.cpus} CPUs, load average ${machine.loadavgAtEnd.join(" / ")} at the end (the bench and the server share them).\n` +
      `${requestsSoFar} requests in ${totalSeconds} s in total. Results: ${file}`,
  );
  if (
    results.some((r) => r.ok < r.requests) ||
    (soak && soak.ok < soak.requests) ||
    mixed?.results.some((r) => r.errors) ||
    renditions?.rows.some((r) => r.errors || Object.keys(r.statuses).some((c) => Number(c) >= 300))
  )
    process.exitCode = 1;
}

main().catch((err) => {
  console.error(`bench:load failed: ${err.message}`);
  process.exit(1);
});
