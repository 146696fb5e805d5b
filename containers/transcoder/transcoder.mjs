// The rendition transcoder: a small HTTP service around ffmpeg. The same program runs as the
// Cloudflare Container image in production (Dockerfile, server.mjs), as a local process under
// `npm run dev` (TRANSCODER_URL) and as the TRANSCODER service binding in the workers tests
// (vitest.config.ts). src/media/transcoder.ts is the worker's side; docs/renditions.md the rest.
//
// POST /transcode?width=W&height=H&bitrate=B&keyframes=t0,t1,...&timescale=T
//   body: a standalone MP4 of one chunk of the source's video (the worker builds it from the
//   stored file with ranged reads: media/renditions/chunk.ts), its first frame a keyframe at 0.
//   answer: the chunk as H.264 (High, yuv420p) at WxH, about B bit/s (peak at most 1.5 B over a
//   segment), video only, moov first, timescale T, a keyframe forced at each listed time
//   (the source's segment boundaries in the chunk) and nowhere by scene cut.
// POST /remux?format=mpegts|mp4[&runs=b0,b1,...]
//   body: a live stream's recording (docs/live.md): its MPEG-TS segments one after the other, or
//   its fMP4 init segment then its media segments. answer: the same samples in one MP4 (moov
//   first), H.264 video and its audio copied, not re-encoded; Content-Length set, streamed.
//   runs: a recording with discontinuities (encoder restarts) as the byte sizes of its runs, each
//   run as above: each is remuxed alone, then they are joined into one timeline, each run right
//   after the previous run's video; 422 when the runs differ in codecs or picture.
// POST /audio?format=wav|mp3&piece=S: a chunk of a video's audio as pieces for a speech engine
//   (automatic captions: audio.mjs says how).
// POST /live-probe, /live-segment: a live stream's pushed segment into its rungs (live-segment.mjs).
// GET /healthz: "ok" (the Container's readiness check).
import { execFile } from "node:child_process";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { audioResponse } from "./audio.mjs";
import {
  errorResponse,
  Refused,
  readBody,
  runFfmpeg,
  serveFetch,
  shortDiagnostic,
  writeBody,
} from "./ffmpeg-service.mjs";
import { liveSegmentResponse } from "./live-segment.mjs";

export { hasFfmpeg } from "./ffmpeg-service.mjs";

const execFileAsync = promisify(execFile);

/** A chunk is about two minutes of video: 1080p at 50 Mbit/s is 750 MB; refused past 1 GB. */
export const MAX_INPUT_BYTES = 1000 * 1000 * 1000;
/**
 * How long ffmpeg may take for one chunk before it is killed: two minutes of 1080p to 720p
 * takes under a minute on one vCPU at `veryfast`; a crafted file could run for hours.
 */
export const FFMPEG_TIMEOUT_MS = 10 * 60_000;

/** What a request asks for, checked: numbers in range, keyframe times ascending from 0. */
export function parseRung(searchParams) {
  const width = Number(searchParams.get("width"));
  const height = Number(searchParams.get("height"));
  const bitrate = Number(searchParams.get("bitrate"));
  const timescale = Number(searchParams.get("timescale") ?? "90000");
  const keyframes = (searchParams.get("keyframes") ?? "0").split(",").map(Number);
  const even = (n) => Number.isInteger(n) && n >= 16 && n <= 4096 && n % 2 === 0;
  if (!even(width) || !even(height))
    throw new Refused(400, "width and height: even whole numbers of pixels, 16 to 4096");
  if (!Number.isInteger(bitrate) || bitrate < 50_000 || bitrate > 50_000_000)
    throw new Refused(400, "bitrate: bit/s, 50000 to 50000000");
  if (!Number.isInteger(timescale) || timescale < 1 || timescale > 10_000_000)
    throw new Refused(400, "timescale: a whole number, 1 to 10000000");
  if (
    keyframes.length > 10_000 ||
    !keyframes.every((t, i) => Number.isFinite(t) && t >= 0 && (i === 0 || t > keyframes[i - 1]))
  )
    throw new Refused(400, "keyframes: ascending times in seconds, comma separated");
  return { width, height, bitrate, timescale, keyframes };
}

/** ffmpeg's arguments for one chunk (input and output are paths of our own). */
export function transcodeArgs(input, output, { width, height, bitrate, timescale, keyframes }) {
  // Forced keyframes at the boundaries; between them at most every 2 s of 30 fps (x264's own
  // placement never adds one on a scene cut: -sc_threshold 0).
  return [
    "-nostdin",
    "-v",
    "error",
    "-threads",
    "1",
    "-filter_threads",
    "1",
    "-protocol_whitelist",
    "file",
    "-f",
    "mov",
    "-enable_drefs",
    "0",
    "-i",
    `file:${input}`,
    "-map",
    "0:v:0",
    "-an",
    "-sn",
    "-dn",
    "-fps_mode",
    "passthrough",
    "-vf",
    `scale=${width}:${height}:flags=bicubic,format=yuv420p`,
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-profile:v",
    "high",
    "-b:v",
    String(bitrate),
    "-maxrate",
    String(Math.round(bitrate * 1.5)),
    "-bufsize",
    String(bitrate * 2),
    "-force_key_frames",
    keyframes.map((t) => t.toFixed(6)).join(","),
    "-sc_threshold",
    "0",
    "-g",
    "60",
    "-video_track_timescale",
    String(timescale),
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    `file:${output}`,
  ];
}

