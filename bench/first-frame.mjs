// First frame on a slow link: how long a viewer on a steady 1.5 Mbit/s link (Chromium's
// DevTools network throttling, 40 ms of latency per request) waits for the first video frame of
// a 1080p upload with its default ladder, with hls.js (the full build, default settings) and with
// the service's own player (the embed page). Everything it needs is made here: a state of its
// own (a temporary directory), the transcoder program and a worker as `npm run bench:load`
// starts them, a 30 s 1920x1080 source at about 6 Mbit/s (noise, a keyframe every 2 s) whose
// ladder it waits for. Then, interleaved, --runs times each, in a fresh browser context:
//   - hls.js: a page with hls.min.js already loaded (the library's download is not the stream's);
//     the link is throttled, then the master playlist is attached, muted play: time to the first
//     presented frame (requestVideoFrameCallback), and the variant of the first segment loaded;
//   - embed: the link throttled from the start; /embed/{key} opened, its big play button clicked
//     as soon as it is there: navigation → first frame (the page, its script and poster, the
//     stream), and click → first frame.
// Loopback only; bounded (the ladder's wait: 15 minutes at most; each run: 60 s at most).
//
//   npm run bench:first-frame [-- --runs 5 --link 1500000 --latency 40]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { DEMO_CREDENTIALS, makeSource, publishWithLadder } from "./lib/publish.mjs";
import { startRenditionServer } from "./lib/rendition-rows.mjs";
import { markdownTable, writeResults } from "./lib/report.mjs";
import { median } from "./lib/stats.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    link: { type: "string", default: "1500000" },
    latency: { type: "string", default: "40" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
  },
});
const runs = Number(values.runs);
const linkBits = Number(values.link);
const latency = Number(values.latency);
if (!(runs >= 1 && runs <= 20 && linkBits >= 100_000 && latency >= 0 && latency <= 1000)) {
  console.error("--runs 1..20, --link at least 100000 (bit/s), --latency 0..1000 (ms)");
  process.exit(2);
}
const RUN_LIMIT_MS = 60_000;
const GOAL_MS = 5000;

