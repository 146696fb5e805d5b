// Rendition ladder benchmark (issue 37). Everything it needs is made here:
//  1. A 60 s 1080p30 H.264/AAC file (ffmpeg's testsrc2 with noise, about 6 Mbit/s, a keyframe
//     every 2 s), the size a publisher uploads.
//  2. Transcoding speed per rung of the default ladder: the transcoder program itself
//     (containers/transcoder, one ffmpeg thread, as in the Container) on the file's video, as a
//     multiple of real time.
//  3. With a worker (the same as npm run dev: local D1/R2/queues, the transcoder as a local
//     process, the demo organization): time from E2's answer to a complete ladder, and the R2
//     bytes the rungs add (their video segments, what the stored chunks hold) as % of the file.
//  4. Requests per second over loopback (autocannon) of a rendition segment, cached and with
//     the edge cache skipped (a Range: a rung's segment is read as stored by its first request,
//     the source's packaged), against GET /healthz. bench:rendition-rows measures the same
//     without autocannon's own cost on large bodies.
// And what an hour of video costs at Cloudflare's published Containers prices, from (2).
//
//   npm run bench:renditions [-- --duration 5 --connections 10]

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { startTranscoderServer, transcoderResponse } from "../containers/transcoder/transcoder.mjs";
import { prepareState, startLoadServer } from "./lib/load-server.mjs";
import { DEMO_CREDENTIALS, publishWithLadder } from "./lib/publish.mjs";
import { rate as measureRate } from "./lib/rate.mjs";
import { markdownTable } from "./lib/report.mjs";

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "10" },
  },
});

/** The default ladder (src/media/renditions/ladder.ts) with the sizes a 1920x1080 source gets. */
const LADDER = [
  { name: "r720", width: 1280, height: 720, bitrate: 3_000_000 },
  { name: "r540", width: 960, height: 540, bitrate: 2_000_000 },
  { name: "r360", width: 640, height: 360, bitrate: 365_000 },
  { name: "r234", width: 416, height: 234, bitrate: 145_000 },
];
const SECONDS = 60;
/** Cloudflare Containers, Workers Paid, beyond the included usage (developers.cloudflare.com/containers/pricing). */
const PRICE = { vcpuSecond: 0.00002, gibSecond: 0.0000025, gbDiskSecond: 0.00000007 };
/** standard-2: 1 vCPU, 6 GiB, 12 GB disk (wrangler.toml). */
const INSTANCE = { vcpu: 1, gib: 6, diskGb: 12 };

const dir = mkdtempSync(join(tmpdir(), "bench-renditions-"));
const source = join(dir, "source-1080p.mp4");
const video = join(dir, "video.mp4");
const ff = (...args) =>
  run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });

