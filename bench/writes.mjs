// Reads while a publisher writes (issue 21): N readers read one E6 page as fast as they can for
// D seconds, with no writer, then with one E4 title change a second on a video of the same
// organization, each with EDGE_STALE_SECONDS 5 (the default) and 0 (stale answers off: the
// others wait for the one request computing). Prints requests/s, how the answers were made
// (X-Edge-Cache: hit, miss = computed, stale, coalesced), misses per write and latency.
// Loopback only; bounded in time (4 runs of --duration s, 10 by default).
//
//   npm run bench:writes -- [--org demo] [--readers 20] [--duration 10] [--path /v2/videos?pageSize=20]
import { parseArgs } from "node:util";
import { prepareState, startLoadServer } from "./lib/load-server.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    org: { type: "string", default: "demo" },
    readers: { type: "string", default: "20" },
    duration: { type: "string", default: "10" },
    path: { type: "string", default: "/v2/videos?pageSize=20" },
  },
});
const readers = Number(values.readers);
const durationMs = Number(values.duration) * 1000;
if (!Number.isInteger(readers) || readers < 1 || readers > 200) throw new Error("--readers must be 1 to 200");
if (!(durationMs >= 1000 && durationMs <= 120_000)) throw new Error("--duration must be 1 to 120 seconds");
const org = values.org;
const read = { "X-Service-Sync-Code": `${org}-sync` };
const write = { ...read, "X-Service-Api-Key": `${org}-key`, "X-Service-Api-Secret": `${org}-secret` };

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : null);

async function run(baseUrl, { writer }) {
  const url = `${baseUrl}${values.path}`;
  // A video of the organization to rename (the newest listed one: it is on the page read).
  const listed = await (await fetch(`${baseUrl}/v2/videos?pageSize=1`, { headers: read })).json();
  const contentKey = listed.data[0]?.contentKey;
  if (!contentKey) throw new Error(`organization ${org} lists no video`);
  const e3 = await (await fetch(`${baseUrl}/v2/content?contentKey=${encodeURIComponent(contentKey)}`, { headers: write })).json();
  await fetch(url, { headers: read }); // warm the entry
  const end = Date.now() + durationMs;
  const how = {};
  const latencies = [];
  let errors = 0;
  let writes = 0;
  const reader = async () => {
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
  const writing = async () => {
    while (writer && Date.now() < end - 500) {
      const next = Date.now() + 1000;
      const res = await fetch(`${baseUrl}/v2/content`, {
        method: "PUT",
        headers: { ...write, "Content-Type": "application/json" },
        body: JSON.stringify({ ...e3, title: `${e3.title} (${writes})` }),
      });
      if (res.status !== 200) throw new Error(`E4 answered ${res.status}: ${await res.text()}`);
      writes++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
    }
  };
  await Promise.all([...Array.from({ length: readers }, reader), writing()]);
  // Put the title back.
  await fetch(`${baseUrl}/v2/content`, { method: "PUT", headers: { ...write, "Content-Type": "application/json" }, body: JSON.stringify(e3) });
  latencies.sort((a, b) => a - b);
  const total = latencies.length;
  return {
    requests: total,
    perSecond: Math.round(total / (durationMs / 1000)),
    how,
    writes,
    missesPerWrite: writes ? (how.miss ?? 0) / writes : null,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    errors,
  };
}

await prepareState();
const results = [];
for (const stale of ["5", "0"]) {
  const server = await startLoadServer({ vars: { EDGE_STALE_SECONDS: stale, RATE_LIMIT_PER_MINUTE: "100000000", LOG_REQUESTS: "0" } });
  try {
    for (const writer of [false, true]) {
      const r = await run(server.url, { writer });
      results.push({ stale, writer, ...r });
      console.error(`EDGE_STALE_SECONDS=${stale}, ${writer ? "one E4 a second" : "no writer"}: ${r.perSecond} req/s`);
    }
  } finally {
    await server.stop();
  }
}
const pct = (r, h) => `${Math.round((100 * (r.how[h] ?? 0)) / r.requests)} %`;
const column = (title, value, align) => ({ title, value, align });
console.log(
  markdownTable(
    [
      column("EDGE_STALE_SECONDS", (r) => r.stale),
      column("writer", (r) => (r.writer ? "one E4 a second" : "none"), "left"),
      column("readers' req/s", (r) => r.perSecond),
      column("hit", (r) => pct(r, "hit")),
      column("stale", (r) => pct(r, "stale")),
      column("coalesced", (r) => pct(r, "coalesced")),
      column("computed (miss)", (r) => r.how.miss ?? 0),
      column("misses per write", (r) => (r.missesPerWrite === null ? "—" : r.missesPerWrite.toFixed(1))),
      column("p50 ms", (r) => r.p50),
      column("p99 ms", (r) => r.p99),
      column("errors", (r) => r.errors),
    ],
    results,
  ),
);
writeResults("writes", { readers, durationMs, path: values.path, org, results });
