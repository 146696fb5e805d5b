// Clip readiness benchmark, against a running worker (`npm run dev`, or --url): how long after
// POST /v2/clips a clip of a running live stream is listed (E6) and plays (hls.js in headless
// Chromium shows its first frames), measured as the live e2e test measures it.
//
// ffmpeg pushes its test source in real time (-re) as the trial's encoder did: 1280x720 at 25
// fps, 4.5 Mbit/s H.264 + AAC, 2-second fMP4 segments (docs/live.md's command). Once the stream
// has --clip-seconds (60) and a margin recorded, a clip of the last --clip-seconds but 3 is cut
// every --every seconds (the match goes on), --runs times. The baseline, interleaved with them:
// the same 60 s as a file an editor uploads (the clip's own MP4, downloaded), E1 + parts + E2,
// timed from E1 to listed and playing — the fastest path there was without clips, not counting
// the wait for the recording or the cut itself.
//
//   npm run dev
//   npm run bench:clips [-- --url http://127.0.0.1:8787 --runs 5]
// The demo organization's ladder is off while it runs (restored to the default after): rungs
// transcoded on the same two cores would slow the runs that follow; a clip's readiness is its
// own file's either way (its rungs come after it plays).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { markdownTable } from "./lib/report.mjs";

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://127.0.0.1:8787" },
    token: { type: "string", default: "demo-token" },
    runs: { type: "string", default: "5" },
    every: { type: "string", default: "10" },
    "clip-seconds": { type: "string", default: "60" },
    chromium: { type: "string", default: process.env.CHROMIUM_PATH || "/usr/bin/chromium" },
  },
});
const base = values.url.replace(/\/$/, "");
const runs = Number(values.runs);
const clipSeconds = Number(values["clip-seconds"]);
const auth = { Authorization: `Bearer ${values.token}`, "Content-Type": "application/json" };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(method, path, payload) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: auth,
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const health = await fetch(`${base}/healthz`).catch(() => null);
if (!health?.ok) {
  console.log(`no worker at ${base}: start \`npm run dev\` (or pass --url)`);
  process.exit(1);
}

/** Polls E6 until the video is listed; its record. */
async function listed(contentKey) {
  for (;;) {
    const res = await fetch(`${base}/v2/videos?contentKey=${contentKey}`, { headers: auth });
    const row = res.ok ? (await res.json()).data?.[0] : null;
    if (row) return row;
    await sleep(50);
  }
}

