// CMCD collector benchmark (docs/qoe.md, docs/benchmarks.md "CMCD collector"):
//
// 1. requests per second of POST /v2/cmcd as players send it (hls.js and dash.js: one report per
//    request; a batch of 10 as a batching SDK or Shaka's batchSize sends), each as a ratio of
//    GET /healthz in the same round; rounds interleave the three rows so a busy machine slows
//    all alike. Reports are those of real sessions: 2,000 sessions report one after another
//    (starting, playing, time interval reports, now and then a stall), so the consumer replays
//    views that grow, as in production.
// 2. the queue consumer's cost: from the worker's log lines ("events counted", one per queue
//    batch), D1 statements, rows read and written and milliseconds per 1,000 reports.
//
// Starts its own worker of this checkout over the local state (scripts/lib/dev-worker.mjs, the
// inspector off; the per-client and per-organization ceilings raised so the load is measured,
// not refused) on a free loopback port; `npm run dev` must have run once (migrations, the demo
// organization). Stop `npm run dev` first: two servers on one state contend for its files.
//
//   npm run bench:cmcd [-- --rounds 3 --duration 5 --connections 10 --org demo]
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { freePort } from "../scripts/lib/net.mjs";
import { launchProcessGroup, readyUrl } from "../scripts/lib/worker-launcher.mjs";
import { markdownTable } from "./lib/report.mjs";
import { median } from "./lib/stats.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    sync: { type: "string", default: "demo-sync" },
    persist: { type: "string", default: ".wrangler/state" },
  },
});
const rounds = Math.min(10, Math.max(1, Number(values.rounds)));
const duration = Math.min(30, Math.max(1, Number(values.duration)));
const connections = Math.min(64, Math.max(1, Number(values.connections)));