/** The page with hls.js (full build): start(url) resolves at the first presented frame. */
const HLS_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>hls.js</title>
<script src="/hls.min.js"></script></head><body style="margin:0">
<video id="v" muted playsinline width="640" height="360"></video>
<script>
window.start = (url) => new Promise((resolve, reject) => {
  const video = document.getElementById("v");
  const hls = new Hls();
  let first = null;
  hls.on(Hls.Events.FRAG_LOADED, (_e, d) => {
    first ??= { level: d.frag.level, bytes: d.frag.stats.loaded };
  });
  hls.on(Hls.Events.ERROR, (_e, d) => { if (d.fatal) reject(new Error(d.details)); });
  const t0 = performance.now();
  video.requestVideoFrameCallback(() => resolve({
    ms: performance.now() - t0,
    height: first ? hls.levels[first.level].height : null,
    bytes: first ? first.bytes : null,
  }));
  hls.loadSource(url);
  hls.attachMedia(video);
  video.play().catch(reject);
});
</script></body></html>`;

const dir = mkdtempSync(join(tmpdir(), "bench-first-frame-"));
let server;
let site;
let browser;
try {
  server = await startRenditionServer(dir);
  const source = join(dir, "source-1080p.mp4");
  await makeSource(source, { width: 1920, height: 1080, seconds: 30, bitrate: "6M" });
  const video = await publishWithLadder(
    server.url,
    DEMO_CREDENTIALS,
    source,
    null,
    "bench first frame",
  );
  console.error(`the default ladder ready ${video.ladderSeconds.toFixed(0)} s after E2`);
  const master = `${video.stream}master.m3u8`;
  const masterText = await (await fetch(master)).text();
  const listed = [
    ...masterText.matchAll(/BANDWIDTH=(\d+),[^\n]*RESOLUTION=\d+x(\d+)[^\n]*\n(\S+)/g),
  ].map((m) => ({ bandwidth: Number(m[1]), height: Number(m[2]), uri: m[3] }));
  const firstPlaylist = await (await fetch(`${video.stream}${listed[0].uri}`)).text();
  const firstSegment = firstPlaylist.split("\n").find((l) => l.endsWith(".m4s"));
  const firstBytes = (await (await fetch(`${video.stream}${firstSegment}`)).arrayBuffer())
    .byteLength;
  const firstSeconds = Number(/#EXTINF:([\d.]+)/.exec(firstPlaylist)[1]);

  const hlsjs = readFileSync(join(ROOT, "node_modules", "hls.js", "dist", "hls.min.js"));
  site = createServer((req, res) => {
    if (req.url === "/hls.min.js")
      return res.writeHead(200, { "Content-Type": "text/javascript" }).end(hlsjs);
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(HLS_PAGE);
  });
  await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve));
  const siteUrl = `http://127.0.0.1:${site.address().port}`;

  browser = await chromium.launch({
    executablePath: values.chromium,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic"],
  });
  const throttled = async (page) => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency,
      downloadThroughput: linkBits / 8,
      uploadThroughput: linkBits / 8,
    });
  };
  const withTimeout = (promise) =>
    Promise.race([
      promise,
      new Promise((_, fail) =>
        setTimeout(() => fail(new Error(`no first frame in ${RUN_LIMIT_MS} ms`)), RUN_LIMIT_MS),
      ),
    ]);

  const results = { hlsjs: [], embedNav: [], embedClick: [], embedStart: [] };
  for (let run = 0; run < runs; run++) {
    {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(siteUrl);
      await throttled(page);
      const r = await withTimeout(page.evaluate((url) => window.start(url), master));
      results.hlsjs.push(r);
      await context.close();
    }
    {
      const context = await browser.newContext();
      const page = await context.newPage();
      await throttled(page);
      let startedOn = null;
      page.on("request", (req) => {
        const name = req.url().split("/").pop().split("?")[0];
        if (startedOn === null && /^(r\d+-)?\d+\.m4s$/.test(name)) startedOn = name;
      });
      await page.goto(`${server.url}/embed/${video.contentKey}?analytics=off`, {
        waitUntil: "commit",
      });
      const bigplay = page.locator(".evc-bigplay");
      await withTimeout(bigplay.waitFor());
      const frame = page.evaluate(
        () =>
          new Promise((resolve) =>
            document
              .querySelector("video")
              .requestVideoFrameCallback(() => resolve(performance.now())),
          ),
      );
      const clickedAt = await page.evaluate(() => performance.now());
      await bigplay.click();
      const frameAt = await withTimeout(frame);
      // The page's clock starts at its navigation: frameAt is navigation → first frame.
      results.embedClick.push(frameAt - clickedAt);
      results.embedNav.push(frameAt);
      results.embedStart.push(startedOn);
      await context.close();
    }
    console.error(`run ${run + 1}/${runs} done`);
  }

  const ms = (xs) =>
    `${(median(xs) / 1000).toFixed(2)} s (${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)})`;
  const startHeights = [...new Set(results.hlsjs.map((r) => r.height))].join(", ");
  const rows = [
    {
      what: "hls.js 1.7 (full build, defaults): attach → first frame",
      value: ms(results.hlsjs.map((r) => r.ms)),
      note: `first segment from ${startHeights}p`,
    },
    {
      what: "embed: navigation → first frame (page, script, poster, stream; play clicked at once)",
      value: ms(results.embedNav),
      note: `first segment ${[...new Set(results.embedStart)].join(", ")}`,
    },
    { what: "embed: click → first frame", value: ms(results.embedClick), note: "" },
  ];
  console.log(
    `\n## First frame at ${(linkBits / 1e6).toFixed(1)} Mbit/s, ${latency} ms latency (${runs} runs each, interleaved; median (min–max); goal under ${GOAL_MS / 1000} s; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")})\n`,
  );
  console.log(
    `master playlist order: ${listed.map((v) => `${v.height}p ${Math.round(v.bandwidth / 1000)} kbit/s`).join(", ")}; ` +
      `first listed variant's first segment: ${firstSeconds.toFixed(1)} s, ${Math.round(firstBytes / 1000)} KB\n`,
  );
  console.log(
    markdownTable(
      [
        { title: "Measure", value: (r) => r.what, align: "left" },
        { title: "First frame", value: (r) => r.value },
        { title: "", value: (r) => r.note, align: "left" },
      ],
      rows,
    ),
  );
  const file = writeResults("first-frame", {
    runs,
    linkBits,
    latency,
    listed,
    firstSegment: { seconds: firstSeconds, bytes: firstBytes },
    results,
  });
  console.error(`\nwrote ${file}`);
} finally {
  await browser?.close();
  site?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
