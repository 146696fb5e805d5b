// Live streaming benchmark (issue 40), against a running worker (`npm run dev`, or --url):
//  1. Segment ingest of one stream: PUTs per second and bytes per second its Durable Object
//     takes, segments of --segment-kb (default 250 KB: a 1-second segment at 2 Mbit/s) to new
//     names, with 1 connection (an encoder pushes one file at a time) and with --connections.
//  2. Live playlist reads per second: answered from the edge cache (1 s life), and computed
//     each time by the stream's Durable Object (an X-D1-Bookmark header skips the cache), against
//     GET /healthz (no D1, no Durable Object) as the baseline.
//  3. Glass-to-glass latency: ffmpeg pushes its test source in real time (-re) with the wall
//     clock burned into the frames (drawtext) and EXT-X-PROGRAM-DATE-TIME on every segment
//     (the wall clock at the segment's first frame); hls.js in headless Chromium plays the live
//     playlist and the page samples `Date.now() - hls.playingDate` (the program date time of the
//     frame on screen) every 250 ms: the latency from capture to display, read without OCR, on
//     one machine (one clock). Segments of 1 s and 2 s; hls.js's default live sync (3 segments).
//
//   npm run dev -- --var PUBLIC_READS_PER_IP_PER_MINUTE:10000000 LOG_REQUESTS:0
//   npm run bench:live [-- --url http://127.0.0.1:8787 --duration 5 --connections 10]
// (the raised per-client budget: playlist reads that skip the edge cache are public reads of one
// client, limited to 600 a minute otherwise; docs/benchmarks.md "Live streams")

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { chromium } from "playwright-core";
import { rate as measureRate } from "./lib/rate.mjs";
import { markdownTable } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    token: { type: "string", default: "demo-token" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
    "segment-kb": { type: "string", default: "250" },
    "latency-seconds": { type: "string", default: "20" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
    parts: { type: "string", default: "ingest,reads,latency" },
  },
});
const base = values.url.replace(/\/$/, "");
const parts = new Set(values.parts.split(","));
const auth = { Authorization: `Bearer ${values.token}`, "Content-Type": "application/json" };

async function createStream(title) {
  const res = await fetch(`${base}/v2/live`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ title, timeoutSeconds: 600 }),
  });
  if (!res.ok) throw new Error(`POST /v2/live: ${res.status} ${await res.text()}`);
  return res.json();
}

const health = await fetch(`${base}/healthz`).catch(() => null);
if (!health?.ok) {
  console.log(`no worker at ${base}: start \`npm run dev\` (or pass --url)`);
  process.exit(1);
}

