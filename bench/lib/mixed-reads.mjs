// Reads while a publisher writes (issue 21), shared by bench:load (its "mixed" section) and
// bench:writes (the same with EDGE_STALE_SECONDS 5 and 0): N readers read cached first pages
// (E6 and E16, half each) as fast as they can for D seconds while a writer changes one title a
// second on the readers' organization, then on another organization, with a run while nobody
// writes before, between and after them (the baselines), each run once the feed republishing
// queued by earlier writes has finished. Each writer run is compared with two baselines that
// agree (readers' req/s within AGREEMENT): its neighbours when they do, else the nearest pair
// that does; when none does, more baselines run (up to EXTRA_BASELINES) and, failing that,
// the table says the comparison is with baselines that did not agree. What each write cost
// in D1 is shown beside it: the E4 request's rows (Server-Timing) and the feed passes' (the
// worker's feed_work_* counters, read once the passes are done).
// Every answer is classified by its X-Edge-Cache header: hit, stale (an earlier version's answer,
// at most EDGE_STALE_SECONDS old), coalesced (another request's fresh computation), miss (this
// request ran the listing against D1). "From the edge" is hit + stale + coalesced (every answer
// but the misses, and but any without the header): what issue 21 calls the hit ratio (its 90 %
// went with ~14 misses per write at 132 req/s).
import { parseD1Timing } from "../../scripts/lib/server-timing.mjs";
import { d1Query, sqlString } from "./local-db.mjs";

const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : null;

const credentials = (org) => ({
  read: { "X-Service-Sync-Code": `${org}-sync` },
  write: {
    "X-Service-Sync-Code": `${org}-sync`,
    "X-Service-Api-Key": `${org}-key`,
    "X-Service-Api-Secret": `${org}-secret`,
  },
});

/** The first pages the readers read: E6 (100 newest) and E16 (first 100). */
export function readerPaths(org) {
  return [
    `/v2/videos/?page=1&pageSize=100`,
    `/get_videos?organization_key=${encodeURIComponent(org)}&limit=100`,
  ];
}

/**
 * The writers' videos, from the local database: the readers' organization's newest listed video
 * (on both pages read), and another organization's newest listed video, preferring one its
 * network is not shown (its title is then on none of the readers' pages; a syndicated one may
 * rightly refresh E16, which lists network videos).
 */
export async function chooseWriters(org, { persistTo } = {}) {
  const listed = (orgId) =>
    `c.organization_id = ${orgId} AND c.status = 'available' AND c.removed = 0`;
  const orgId = `(SELECT id FROM organizations WHERE organization_key = ${sqlString(org)})`;
  const [own, other] = await d1Query(
    [
      `SELECT c.content_key FROM contents c WHERE ${listed(orgId)} ORDER BY c.published_at DESC, c.id DESC LIMIT 1;`,
      `SELECT o.organization_key, c.content_key,
         EXISTS (SELECT 1 FROM network_listings n WHERE n.content_id = c.id) AS syndicated
       FROM organizations o JOIN contents c ON ${listed("o.id")}
       WHERE o.organization_key <> ${sqlString(org)} AND o.organization_key NOT LIKE 'fuzz-%'
       ORDER BY syndicated, (o.organization_key IN ('partner', 'bulk2')) DESC, o.id, c.published_at DESC LIMIT 1;`,
    ].join("\n"),
    { persistTo },
  );
  if (own.length === 0) throw new Error(`organization ${org} lists no video`);
  return {
    same: { org, contentKey: own[0].content_key },
    other: other[0]
      ? {
          org: other[0].organization_key,
          contentKey: other[0].content_key,
          syndicated: other[0].syndicated === 1,
        }
      : null,
  };
}

