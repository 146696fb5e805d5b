// The load benchmark's rendition rows alone (bench/lib/rendition-rows.mjs): a rung's media
// segment cached and on an edge miss, against GET /healthz, over raw keep-alive sockets that
// do not read the bodies. It prepares a state of its own (a temporary directory: migrations,
// the demo data), starts the transcoder program and a worker as `npm run bench:load` does
// (bench/lib/load-server.mjs, rate limits raised), publishes a 24 s 720p video with an r360
// rung, measures, and stops everything. Loopback only, bounded: 3 rows × --passes × --seconds.
//
//   npm run bench:rendition-rows [-- --connections 10 --seconds 4 --passes 3]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { renditionRows, startRenditionServer } from "./lib/rendition-rows.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "10" },
    seconds: { type: "string", default: "4" },
    passes: { type: "string", default: "3" },
  },
});
const int = (name, max) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`--${name} must be an integer from 1 to ${max}`);
    process.exit(2);
  }
  return n;
};
const connections = int("connections", 200);
const seconds = int("seconds", 60);
const passes = int("passes", 10);

const dir = mkdtempSync(join(tmpdir(), "bench-rendition-state-"));
let server;
try {
  server = await startRenditionServer(dir);
  const { rows, notes } = await renditionRows({ url: server.url, connections, seconds, passes });
  const pct = (x) => `${(100 * x).toFixed(0)} %`;
  console.log(
    `\n## Rendition segments (${connections} connections, ${passes} interleaved passes of ${seconds} s; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")})\n`,
  );
  console.log(
    markdownTable(
      [
        { title: "Row", value: (r) => r.name, align: "left" },
        { title: "req/s", value: (r) => r.rps.toFixed(0) },
        { title: "× /healthz", value: (r) => pct(r.ratio) },
        { title: "goal", value: (r) => (r.goal === null ? "" : `≥ ${pct(r.goal)}`) },
        { title: "p50 ms", value: (r) => r.p50?.toFixed(1) },
        { title: "p99 ms", value: (r) => r.p99?.toFixed(1) },
        {
          title: "statuses",
          value: (r) =>
            Object.entries(r.statuses)
              .map(([code, n]) => `${code}×${n}`)
              .join(" ") + (r.errors ? ` errors×${r.errors}` : ""),
          align: "left",
        },
      ],
      rows,
    ),
  );
  for (const note of notes) console.log(`\n${note}`);
  const file = writeResults("rendition-rows", { connections, seconds, passes, rows, notes });
  console.error(`\nwrote ${file}`);
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