let server;
let transcoder;
try {
  let started = Date.now();
  await ff(
    ...["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30,noise=alls=12:allf=t"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"],
    ...["-t", String(SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
    ...["-b:v", "6M", "-maxrate", "6M", "-bufsize", "12M", "-g", "60", "-keyint_min", "60"],
    ...["-sc_threshold", "0", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", source],
  );
  await ff("-i", source, "-an", "-c", "copy", "-movflags", "+faststart", video);
  const sourceBytes = statSync(source).size;
  console.log(
    `made ${SECONDS} s of 1080p30 in ${((Date.now() - started) / 1000).toFixed(0)} s: ${(sourceBytes / 1e6).toFixed(1)} MB (${((sourceBytes * 8) / SECONDS / 1e6).toFixed(2)} Mbit/s)`,
  );

  // 2. Speed per rung: the program on the whole video, keyframes on 6 s boundaries.
  const keyframes = Array.from({ length: SECONDS / 6 }, (_, i) => i * 6).join(",");
  const body = readFileSync(video);
  const speeds = [];
  for (const rung of LADDER) {
    started = Date.now();
    const res = await transcoderResponse(
      new Request(
        `http://bench/transcode?width=${rung.width}&height=${rung.height}&bitrate=${rung.bitrate}&timescale=15360&keyframes=${keyframes}`,
        { method: "POST", body, duplex: "half" },
      ),
    );
    if (!res.ok) throw new Error(`${rung.name}: ${res.status} ${await res.text()}`);
    const out = new Uint8Array(await res.arrayBuffer());
    const seconds = (Date.now() - started) / 1000;
    speeds.push({ ...rung, seconds, speed: SECONDS / seconds, bytes: out.length });
  }
  console.log(`\n## Transcoding speed (the transcoder program, 1 ffmpeg thread, x264 veryfast)\n`);
  console.log(
    markdownTable(
      [
        {
          title: "Rung",
          value: (r) => `${r.width}x${r.height} @ ${r.bitrate / 1000} kbit/s`,
          align: "left",
        },
        { title: "s for 60 s", value: (r) => r.seconds.toFixed(1) },
        { title: "× real time", value: (r) => r.speed.toFixed(2) },
        { title: "output Mbit/s", value: (r) => ((r.bytes * 8) / SECONDS / 1e6).toFixed(2) },
      ],
      speeds,
    ),
  );
  const cpuSecondsPerHour = speeds.reduce((n, r) => n + 3600 / r.speed, 0);
  const cost = {
    cpu: cpuSecondsPerHour * INSTANCE.vcpu * PRICE.vcpuSecond,
    memory: cpuSecondsPerHour * INSTANCE.gib * PRICE.gibSecond,
    disk: cpuSecondsPerHour * INSTANCE.diskGb * PRICE.gbDiskSecond,
  };
  console.log(
    `\nan hour of 1080p video, the whole ladder: ${(cpuSecondsPerHour / 3600).toFixed(2)} instance-hours of standard-2 at this machine's speed: CPU $${cost.cpu.toFixed(3)} + memory $${cost.memory.toFixed(3)} + disk $${cost.disk.toFixed(4)} = $${(cost.cpu + cost.memory + cost.disk).toFixed(3)} (beyond the included usage)`,
  );

  // 3. E2 to a complete ladder, through the worker, its queue and the local transcoder.
  const state = join(dir, "state");
  for (const line of await prepareState({ persistTo: state })) console.log(line);
  transcoder = await startTranscoderServer();
  server = await startLoadServer({ persistTo: state, vars: { TRANSCODER_URL: transcoder.url } });
  const base = server.url;
  // The demo organization's ladder: the default.
  const published = await publishWithLadder(
    base,
    DEMO_CREDENTIALS,
    source,
    null,
    "bench renditions",
  );
  const ladderSeconds = published.ladderSeconds;
  const states = published.states;
  const stream = published.stream;
  // R2 bytes the rungs add: their video (the DASH video-only segments hold the stored chunks' samples).
  const mpd = await (await fetch(`${stream}manifest.mpd`)).text();
  const segments = (await (await fetch(`${stream}video.m3u8`)).text())
    .split("\n")
    .filter((l) => l.endsWith(".m4s")).length;
  let added = 0;
  for (const r of states) {
    if (!mpd.includes(`id="${r.name}"`)) throw new Error(`${r.name} not in the manifest`);
    for (let n = 0; n < segments; n++)
      added += (await (await fetch(`${stream}${r.name}-video-${n}.m4s`)).arrayBuffer()).byteLength;
  }
  console.log(
    `\n## E2 to a complete ladder (npm run dev's worker and transcoder, default ladder)\n`,
  );
  console.log(
    markdownTable(
      [
        { title: "Measure", value: (r) => r[0], align: "left" },
        { title: "Value", value: (r) => r[1] },
      ],
      [
        ["source", `1920x1080, ${SECONDS} s, ${(sourceBytes / 1e6).toFixed(1)} MB`],
        [
          "rungs",
          states.map((r) => `${r.name} ${Math.round(r.peakBitrate / 1000)} kbit/s peak`).join(", "),
        ],
        ["E2 answered → every rung ready", `${ladderSeconds.toFixed(1)} s`],
        [
          "R2 bytes added by the rungs",
          `${(added / 1e6).toFixed(1)} MB (${((100 * added) / sourceBytes).toFixed(1)} % of the source)`,
        ],
      ],
    ),
  );

  // 4. Requests per second of a rendition segment.
  const rate = (title, url, headers = {}) => measureRate(title, url, { ...values, headers });
  const sizes = {};
  for (const f of ["r720-3.m4s", "r234-3.m4s", "3.m4s"]) {
    await fetch(`${stream}${f}`);
    sizes[f] = (await (await fetch(`${stream}${f}`)).arrayBuffer()).byteLength;
  }
  const kb = (f) => `${Math.round(sizes[f] / 1000)} KB`;
  const results = [await rate("GET /healthz (no D1, the baseline)", `${base}/healthz`)];
  for (const [name, file] of [
    ["rendition segment r720", "r720-3.m4s"],
    ["rendition segment r234", "r234-3.m4s"],
    ["source segment", "3.m4s"],
  ]) {
    results.push(await rate(`${name} (${kb(file)}), edge cache hit`, `${stream}${file}`));
    results.push(
      await rate(
        `${name} (${kb(file)}), edge cache skipped (Range: bytes=0-: a rung's stored segment, the source's packaged)`,
        `${stream}${file}`,
        {
          Range: "bytes=0-",
        },
      ),
    );
  }
  const baseline = results[0].rps;
  console.log(
    `\n## Requests per second (${values.connections} connections, ${values.duration} s each)\n`,
  );
  console.log(
    markdownTable(
      [
        { title: "Request", value: (r) => r.title, align: "left" },
        { title: "req/s", value: (r) => r.rps.toFixed(0) },
        { title: "vs /healthz", value: (r) => `${Math.round((100 * r.rps) / baseline)} %` },
        { title: "Mbit/s out", value: (r) => r.mbps.toFixed(0) },
        { title: "p50 ms", value: (r) => String(r.p50) },
        { title: "p99 ms", value: (r) => String(r.p99) },
        { title: "non-2xx", value: (r) => String(r.errors) },
      ],
      results,
    ),
  );
} finally {
  await server?.stop();
  await transcoder?.close();
  rmSync(dir, { recursive: true, force: true });
}