/**
 * A recording is remuxed whole (copied, not encoded: minutes for hours of video): up to 5 GB,
 * so input and output fit the standard-2 instance's 12 GB disk.
 */
export const MAX_REMUX_INPUT_BYTES = 5 * 1000 * 1000 * 1000;

/** ffmpeg's arguments for a recording's remux into one MP4 (input and output are our own paths). */
export function remuxArgs(input, output, format) {
  return [
    "-nostdin",
    "-v",
    "error",
    "-protocol_whitelist",
    "file",
    "-f",
    format === "mp4" ? "mov" : "mpegts",
    ...(format === "mp4" ? ["-enable_drefs", "0"] : []),
    "-i",
    `file:${input}`,
    "-map",
    "0:v:0",
    "-map",
    "0:a:0?",
    "-sn",
    "-dn",
    "-c",
    "copy",
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    `file:${output}`,
  ];
}

/** The most runs (timelines between encoder restarts) one recording is joined from. */
export const MAX_REMUX_RUNS = 1000;

/** `runs`: the byte size of each run, in order, when the recording has several; else null. */
export function parseRuns(searchParams) {
  const given = searchParams.get("runs");
  if (given === null) return null;
  const sizes = given.split(",").map(Number);
  if (
    sizes.length < 2 ||
    sizes.length > MAX_REMUX_RUNS ||
    !sizes.every((n) => Number.isSafeInteger(n) && n > 0)
  )
    throw new Refused(400, `runs: 2 to ${MAX_REMUX_RUNS} byte sizes, comma separated`);
  return sizes;
}

/** The body written as one file per run as it arrives (`sizes` bytes each, in order). */
async function writeRuns(body, paths, sizes) {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total > MAX_REMUX_INPUT_BYTES)
    throw new Refused(413, `the recording is larger than ${MAX_REMUX_INPUT_BYTES} bytes`);
  let run = 0;
  let left = sizes[0];
  let file = await open(paths[0], "w");
  try {
    for await (const chunk of Readable.fromWeb(body)) {
      let at = 0;
      while (at < chunk.length) {
        if (run === sizes.length) throw new Refused(400, "the body is longer than its runs");
        const n = Math.min(left, chunk.length - at);
        await file.write(chunk.subarray(at, at + n));
        at += n;
        left -= n;
        if (left === 0) {
          const done = file;
          file = null;
          await done.close();
          run += 1;
          if (run < sizes.length) {
            left = sizes[run];
            file = await open(paths[run], "w");
          }
        }
      }
    }
    if (run !== sizes.length) throw new Refused(400, "the body is shorter than its runs");
  } finally {
    await file?.close();
  }
}

/** What must be the same in every run for a copy to join them: codecs and picture. */
const JOINED_ENTRIES =
  "stream=codec_type,codec_name,profile,width,height,pix_fmt,sample_rate,channels";

/** A run's streams as ffprobe reads them, and its video's duration in seconds. */
async function probeRun(path, timeoutMs) {
  const { stdout } = await execFileAsync(
    "ffprobe",
    [
      ...["-v", "error", "-protocol_whitelist", "file", "-show_entries"],
      ...[`${JOINED_ENTRIES},duration`, "-of", "json", `file:${path}`],
    ],
    { timeout: timeoutMs, killSignal: "SIGKILL" },
  ).catch((err) => {
    const stderr = String(err.stderr ?? err);
    console.error(
      JSON.stringify({ level: "error", msg: "ffprobe failed", stderr: stderr.slice(0, 4096) }),
    );
    throw new Refused(422, `not remuxed: ffprobe: ${shortDiagnostic(stderr)}`);
  });
  const streams = JSON.parse(stdout).streams ?? [];
  const video = streams.find((s) => s.codec_type === "video");
  const seconds = Number(video?.duration);
  if (!video || !(seconds > 0)) throw new Refused(422, "not remuxed: a run has no video");
  const same = streams.map(({ duration, ...rest }) => rest);
  return { same: JSON.stringify(same), seconds };
}

/**
 * ffmpeg's arguments joining the remuxed runs listed in `list` (the concat demuxer: each run's
 * timestamps follow on from the previous run's video) into one MP4, copied.
 */
