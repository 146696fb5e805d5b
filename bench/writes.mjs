// Reads while a publisher writes (issue 21): bench:load's mixed scenarios (./lib/mixed-reads.mjs:
// readers on cached E6 and E16 first pages while one title a second changes on their
// organization, on another, on none), each with EDGE_STALE_SECONDS 5 (the default) and 0 (stale
// answers off: the others wait for the one request computing). Prints requests/s, how the
// answers were made (X-Edge-Cache: hit, stale, coalesced, miss = ran D1), D1 runs per write and
// latency. Loopback only; bounded in time (6 runs of --duration s, 10 by default).
//
//   npm run bench:writes -- [--org demo] [--readers 20] [--duration 10] [--persist-to DIR]
import { parseArgs } from "node:util";
import { prepareState, startLoadServer } from "./lib/load-server.mjs";
import { mixedColumns, mixedScenarios } from "./lib/mixed-reads.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    org: { type: "string", default: "demo" },
    readers: { type: "string", default: "20" },
    duration: { type: "string", default: "10" },
    "persist-to": { type: "string" },
  },
});
const readers = Number(values.readers);
const durationMs = Number(values.duration) * 1000;
if (!Number.isInteger(readers) || readers < 1 || readers > 200)
  throw new Error("--readers must be 1 to 200");
if (!(durationMs >= 1000 && durationMs <= 120_000))
  throw new Error("--duration must be 1 to 120 seconds");
const org = values.org;
const persistTo = values["persist-to"];

await prepareState({ persistTo });
const results = [];
let paths = null;
for (const stale of ["5", "0"]) {
  const server = await startLoadServer({
    persistTo,
    vars: { EDGE_STALE_SECONDS: stale, RATE_LIMIT_PER_MINUTE: "100000000", LOG_REQUESTS: "0" },
  });
  try {
    const mixed = await mixedScenarios(server.url, {
      org,
      readers,
      durationMs,
      persistTo,
      log: (line) => console.error(`EDGE_STALE_SECONDS=${stale}: ${line}`),
    });
    paths = mixed.paths;
    results.push(...mixed.results.map((r) => ({ stale, ...r })));
  } finally {
    await server.stop();
  }
}
console.log(
  `Readers: ${readers}, half on each of ${paths.join(" and ")}; ${durationMs / 1000} s per row.`,
);
console.log(
  markdownTable(
    [{ title: "EDGE_STALE_SECONDS", value: (r) => r.stale }, ...mixedColumns()],
    results,
  ),
);
writeResults("writes", { readers, durationMs, paths, org, results });
