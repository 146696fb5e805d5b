// Glass-to-glass latency of live streams, regular HLS against low-latency HLS, in hls.js and in
// the service's embed, against a running worker (`npm run dev`, or --url). ffmpeg pushes its
// test source in real time with the wall clock burned into the picture as blocks
// (scripts/lib/live-clock.mjs); headless Chromium plays the stream and reads the clock of the
// frame on screen from a canvas every 100 ms: capture to display, one machine, one clock.
//  - regular: ffmpeg's hls muxer PUTs whole segments (docs/live.md "Going live with ffmpeg"),
//    --segment seconds (default 2); hls.js defaults (3 segments behind), and the embed.
//  Three players, each on a stream of its own (one at a time: this machine is small): hls.js as
//  configured, hls.js with the embed's catch-up (maxLiveSyncPlaybackRate 1.25), the embed.
//  - low latency: ffmpeg's segment muxer POSTs chunked CMAF segments (docs/live.md "Low
//    latency"), 1-second segments, 1/3-second parts; hls.js with lowLatencyMode, and the embed.
// The cases are interleaved (regular, LL, regular, LL…) --rounds times.
//
//   npm run dev -- --port 8814
//   npm run bench:live-latency -- --url http://127.0.0.1:8814 [--seconds 20 --rounds 2]
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import {
  clockSourceArgs,
  encodeArgs,
  lowLatencyIngestArgs,
  regularIngestArgs,
  sampleGlassToGlass,
  summarize,
} from "../scripts/lib/live-clock.mjs";
import { markdownTable } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    token: { type: "string", default: "demo-token" },
    seconds: { type: "string", default: "20" },
    settle: { type: "string", default: "5" },
    segment: { type: "string", default: "2" },
    rounds: { type: "string", default: "2" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
  },
});
const base = values.url.replace(/\/$/, "");
const auth = { Authorization: `Bearer ${values.token}`, "Content-Type": "application/json" };
const HLS_JS = readFileSync(
  createRequire(import.meta.url).resolve("hls.js/dist/hls.min.js"),
  "utf8",
);

const health = await fetch(`${base}/healthz`).catch(() => null);
if (!health?.ok) {
  console.log(`no worker at ${base}: start \`npm run dev\` (or pass --url)`);
  process.exit(1);
}

const browser = await chromium.launch({
  executablePath: values.chromium,
  args: [
    ...["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
    ...["--disable-background-networking", "--disable-component-update", "--disable-sync"],
    "--autoplay-policy=no-user-gesture-required",
  ],
});

async function stateOf(contentKey) {
  const res = await fetch(`${base}/v2/live?contentKey=${contentKey}`, { headers: auth });
  return res.json();
}

/** One stream pushed by ffmpeg, watched by one player (one at a time: this machine is small). */
async function measure(lowLatency, player) {
  const res = await fetch(`${base}/v2/live`, {
    method: "POST",
    headers: auth,
    // Ended after the last measurement: an ended stream's recording is remuxed and gets its
    // ladder (the local transcoder), which would compete with the next measurement for CPU.
    body: JSON.stringify({
      title: `bench latency ${lowLatency ? "LL" : "regular"}`,
      timeoutSeconds: 3600,
    }),
  });
  if (!res.ok) throw new Error(`POST /v2/live: ${res.status} ${await res.text()}`);
  const stream = await res.json();
  const segment = Number(values.segment);
  const ffmpeg = spawn(
    "ffmpeg",
    [
      ...["-hide_banner", "-loglevel", "error"],
      ...clockSourceArgs(),
      ...encodeArgs({ gopSeconds: lowLatency ? 1 : segment, videoKbps: 1000 }),
      ...["-t", "600"],
      ...(lowLatency
        ? lowLatencyIngestArgs(stream.ingestBaseUrl, 1)
        : regularIngestArgs(stream.ingestUrl, segment)),
    ],
    { stdio: ["pipe", "ignore", "pipe"] },
  );
  let stderr = "";
  ffmpeg.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise((resolve) => ffmpeg.on("exit", resolve));
  try {
    let url = null;
    for (let i = 0; !url; i++) {
      if (i > 300) throw new Error(`not live after 60 s: ${stderr}`);
      const s = await stateOf(stream.contentKey);
      if (s.live.state === "live") url = s.url;
      else await new Promise((r) => setTimeout(r, 200));
    }
    /** hls.js on a page of its own: its defaults, `lowLatencyMode` for LL, plus `extra`. */
    const hlsPage = async (extra) => {
      const page = await browser.newPage();
      await page.addScriptTag({ content: HLS_JS });
      await page.evaluate(
        async ([src, config]) => {
          const video = document.createElement("video");
          video.muted = true;
          document.body.append(video);
          const hls = new window.Hls({ enableWorker: false, ...config });
          hls.loadSource(src);
          hls.attachMedia(video);
          await new Promise((resolve) => hls.on(window.Hls.Events.MANIFEST_PARSED, resolve));
          await video.play();
        },
        [url, { lowLatencyMode: lowLatency, ...extra }],
      );
      return page;
    };
    let page;
    if (player === "embed") {
      page = await browser.newPage();
      await page.goto(`${base}/embed/${stream.contentKey}?analytics=off`);
      await page.waitForSelector("video");
      await page.evaluate(async () => {
        const video = document.querySelector("video");
        video.muted = true;
        for (let i = 0; i < 100 && !video.src && !video.currentSrc; i++)
          await new Promise((r) => setTimeout(r, 100));
        await video.play();
      });
    } else {
      // What the embed's live room sets besides: catching up a late start at up to 1.25x.
      page = await hlsPage(
        player === "hls.js catching up" ? { maxLiveSyncPlaybackRate: 1.25 } : {},
      );
    }
    // It plays a few seconds before sampling (its start-up is not latency).
    await new Promise((r) => setTimeout(r, Number(values.settle) * 1000));
    const samples = await page.evaluate(sampleGlassToGlass, { seconds: Number(values.seconds) });
    await page.close();
    const ll = lowLatency ? "lowLatencyMode" : "defaults";
    return {
      mode: lowLatency
        ? "LL-HLS: chunked CMAF, 1 s segments, 1/3 s parts"
        : `regular HLS: ${segment} s segments`,
      player:
        player === "embed"
          ? "embed"
          : player === "hls.js"
            ? `hls.js ${ll}`
            : `hls.js ${ll}, maxLiveSyncPlaybackRate 1.25`,
      s: summarize(samples),
    };
  } finally {
    // Killed, not `q`: ffmpeg would write ENDLIST, which ends the stream now.
    ffmpeg.kill("SIGKILL");
    await exited;
    started.push(stream.contentKey);
  }
}

const rows = [];
const started = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const ll of [false, true]) {
    for (const player of ["hls.js", "hls.js catching up", "embed"])
      rows.push({ ...(await measure(ll, player)), round });
  }
}
await browser.close();
for (const contentKey of started)
  await fetch(`${base}/v2/live/end`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ contentKey }),
  });
console.log(
  `\n## Glass-to-glass latency against ${base} (burned-in clock, ${values.seconds} s of samples every 100 ms, ${new Date().toISOString().slice(0, 10)})\n\n${markdownTable(
    [
      { title: "Stream", value: (r) => r.mode, align: "left" },
      {
        title: "Player",
        value: (r) => r.player,
        align: "left",
      },
      { title: "round", value: (r) => String(r.round + 1) },
      { title: "p50 ms", value: (r) => String(r.s.p50) },
      { title: "p95 ms", value: (r) => String(r.s.p95) },
      { title: "samples", value: (r) => String(r.s.n) },
    ],
    rows,
  )}`,
);