async function startWorker() {
  const port = await freePort();
  const options = {
    port,
    persist: join(ROOT, values.persist),
    vars: {
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      EVENTS_PER_IP_PER_MINUTE: "10000000",
      EVENTS_PER_ORG_PER_MINUTE: "100000000",
    },
  };
  const { child, stop } = launchProcessGroup(
    [join(ROOT, "scripts", "lib", "dev-worker.mjs"), JSON.stringify(options)],
    { cwd: ROOT },
  );
  const logs = [];
  let output = "";
  child.stderr.on("data", (d) => (output += d));
  const url = await readyUrl(child, {
    timeoutMs: 120_000,
    onLine: (line) => {
      if (!line.startsWith("{")) return void (output += `${line}\n`);
      try {
        logs.push(JSON.parse(line));
      } catch {
        // not one of the worker's JSON lines
      }
    },
    describe: () => output.slice(-2000),
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, logs, stop };
}

const worker = await startWorker();
try {
  const base = worker.url;
  const listed = await fetch(`${base}/v2/videos/?pageSize=1`, {
    headers: { "X-Service-Sync-Code": values.sync },
  });
  const contentKey = (await listed.json()).data?.[0]?.contentKey;
  if (!contentKey)
    throw new Error(
      `no video of ${values.sync} to report on: run \`npm run dev\` once (the demo data)`,
    );

  // Reports of 2,000 sessions, each going on where it stopped: the i-th report of a session.
  const SESSIONS = 2000;
  const run = Date.now().toString(36);
  let next = 0;
  const t0 = Date.now();
  const report = () => {
    const n = next++;
    const session = n % SESSIONS;
    const step = Math.floor(n / SESSIONS);
    const ts = t0 + step * 2000 + session;
    const sid = `bench-${run}-${session}`;
    const state =
      step === 0
        ? "e=ps,sta=s"
        : step % 25 === 12
          ? "e=ps,sta=r"
          : step % 25 === 13
            ? "e=ps,sta=p"
            : step === 1
              ? "e=ps,sta=p"
              : "e=t,sta=p";
    // What hls.js sends besides: its stream type, format, buffer, bitrate, throughput.
    return `bl=(21300),br=(2400),cid="${contentKey}",${state},mtp=(48100),sf=h,sid="${sid}",sn=${step},st=v,ts=${ts},v=2`;
  };
  const collector = `${base}/v2/cmcd?sync=${encodeURIComponent(values.sync)}`;
  const measure = (title, url, body) =>
    new Promise((resolve, reject) => {
      autocannon(
        {
          url,
          duration,
          connections,
          requests: [
            body
              ? {
                  method: "POST",
                  headers: { "content-type": "application/cmcd" },
                  setupRequest: (req) => ({ ...req, body: body() }),
                }
              : { method: "GET" },
          ],
        },
        (err, result) =>
          err
            ? reject(err)
            : resolve({
                title,
                rps: result.requests.average,
                p50: result.latency.p50,
                p99: result.latency.p99,
                errors: result.non2xx + result.errors,
                ok: result["2xx"],
              }),
      );
    });

  const rows = [
    ["GET /healthz (no D1: the baseline)", `${base}/healthz`, null, 0],
    ["POST /v2/cmcd, 1 report (hls.js, dash.js)", collector, () => `${report()}\n`, 1],
    [
      "POST /v2/cmcd, 10 reports",
      collector,
      () => `${Array.from({ length: 10 }, report).join("\n")}\n`,
      10,
    ],
  ];
  const firstLog = worker.logs.length;
  const perRound = rows.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const baseline = await measure(...rows[0]);
    perRound[0].push({ ...baseline, ratio: 100 });
    for (let i = 1; i < rows.length; i++) {
      const [title, url, body] = rows[i];
      const m = await measure(title, url, body);
      perRound[i].push({ ...m, ratio: (100 * m.rps) / baseline.rps });
    }
  }
  const sentReports = rows.reduce(
    (n, [, , , per], i) => n + per * perRound[i].reduce((s, m) => s + m.ok, 0),
    0,
  );

  // The consumer: until it has counted every report sent (its log lines), or 60 s without a batch.
  const counted = () =>
    worker.logs
      .slice(firstLog)
      .filter((l) => l.msg === "events counted")
      .reduce((n, l) => n + (l.events ?? 0), 0);
  let last = counted();
  let quietSince = Date.now();
  while (counted() < sentReports && Date.now() - quietSince < 60_000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (counted() !== last) [last, quietSince] = [counted(), Date.now()];
  }
  const batches = worker.logs.slice(firstLog).filter((l) => l.msg === "events counted");
  const sum = (f) => batches.reduce((n, l) => n + (l[f] ?? 0), 0);
  const reports = sum("events");

  console.log(
    `\n## CMCD collector: requests per second against its own worker (${connections} connections, ${duration} s per row, ${rounds} rounds, interleaved)\n`,
  );
  console.log(
    markdownTable(
      [
        { title: "Request", value: (r) => r.title, align: "left" },
        { title: "req/s (median)", value: (r) => r.rps.toFixed(0) },
        { title: "per round", value: (r) => r.rounds },
        { title: "vs /healthz (median of rounds)", value: (r) => `${r.ratio.toFixed(0)} %` },
        { title: "reports/s", value: (r) => r.reports.toFixed(0) },
        { title: "p50 / p99 ms", value: (r) => r.latency },
        { title: "non-2xx", value: (r) => String(r.errors) },
      ],
      rows.map(([title, , , per], i) => ({
        title,
        rps: median(perRound[i].map((m) => m.rps)),
        rounds: perRound[i].map((m) => m.rps.toFixed(0)).join(" / "),
        ratio: median(perRound[i].map((m) => m.ratio)),
        reports: per * median(perRound[i].map((m) => m.rps)),
        latency: `${median(perRound[i].map((m) => m.p50))} / ${median(perRound[i].map((m) => m.p99))}`,
        errors: perRound[i].reduce((n, m) => n + m.errors, 0),
      })),
    ),
  );
  const per1000 = (v) => ((1000 * v) / Math.max(1, reports)).toFixed(1);
  console.log(`\n## The queue consumer: cost per 1,000 reports\n`);
  console.log(
    markdownTable(
      [
        { title: "reports sent (2xx)", value: () => String(sentReports) },
        { title: "reports counted", value: () => String(reports) },
        { title: "queue batches", value: () => String(batches.length) },
        { title: "D1 statements / 1,000", value: () => per1000(sum("d1_statements")) },
        { title: "rows read / 1,000", value: () => per1000(sum("d1_rows_read")) },
        { title: "rows written / 1,000", value: () => per1000(sum("d1_rows_written")) },
        { title: "consumer ms / 1,000", value: () => per1000(sum("duration_ms")) },
      ],
      [{}],
    ),
  );
} finally {
  await worker.stop();
}