export function concatArgs(list, output) {
  return [
    ...["-nostdin", "-v", "error", "-protocol_whitelist", "file"],
    ...["-f", "concat", "-safe", "1", "-i", `file:${list}`],
    ...["-map", "0:v:0", "-map", "0:a:0?", "-sn", "-dn", "-c", "copy"],
    ...["-movflags", "+faststart", "-f", "mp4", `file:${output}`],
  ];
}

/**
 * A recording of several runs in one MP4: each run remuxed alone (its own timeline), then the
 * runs joined one after the other, refused (422) when they differ in codecs or picture.
 */
async function remuxRuns(body, dir, format, sizes, output, timeoutMs) {
  const inputs = sizes.map((_, i) => join(dir, `run-${i}`));
  await writeRuns(body, inputs, sizes);
  const probes = [];
  for (const [i, input] of inputs.entries()) {
    await runFfmpeg(remuxArgs(input, `${input}.mp4`, format), timeoutMs, `run ${i} not remuxed`);
    await rm(input);
    probes.push(await probeRun(`${input}.mp4`, timeoutMs));
  }
  const differs = probes.findIndex((p) => p.same !== probes[0].same);
  if (differs > 0)
    throw new Refused(
      422,
      `the recording's runs differ (codecs or picture): run 0 ${probes[0].same}, run ${differs} ${probes[differs].same}`.slice(
        0,
        600,
      ),
    );
  // Each run lasts its video's duration: the next one's first frame comes right after.
  const list = inputs
    .map((input, i) =>
      [
        `file 'run-${i}.mp4'`,
        ...(i < inputs.length - 1 ? [`duration ${probes[i].seconds}`] : []),
      ].join("\n"),
    )
    .join("\n");
  await writeFile(join(dir, "runs.txt"), `${list}\n`);
  await runFfmpeg(concatArgs(join(dir, "runs.txt"), output), timeoutMs, "runs not joined");
}

/** A recording remuxed into one MP4, streamed back from the temporary file. */
async function remuxResponse(request, url, timeoutMs) {
  const format = url.searchParams.get("format");
  if (format !== "mpegts" && format !== "mp4")
    throw new Refused(
      400,
      "format: mpegts (TS segments) or mp4 (an init segment, then fMP4 segments)",
    );
  const runs = parseRuns(url.searchParams);
  const dir = await mkdtemp(join(tmpdir(), "remux-"));
  try {
    const output = join(dir, "out.mp4");
    if (runs) await remuxRuns(request.body, dir, format, runs, output, timeoutMs);
    else {
      const input = join(dir, "in");
      await writeBody(request.body, input, MAX_REMUX_INPUT_BYTES, "the recording");
      await runFfmpeg(remuxArgs(input, output, format), timeoutMs, "not remuxed");
    }
    // Opened before the directory goes: the open file is read to its end, then closed.
    const file = await open(output);
    const { size } = await file.stat();
    return new Response(Readable.toWeb(file.createReadStream()), {
      headers: { "Content-Type": "video/mp4", "Content-Length": String(size) },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One chunk transcoded: a fetch-style handler (Request → Response). */
export async function transcoderResponse(request, { timeoutMs = FFMPEG_TIMEOUT_MS } = {}) {
  const url = new URL(request.url);
  if (request.method === "GET" && url.pathname === "/healthz") return new Response("ok");
  if (request.method === "POST" && url.pathname === "/remux" && request.body)
    return remuxResponse(request, url, timeoutMs).catch(errorResponse);
  if (request.method === "POST" && url.pathname === "/audio" && request.body)
    return audioResponse(request, url, timeoutMs);
  if (request.method === "POST" && url.pathname.startsWith("/live-") && request.body)
    return liveSegmentResponse(request, url)
      .then((answer) => answer ?? new Response("no such path", { status: 404 }))
      .catch(errorResponse);
  if (request.method !== "POST" || url.pathname !== "/transcode" || !request.body)
    return new Response("POST /transcode?width=&height=&bitrate=&keyframes= with the chunk", {
      status: 400,
    });
  let dir;
  try {
    const rung = parseRung(url.searchParams);
    dir = await mkdtemp(join(tmpdir(), "transcode-"));
    const input = join(dir, "in.mp4");
    const output = join(dir, "out.mp4");
    await writeFile(input, await readBody(request.body, MAX_INPUT_BYTES, "the chunk"));
    await runFfmpeg(transcodeArgs(input, output, rung), timeoutMs, "not transcoded");
    return new Response(await readFile(output), { headers: { "Content-Type": "video/mp4" } });
  } catch (err) {
    return errorResponse(err);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Serves transcoderResponse; resolves to its URL and a close function. On loopback the URL
 * carries the process's secret and only requests naming this address are answered
 * (ffmpeg-service.mjs, serveFetch): TRANSCODER_URL is that URL.
 */
export function startTranscoderServer({ port = 0, host = "127.0.0.1", ...options } = {}) {
  return serveFetch((request) => transcoderResponse(request, options), { port, host });
}