const HLS_JS = readFileSync(
  createRequire(import.meta.url).resolve("hls.js/dist/hls.min.js"),
  "utf8",
);
// The e2e harness's flags (test/e2e/harness/browser.ts).
const browser = await chromium.launch({
  executablePath: values.chromium,
  args: [
    ...["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
    ...["--disable-background-networking", "--disable-component-update", "--disable-sync"],
    "--autoplay-policy=no-user-gesture-required",
  ],
});

/** hls.js plays the stream until its first frames are shown. */
async function plays(urlHLS) {
  const page = await browser.newPage();
  try {
    await page.addScriptTag({ content: HLS_JS });
    await page.evaluate(async (src) => {
      const video = document.createElement("video");
      video.muted = true;
      document.body.append(video);
      const hls = new window.Hls({ enableWorker: false });
      hls.loadSource(src);
      hls.attachMedia(video);
      await new Promise((resolve, reject) => {
        hls.on(window.Hls.Events.MANIFEST_PARSED, resolve);
        hls.on(window.Hls.Events.ERROR, (_e, d) => d.fatal && reject(new Error(d.details)));
      });
      await video.play();
      await new Promise((resolve) => {
        const check = () => (video.currentTime > 0 ? resolve() : requestAnimationFrame(check));
        check();
      });
    }, urlHLS);
  } finally {
    await page.close();
  }
}

async function clipRun(stream) {
  const { live } = await api("GET", `/v2/live?contentKey=${stream}`);
  const start = live.recordedSeconds - clipSeconds - 3;
  const t0 = Date.now();
  const clip = await api("POST", "/v2/clips", {
    sourceContentKey: stream,
    start,
    end: start + clipSeconds,
    title: "bench clip",
  });
  const record = await listed(clip.contentKey);
  const listedMs = Date.now() - t0;
  await plays(record.urlHLS);
  const playingMs = Date.now() - t0;
  const { url } = await api("GET", `/v2/content?contentKey=${clip.contentKey}`);
  return { url, listedMs, playingMs, seconds: record.duration };
}

async function uploadRun(mp4) {
  const t0 = Date.now();
  const created = await api("POST", "/v2/content/", {
    contentSize: mp4.length,
    title: "bench uploaded cut",
  });
  const { signedUrls, chunkSize, uploadId, key } = created.contentUploadData;
  const parts = [];
  for (const [i, url] of signedUrls.entries()) {
    const res = await fetch(url, {
      method: "PUT",
      body: mp4.subarray(i * chunkSize, (i + 1) * chunkSize),
    });
    if (!res.ok) throw new Error(`part ${i + 1}: ${res.status}`);
    parts.push({ PartNumber: i + 1, ETag: res.headers.get("ETag") });
  }
  await api("POST", "/v2/content/complete", { uploadId, key, parts });
  const record = await listed(created.contentKey);
  const listedMs = Date.now() - t0;
  await plays(record.urlHLS);
  return { listedMs, playingMs: Date.now() - t0 };
}

await api("PUT", "/v2/renditions/ladder", { rungs: [] });
const stream = await api("POST", "/v2/live", {
  title: "bench clips",
  dvrWindowSeconds: 7200,
  timeoutSeconds: 600,
});
const ffmpeg = spawn(
  "ffmpeg",
  [
    ...["-hide_banner", "-loglevel", "error", "-re"],
    ...["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25"],
    ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-g", "50", "-keyint_min", "50", "-sc_threshold", "0"],
    ...["-b:v", "4500k", "-maxrate", "4500k", "-bufsize", "9000k"],
    ...["-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-t", "1800"],
    ...["-f", "hls", "-hls_time", "2", "-hls_list_size", "6", "-hls_segment_type", "fmp4"],
    ...["-hls_flags", "program_date_time+delete_segments", "-method", "PUT", stream.ingestUrl],
  ],
  { stdio: ["pipe", "ignore", "pipe"] },
);
let stderr = "";
ffmpeg.stderr.on("data", (c) => {
  stderr += c;
});
const results = [];
try {
  for (;;) {
    const { live } = await api("GET", `/v2/live?contentKey=${stream.contentKey}`);
    if (live.recordedSeconds >= clipSeconds + 6) break;
    if (ffmpeg.exitCode !== null) throw new Error(`ffmpeg stopped: ${stderr.slice(-500)}`);
    await sleep(1000);
  }
  for (let n = 0; n < runs; n++) {
    const clip = await clipRun(stream.contentKey);
    const mp4 = new Uint8Array(await (await fetch(clip.url)).arrayBuffer());
    const upload = await uploadRun(mp4);
    results.push({ n: n + 1, clip, upload, bytes: mp4.length });
    console.log(
      `run ${n + 1}: clip listed ${clip.listedMs} ms, playing ${clip.playingMs} ms (${clip.seconds} s, ${(mp4.length / 1e6).toFixed(1)} MB); uploaded cut listed ${upload.listedMs} ms, playing ${upload.playingMs} ms`,
    );
    await sleep(Number(values.every) * 1000);
  }
} finally {
  ffmpeg.stdin.end("q");
  await browser.close();
  await api("PUT", "/v2/renditions/ladder", { rungs: null }).catch(() => undefined);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const row = (what, pick) => ({
  what,
  listed: median(results.map((r) => pick(r).listedMs)),
  playing: median(results.map((r) => pick(r).playingMs)),
  worst: Math.max(...results.map((r) => pick(r).playingMs)),
});
console.log(
  `\n${markdownTable(
    [
      { title: `median of ${results.length}`, value: (r) => r.what },
      { title: "listed (ms after the request)", value: (r) => String(r.listed) },
      { title: "playing in hls.js (ms)", value: (r) => String(r.playing) },
      { title: "slowest playing (ms)", value: (r) => String(r.worst) },
    ],
    [
      row(`POST /v2/clips, ${clipSeconds} s of the running stream`, (r) => r.clip),
      row(`the same ${clipSeconds} s uploaded as a file (E1, parts, E2)`, (r) => r.upload),
    ],
  )}`,
);
