// HLS benchmark (issue 20).
//  1. The packaging cost table on a synthetic 1-hour, 5 GiB file (bench/hls-cost.ts): R2 reads,
//     bytes and ms for the index (once per file), a playlist, the first and a middle segment.
//  2. With a worker running (`npm run dev`, or --url): requests per second, with autocannon over
//     loopback, of a segment answered from the edge cache, a segment packaged on every request
//     (a Range request skips the cache), the media playlist, and GET /healthz (a route without
//     D1) as the baseline. Bounded: --duration seconds per row (default 5), --connections 10.
//
//   npm run bench:hls [-- --url http://127.0.0.1:8787 --duration 5 --connections 10]

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { withTsModule } from "../scripts/lib/ts-module.mjs";
import { rate as measureRate } from "./lib/rate.mjs";
import { markdownTable } from "./lib/report.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    "sync-code": { type: "string", default: "demo-sync" },
  },
});

const costTable = () =>
  withTsModule(join(ROOT, "bench", "hls-cost.ts"), ({ measure }) =>
    measure(join(ROOT, "test", "fixtures", "h264-aac-faststart.mp4")),
  );

const { rows, notes } = await costTable();
console.log("\n## Packaging a 1-hour, 5 GiB MP4 (moov at the start; media bytes sparse)\n");
console.log(
  markdownTable(
    [
      { title: "Step", value: (r) => r.step, align: "left" },
      { title: "R2 reads", value: (r) => String(r.reads) },
      { title: "Bytes read", value: (r) => r.bytes.toLocaleString("en-US") },
      { title: "ms", value: (r) => r.ms.toFixed(1) },
    ],
    rows,
  ),
);
console.log(
  `\nfile ${(notes.fileBytes / 1024 ** 3).toFixed(2)} GiB, moov ${(notes.moovBytes / 1e6).toFixed(2)} MB, ${notes.segments} segments; stored index ${(notes.indexJsonBytes / 1e3).toFixed(0)} KB + sample table ${(notes.sampleTableBytes / 1e6).toFixed(2)} MB`,
);

/** bench/lib/rate.mjs with this run's duration and connections. */
const rate = (title, url, headers = {}) => measureRate(title, url, { ...values, headers });

const base = values.url.replace(/\/$/, "");
const listing = await fetch(`${base}/v2/videos?pageSize=1`, {
  headers: { "X-Service-Sync-Code": values["sync-code"] },
}).catch(() => null);
if (!listing?.ok) {
  console.log(
    `\n(no worker at ${base} with the demo data: start \`npm run dev\` to measure requests per second)`,
  );
} else {
  const { data } = await listing.json();
  const stream = data[0].urlHLS.replace(/master\.m3u8$/, "").replace(/^https?:\/\/[^/]+/, base);
  // Package once and fill the edge cache before measuring.
  for (const file of ["video.m3u8", "init.mp4", "0.m4s", "0.m4s"]) await fetch(`${stream}${file}`);
  const results = [];
  results.push(await rate("GET /healthz (no D1, the baseline)", `${base}/healthz`));
  results.push(await rate("segment, edge cache hit", `${stream}0.m4s`));
  results.push(
    await rate("segment, packaged each time (Range: bytes=0-)", `${stream}0.m4s`, {
      Range: "bytes=0-",
    }),
  );
  results.push(await rate("media playlist, edge cache hit", `${stream}video.m3u8`));
  console.log(
    `\n## Requests per second against ${base} (${values.connections} connections, ${values.duration} s each)\n`,
  );
  const baseline = results[0].rps;
  console.log(
    markdownTable(
      [
        { title: "Request", value: (r) => r.title, align: "left" },
        { title: "req/s", value: (r) => r.rps.toFixed(0) },
        { title: "vs /healthz", value: (r) => `${Math.round((100 * r.rps) / baseline)} %` },
        { title: "p50 ms", value: (r) => String(r.p50) },
        { title: "p99 ms", value: (r) => String(r.p99) },
        { title: "non-2xx", value: (r) => String(r.errors) },
      ],
      results,
    ),
  );
}