// 1. Ingest.
const segmentBytes = Number(values["segment-kb"]) * 1000;
const segment = Buffer.alloc(segmentBytes);
for (let i = 0; i < segment.length; i++) segment[i] = (i * 2654435761) >>> 24;
let counter = 0;
async function ingestRate(connections) {
  const stream = await createStream(`bench ingest ${connections}`);
  const path = new URL(stream.ingestBaseUrl).pathname;
  const result = await autocannon({
    url: base,
    connections,
    duration: Number(values.duration),
    requests: [
      {
        method: "PUT",
        setupRequest: (req) => {
          // Each PUT a new segment (a distinct name and bytes): what an encoder sends.
          const n = counter++;
          const body = Buffer.from(segment);
          body.writeUInt32BE(n, 0);
          return { ...req, path: `${path}/seg${n}.ts`, body };
        },
      },
    ],
  });
  return {
    title: `PUT ${values["segment-kb"]} KB segments, ${connections} connection(s)`,
    rps: result.requests.average,
    mbps: (result.requests.average * segmentBytes * 8) / 1e6,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}
if (parts.has("ingest")) {
  const ingest = [await ingestRate(1), await ingestRate(Number(values.connections))];
  console.log(
    `\n## Segment ingest of one stream against ${base} (${values.duration} s each)\n\n${markdownTable(
      [
        { title: "Ingest", value: (r) => r.title, align: "left" },
        { title: "PUT/s", value: (r) => r.rps.toFixed(0) },
        { title: "Mbit/s", value: (r) => r.mbps.toFixed(0) },
        { title: "p50 ms", value: (r) => String(r.p50) },
        { title: "p99 ms", value: (r) => String(r.p99) },
        { title: "non-2xx", value: (r) => String(r.errors) },
      ],
      ingest,
    )}`,
  );
}

// 2. Playlist reads: a stream with a few segments, then its live playlist.
if (parts.has("reads")) {
  const watched = await createStream("bench playlist");
  const names = [];
  for (let n = 0; n < 6; n++) {
    const name = `index${n}.ts`;
    await fetch(`${watched.ingestBaseUrl}/${name}`, { method: "PUT", body: segment });
    names.push(name);
  }
  const encoderPlaylist = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n${names.map((n) => `#EXTINF:1.0,\n${n}`).join("\n")}\n`;
  await fetch(watched.ingestUrl, { method: "PUT", body: encoderPlaylist });
  const state = await (
    await fetch(`${base}/v2/live?contentKey=${watched.contentKey}`, { headers: auth })
  ).json();
  const playlistUrl = state.url;
  const readRate = (title, url, headers = {}) => measureRate(title, url, { ...values, headers });
  const reads = [
    await readRate("GET /healthz (no D1, no Durable Object: the baseline)", `${base}/healthz`),
    await readRate("live playlist, edge cache (1 s life)", playlistUrl),
    await readRate("live playlist, from the Durable Object each time", playlistUrl, {
      "X-D1-Bookmark": "bench",
    }),
  ];
  console.log(
    `\n## Live playlist reads (${values.connections} connections, ${values.duration} s each)\n\n${markdownTable(
      [
        { title: "Request", value: (r) => r.title, align: "left" },
        { title: "req/s", value: (r) => r.rps.toFixed(0) },
        { title: "vs /healthz", value: (r) => `${Math.round((100 * r.rps) / reads[0].rps)} %` },
        { title: "p50 ms", value: (r) => String(r.p50) },
        { title: "p99 ms", value: (r) => String(r.p99) },
        { title: "non-2xx", value: (r) => String(r.errors) },
      ],
      reads,
    )}`,
  );
}

// 3. Glass-to-glass latency.
if (parts.has("latency")) {
  const HLS_JS = readFileSync(
    createRequire(import.meta.url).resolve("hls.js/dist/hls.min.js"),
    "utf8",
  );
  // The e2e harness's flags (test/e2e/harness/browser.ts): this closed network refuses Google's services.
  const browser = await chromium.launch({
    executablePath: values.chromium,
    args: [
      ...["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
      ...["--disable-background-networking", "--disable-component-update", "--disable-sync"],
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  let closing = false;
  browser.on("disconnected", () => closing || console.error("bench:live: Chromium went away"));

  async function latency(segmentSeconds) {
    const stream = await createStream(`bench latency ${segmentSeconds}s`);
    const gop = 25 * segmentSeconds;
    const ffmpeg = spawn(
      "ffmpeg",
      [
        ...["-hide_banner", "-loglevel", "error", "-re"],
        ...["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25"],
        ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"],
        // The wall clock (ms) burned into each frame, for a look at a screenshot.
        ...[
          "-vf",
          "drawtext=fontfile=/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf:text='%{localtime\\:%T}.%{eif\\:mod(t*1000\\,1000)\\:d\\:3}':fontsize=36:fontcolor=white:box=1:boxcolor=black:x=10:y=10",
        ],
        ...[
          "-c:v",
          "libx264",
          "-preset",
          "veryfast",
          "-tune",
          "zerolatency",
          "-pix_fmt",
          "yuv420p",
        ],
        ...["-g", String(gop), "-keyint_min", String(gop), "-sc_threshold", "0", "-b:v", "1500k"],
        ...["-c:a", "aac", "-b:a", "96k", "-t", "600"],
        ...["-f", "hls", "-hls_time", String(segmentSeconds), "-hls_list_size", "6"],
        ...["-hls_segment_type", "fmp4", "-hls_flags", "program_date_time+delete_segments"],
        ...["-method", "PUT", stream.ingestUrl],
      ],
      { stdio: ["pipe", "ignore", "pipe"] },
    );
    let stderr = "";
    ffmpeg.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    let running = true;
    const exited = new Promise((resolve) =>
      ffmpeg.on("exit", (code) => {
        running = false;
        resolve(code);
      }),
    );
    try {
      // Live once the first segments are in.
      let url = null;
      while (!url) {
        if (!running) throw new Error(`ffmpeg stopped before the stream went live: ${stderr}`);
        const s = await (
          await fetch(`${base}/v2/live?contentKey=${stream.contentKey}`, { headers: auth })
        ).json();
        if (s.live.state === "live") url = s.url;
        else await new Promise((r) => setTimeout(r, 200));
      }
      const page = await browser.newPage();
      page.on("crash", () => console.error("bench:live: the page crashed"));
      page.on("pageerror", (err) => console.error("bench:live: page error", err.message));
      await page.addScriptTag({ content: HLS_JS });
      const samples = await page.evaluate(
        async ([src, seconds]) => {
          const video = document.createElement("video");
          video.muted = true;
          document.body.append(video);
          // hls.js's defaults: start and stay 3 segments behind the live edge.
          const hls = new window.Hls({ enableWorker: false });
          hls.loadSource(src);
          hls.attachMedia(video);
          await new Promise((resolve) => hls.on(window.Hls.Events.MANIFEST_PARSED, resolve));
          await video.play();
          const out = [];
          const until = performance.now() + seconds * 1000;
          while (performance.now() < until) {
            await new Promise((r) => setTimeout(r, 250));
            if (hls.playingDate) out.push(Date.now() - hls.playingDate.getTime());
          }
          return out;
        },
        [url, Number(values["latency-seconds"])],
      );
      await page.screenshot({ path: `/tmp/evc-live-latency-${segmentSeconds}s.png` });
      await page.close();
      samples.sort((a, b) => a - b);
      const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
      return {
        title: `${segmentSeconds} s segments (fMP4), hls.js defaults`,
        p50: at(0.5),
        p95: at(0.95),
        min: samples[0],
        n: samples.length,
      };
    } finally {
      ffmpeg.stdin.end("q");
      await exited;
    }
  }
  const latencies = [await latency(1), await latency(2)];
  closing = true;
  await browser.close();
  console.log(
    `\n## Glass-to-glass latency (capture clock to the frame on screen, ${values["latency-seconds"]} s of samples)\n\n${markdownTable(
      [
        { title: "Stream", value: (r) => r.title, align: "left" },
        { title: "p50 ms", value: (r) => String(r.p50) },
        { title: "p95 ms", value: (r) => String(r.p95) },
        { title: "min ms", value: (r) => String(r.min) },
        { title: "samples", value: (r) => String(r.n) },
      ],
      latencies,
    )}\n\n(screenshots with the burned-in clock: /tmp/evc-live-latency-*.png)`,
  );
}