/** One E4 title change a second on `target` until `end`; returns the number of writes and restores the title. */
async function writeTitles(baseUrl, target, end) {
  const { write } = credentials(target.org);
  const path = `${baseUrl}/v2/content`;
  const original = await (
    await fetch(`${path}?contentKey=${encodeURIComponent(target.contentKey)}`, { headers: write })
  ).json();
  if (!original.contentKey)
    throw new Error(
      `E3 of ${target.org}/${target.contentKey} answered ${JSON.stringify(original).slice(0, 200)}`,
    );
  const cost = { rowsRead: 0, rowsWritten: 0 };
  const put = async (body) => {
    const res = await fetch(path, {
      method: "PUT",
      headers: { ...write, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 200)
      throw new Error(
        `E4 of ${target.org}/${target.contentKey} answered ${res.status}: ${await res.text()}`,
      );
    await res.arrayBuffer();
    const timing = parseD1Timing(res.headers.get("Server-Timing"));
    cost.rowsRead += timing.rowsRead ?? 0;
    cost.rowsWritten += timing.rowsWritten ?? 0;
  };
  let writes = 0;
  try {
    while (Date.now() < end - 500) {
      const next = Date.now() + 1000;
      await put({ ...original, title: `${original.title} (${writes})` });
      writes++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
    }
  } finally {
    await put(original);
  }
  // The title put back is a write too.
  return {
    writes: writes + 1,
    e4: { rowsRead: cost.rowsRead / (writes + 1), rowsWritten: cost.rowsWritten / (writes + 1) },
  };
}

/** N readers for `durationMs` over `paths` (reader i reads paths[i mod n]), with an optional writer. */
async function readWhile(baseUrl, { org, paths, readers, durationMs, writer }) {
  const { read } = credentials(org);
  for (const path of paths)
    await fetch(`${baseUrl}${path}`, { headers: read }).then((r) => r.arrayBuffer()); // warm the entries
  const end = Date.now() + durationMs;
  const how = {};
  const latencies = [];
  let errors = 0;
  const reader = async (i) => {
    const url = `${baseUrl}${paths[i % paths.length]}`;
    while (Date.now() < end) {
      const t = performance.now();
      const res = await fetch(url, { headers: read });
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      if (res.status !== 200) errors++;
      const h = res.headers.get("X-Edge-Cache") ?? "none";
      how[h] = (how[h] ?? 0) + 1;
    }
  };
  const [{ writes, e4 }] = await Promise.all([
    writer ? writeTitles(baseUrl, writer, end) : { writes: 0, e4: null },
    ...Array.from({ length: readers }, (_, i) => reader(i)),
  ]);
  latencies.sort((a, b) => a - b);
  const requests = latencies.length;
  const computed = how.miss ?? 0;
  const edge = (how.hit ?? 0) + (how.stale ?? 0) + (how.coalesced ?? 0);
  return {
    requests,
    perSecond: Math.round(requests / (durationMs / 1000)),
    how,
    computed,
    fromEdge: requests ? edge / requests : null,
    writes,
    e4,
    computedPerWrite: writes ? computed / writes : null,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    errors,
  };
}

/**
 * A poll of the local database from a second process while the server writes to it: wrangler
 * sometimes answers "internal error" (the file is busy). Tried up to 5 times, 2 s apart.
 */
async function pollAgain(poll, log) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await poll();
    } catch (err) {
      if (attempt >= 5) throw err;
      log(`polling the local database failed (${err.message.split("\n")[0]}); again in 2 s`);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

/**
 * Waits until the feed republishing the writes queued has finished: no feed of any organization
 * marked dirty or held by a rebuild (the dirty marks in D1 are the queue's truth:
 * src/domain/feeds/rebuild-requests.ts). Polls the local database every `everyMs`; gives up
 * after `maxMs` (the run then says it did not drain). Answers the wait and what was pending.
 */
export async function waitForFeedsDrained({
  persistTo,
  everyMs = 2000,
  maxMs = 600_000,
  log = () => {},
  runCron = async () => {},
} = {}) {
  const started = Date.now();
  let first = null;
  let idlePolls = 0;
  for (;;) {
    const now = sqlString(new Date().toISOString());
    const row = await pollAgain(
      async () =>
        (
          await d1Query(
            `SELECT coalesce(sum(dirty_since IS NOT NULL), 0) AS dirty,
              coalesce(sum(building_until > ${now}), 0) AS building FROM feeds;`,
            { persistTo },
          )
        )[0][0],
      log,
    );
    first ??= row;
    const waitedMs = Date.now() - started;
    if (row.dirty === 0 && row.building === 0)
      return {
        drained: true,
        waitedMs,
        dirtyAtStart: first.dirty,
        buildingAtStart: first.building,
      };
    if (waitedMs >= maxMs) {
      log(
        `feeds not drained after ${Math.round(waitedMs / 1000)} s (${row.dirty} dirty, ${row.building} being rebuilt): measuring anyway`,
      );
      return {
        drained: false,
        waitedMs,
        dirtyAtStart: first.dirty,
        buildingAtStart: first.building,
      };
    }
    // Dirty feeds with no rebuild in flight wait for the cron (seed:bulk's feeds, or more than
    // one pass's budget): run it, as the minute's cron would, after two idle polls.
    idlePolls = row.building === 0 ? idlePolls + 1 : 0;
    if (idlePolls >= 2) {
      idlePolls = 0;
      await runCron();
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * The scenarios, each `durationMs`, with a run without a writer before, between and after the
 * writer runs (none, writer on the readers' organization, none, writer on another organization,
 * none), so each writer run is compared with the baselines on either side of it, measured on
 * the same machine's load a moment apart. Before every run the feed republishing queued by the
 * previous writes is left to finish (waitForFeedsDrained), so a baseline is not measured beside
 * it. `log` gets one line per run.
 */
export async function mixedScenarios(
  baseUrl,
  { org, readers = 20, durationMs = 10_000, persistTo, log = () => {} },
) {
  const writers = await chooseWriters(org, { persistTo });
  const paths = readerPaths(org);
  const writerRuns = [
    { writer: "same", label: `one E4 a second on ${org}`, target: writers.same },
    ...(writers.other
      ? [
          {
            writer: "other",
            label: `one E4 a second on ${writers.other.org}${writers.other.syndicated ? " (a video shown to the network)" : ""}`,
            target: writers.other,
          },
        ]
      : []),
  ];
  const scenarios = [];
  for (const w of writerRuns) {
    scenarios.push({ writer: "none", target: null }, w);
  }
  scenarios.push({ writer: "none", target: null });
  let baselines = 0;
  for (const s of scenarios) {
    if (s.writer === "none") s.label = `none (${++baselines} of ${writerRuns.length + 1})`;
  }
  const results = [];
  const runCron = () =>
    fetch(new URL("/__scheduled", baseUrl)).then(
      (r) => r.body?.cancel(),
      () => {},
    );
  const run = async (s) => {
    const drain = await waitForFeedsDrained({ persistTo, log, runCron });
    if (drain.waitedMs >= 5000 || drain.dirtyAtStart > 0)
      log(
        `waited ${(drain.waitedMs / 1000).toFixed(0)} s for the queued feed republishing (${drain.dirtyAtStart} feeds dirty) before: ${s.label}`,
      );
    const work = await feedWork(persistTo, log);
    // The feed work the previous run's writes set off, now that it is drained.
    const previous = results.at(-1);
    if (previous?.writes && previous.feedWorkBefore && work)
      previous.feedWork = perWrite(previous.feedWorkBefore, work, previous.writes);
    const r = await readWhile(baseUrl, { org, paths, readers, durationMs, writer: s.target });
    results.push({
      writer: s.writer,
      label: s.label,
      target: s.target,
      drain,
      feedWorkBefore: work,
      ...r,
    });
    log(
      `mixed reads, writer ${s.label}: ${r.perSecond} req/s, ${pctText(r.fromEdge)} from the edge, ${r.computed} ran D1, p50 ${r.p50} ms, p99 ${r.p99} ms`,
    );
  };
  for (const s of scenarios) await run(s);
  // More runs without a writer until two agree (or EXTRA_BASELINES more did not help).
  let extra = 0;
  while (agreeingPairs(results).length === 0 && extra < EXTRA_BASELINES) {
    extra++;
    baselines++;
    log(`no two runs without a writer agree within ${AGREEMENT * 100} %: one more`);
    await run({ writer: "none", target: null, label: `none (${baselines}, again)` });
  }
  const pairs = agreeingPairs(results);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const [i, r] of results.entries()) {
    r.p99VsNone = null;
    r.rpsVsNone = null;
    if (r.writer === "none") continue;
    // The agreeing pair nearest the writer run (its neighbours when they agree); with none
    // agreeing, its neighbours, and the table says so.
    const distance = ([a, b]) => Math.abs(a - i) + Math.abs(b - i);
    const pair = [...pairs].sort((x, y) => distance(x) - distance(y))[0];
    const against = pair ?? [i - 1, i + 1].filter((j) => results[j]?.writer === "none");
    r.against = { runs: against.map((j) => results[j].label), agreed: pair !== undefined };
    const p99 = mean(against.map((j) => results[j].p99));
    const rps = mean(against.map((j) => results[j].perSecond));
    r.p99VsNone = p99 ? r.p99 / p99 : null;
    r.rpsVsNone = rps ? r.perSecond / rps : null;
  }
  for (const r of results) delete r.feedWorkBefore;
  return { paths, results, baselinesAgreed: pairs.length > 0 };
}

/** Two runs without a writer agree when their readers' req/s are within this share of each other. */
export const AGREEMENT = 0.15;
/** Runs without a writer added, at most, when no two of the planned ones agree. */
const EXTRA_BASELINES = 3;

/** Index pairs of runs without a writer that agree (AGREEMENT). */
function agreeingPairs(results) {
  const none = [...results.keys()].filter((i) => results[i].writer === "none");
  const pairs = [];
  for (const [x, a] of none.entries())
    for (const b of none.slice(x + 1)) {
      const [lo, hi] = [results[a].perSecond, results[b].perSecond].sort((p, q) => p - q);
      if (hi > 0 && lo >= hi * (1 - AGREEMENT)) pairs.push([a, b]);
    }
  return pairs;
}

/** The feed work counters the worker keeps (cron_state feed_work_*), or null without them. */
async function feedWork(persistTo, log) {
  const rows = await pollAgain(
    async () =>
      (
        await d1Query("SELECT name, value FROM cron_state WHERE name LIKE 'feed_work_%';", {
          persistTo,
        })
      )[0],
    log,
  );
  return rows.length
    ? Object.fromEntries(rows.map((r) => [r.name.replace(/^feed_work_/, ""), Number(r.value)]))
    : null;
}

/** What the feed work between two counter readings was, per write. */
function perWrite(before, after, writes) {
  const delta = (name) => ((after[name] ?? 0) - (before[name] ?? 0)) / writes;
  return {
    passes: (after.runs ?? 0) - (before.runs ?? 0),
    feeds: delta("feeds"),
    patched: delta("patched"),
    rowsRead: delta("rows_read"),
    rowsWritten: delta("rows_written"),
    ms: delta("ms"),
  };
}

function pctText(ratio) {
  return ratio === null ? "—" : `${(100 * ratio).toFixed(ratio >= 0.99 && ratio < 1 ? 1 : 0)} %`;
}

/** The scenarios' table columns (markdownTable's), shared by both benches. */
export function mixedColumns() {
  const share = (r, h) => `${Math.round((100 * (r.how[h] ?? 0)) / (r.requests || 1))} %`;
  return [
    { title: "writer", value: (r) => r.label, align: "left" },
    { title: "readers' req/s", value: (r) => r.perSecond },
    { title: "from the edge", value: (r) => pctText(r.fromEdge) },
    {
      title: "hit / stale / coalesced",
      value: (r) => `${share(r, "hit")} / ${share(r, "stale")} / ${share(r, "coalesced")}`,
    },
    { title: "ran D1", value: (r) => r.computed },
    {
      title: "per write",
      value: (r) => (r.computedPerWrite === null ? "—" : r.computedPerWrite.toFixed(1)),
    },
    { title: "p50 ms", value: (r) => r.p50 },
    { title: "p99 ms", value: (r) => r.p99 },
    {
      title: "req/s × none",
      value: (r) => (r.rpsVsNone == null ? "—" : `${Math.round(100 * r.rpsVsNone)} %`),
    },
    {
      title: "p99 × none",
      value: (r) => (r.p99VsNone == null ? "—" : `${r.p99VsNone.toFixed(2)}×`),
    },
    {
      title: "compared with",
      value: (r) =>
        r.against
          ? `${r.against.runs.join(", ")}${r.against.agreed ? "" : " (did not agree)"}`
          : "—",
    },
    {
      title: "D1 rows per write: E4 read / written",
      value: (r) => (r.e4 ? `${Math.round(r.e4.rowsRead)} / ${Math.round(r.e4.rowsWritten)}` : "—"),
    },
    {
      title: "feed work per write: feeds (patched), rows read / written, ms",
      value: (r) =>
        r.feedWork
          ? `${r.feedWork.feeds.toFixed(1)} (${r.feedWork.patched.toFixed(1)}), ${Math.round(r.feedWork.rowsRead)} / ${Math.round(r.feedWork.rowsWritten)}, ${Math.round(r.feedWork.ms)}`
          : "—",
    },
    {
      title: "drain wait s (dirty feeds)",
      value: (r) =>
        r.drain
          ? `${Math.round(r.drain.waitedMs / 1000)} (${r.drain.dirtyAtStart})${r.drain.drained ? "" : " not drained"}`
          : "—",
    },
    { title: "errors", value: (r) => r.errors },
  ];
}
