// Live rungs benchmark (docs/live.md "A ladder while live"): what transcoding a live stream's
// ladder segment by segment costs. Everything it needs is made here:
//  1. 20 s of a 720p25 H.264/AAC live stream as the encoder of docs/live.md sends it (4.5 Mbit/s,
//     a keyframe every 2 s, 2-second fMP4 segments; ffmpeg's testsrc2 with noise, so x264 spends
//     its bit rate as on real pictures).
//  2. Each segment sent to the transcoder program itself (containers/transcoder, the code the
//     Container runs) as the live rung job sends it: each rung of the default ladder below 720p
//     alone, then all of them in one request, as the service does. Measured: the ffmpeg
//     children's CPU time (/proc/self/stat cutime + cstime) per second of video, and the wall
//     time of a segment's request (all rungs), the part of the rungs' lag the transcoder makes.
// And what an hour of live costs per rung at Cloudflare's published Containers prices.
//
//   npm run bench:live-rungs [-- --segments 10]
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { transcoderResponse } from "../containers/transcoder/transcoder.mjs";
import { markdownTable } from "./lib/report.mjs";

const run = promisify(execFile);
const { values } = parseArgs({ options: { segments: { type: "string", default: "10" } } });
const SEGMENTS = Number(values.segments);
const SEGMENT_SECONDS = 2;
/** The default ladder's rungs below 720p (src/media/renditions/ladder.ts), as a 1280x720 source gets them. */
const RUNGS = [
  { name: "r540", width: 960, height: 540, bitrate: 2_000_000 },
  { name: "r360", width: 640, height: 360, bitrate: 365_000 },
  { name: "r234", width: 416, height: 234, bitrate: 145_000 },
];
/** Cloudflare Containers, Workers Paid, beyond the included usage (as bench/renditions.mjs). */
const PRICE = { vcpuSecond: 0.00002, gibSecond: 0.0000025, gbDiskSecond: 0.00000007 };
/** standard-2: 1 vCPU, 6 GiB, 12 GB disk (wrangler.toml). */
const INSTANCE = { gib: 6, diskGb: 12 };

/** CPU seconds the waited-for children of this process used so far (user + system). */
function childrenCpuSeconds() {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // Fields 16 and 17 of stat (cutime, cstime), in clock ticks (100 a second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const dir = mkdtempSync(join(tmpdir(), "bench-live-rungs-"));
try {
  await run("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y"],
    ...["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25,noise=alls=12:allf=t"],
    ...["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000"],
    ...["-t", String(SEGMENTS * SEGMENT_SECONDS)],
    ...["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"],
    ...["-b:v", "4500k", "-maxrate", "4500k", "-bufsize", "9000k"],
    ...["-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-c:a", "aac", "-b:a", "128k"],
    ...["-f", "hls", "-hls_time", String(SEGMENT_SECONDS), "-hls_segment_type", "fmp4"],
    ...["-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", join(dir, "s%d.m4s")],
    join(dir, "index.m3u8"),
  ]);
  const init = readFileSync(join(dir, "init.mp4"));
  const segments = Array.from({ length: SEGMENTS }, (_, n) =>
    Buffer.concat([init, readFileSync(join(dir, `s${n}.m4s`))]),
  );
  const sourceBits = segments.reduce((n, s) => n + (s.length - init.length) * 8, 0);

  async function transcode(segment, rungs) {
    const query = rungs.map((r) => `${r.width}:${r.height}:${r.bitrate}`).join(",");
    const response = await transcoderResponse(
      new Request(`http://bench/live-segment?format=mp4&rungs=${query}`, {
        method: "POST",
        body: segment,
        duplex: "half",
      }),
    );
    if (!response.ok) throw new Error(`transcoder: ${response.status} ${await response.text()}`);
    return (response.headers.get("X-Rung-Bytes") ?? "").split(",").map(Number);
  }

  /** CPU s per s of video, wall ms per segment (median, max), bytes out. */
  async function measure(rungs) {
    const walls = [];
    let bytes = rungs.map(() => 0);
    const cpu0 = childrenCpuSeconds();
    for (const segment of segments) {
      const started = performance.now();
      const sizes = await transcode(segment, rungs);
      walls.push(performance.now() - started);
      bytes = bytes.map((b, i) => b + sizes[i]);
    }
    const cpu = childrenCpuSeconds() - cpu0;
    walls.sort((a, b) => a - b);
    return {
      cpuPerSecond: cpu / (SEGMENTS * SEGMENT_SECONDS),
      wallMedian: walls[Math.floor(walls.length / 2)],
      wallMax: walls.at(-1),
      bytes,
    };
  }

  const hourCost = (cpuPerSecond) => cpuPerSecond * 3600 * PRICE.vcpuSecond;
  const instanceHour =
    3600 * (INSTANCE.gib * PRICE.gibSecond + INSTANCE.diskGb * PRICE.gbDiskSecond);
  const seconds = SEGMENTS * SEGMENT_SECONDS;
  const rows = [];
  for (const rung of RUNGS) {
    const m = await measure([rung]);
    rows.push([
      rung.name,
      `${rung.width}x${rung.height}`,
      m.cpuPerSecond.toFixed(3),
      `${Math.round(m.wallMedian)} / ${Math.round(m.wallMax)}`,
      ((m.bytes[0] * 8) / seconds / 1e6).toFixed(2),
      `$${hourCost(m.cpuPerSecond).toFixed(3)}`,
    ]);
  }
  const all = await measure(RUNGS);
  rows.push([
    "all three, one request",
    "",
    all.cpuPerSecond.toFixed(3),
    `${Math.round(all.wallMedian)} / ${Math.round(all.wallMax)}`,
    ((all.bytes.reduce((a, b) => a + b, 0) * 8) / seconds / 1e6).toFixed(2),
    `$${hourCost(all.cpuPerSecond).toFixed(3)}`,
  ]);
  console.log(
    `source: 1280x720 25 fps, ${(sourceBits / seconds / 1e6).toFixed(2)} Mbit/s, ${SEGMENTS} segments of ${SEGMENT_SECONDS} s\n`,
  );
  console.log(
    markdownTable(
      [
        "rungs",
        "frame",
        "CPU s per s of video",
        "wall ms per segment (median / max)",
        "Mbit/s out (audio included)",
        "CPU per hour of live",
      ].map((title, i) => ({ title, value: (row) => row[i], align: i < 2 ? "left" : "right" })),
      rows,
    ),
  );
  console.log(
    `\nan awake standard-2 instance's memory and disk: $${instanceHour.toFixed(3)} an hour (one per stream)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
