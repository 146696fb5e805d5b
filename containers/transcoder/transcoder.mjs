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
// POST /remux?format=mpegts|mp4
//   body: a live stream's recording (docs/live.md): its MPEG-TS segments one after the other, or
//   its fMP4 init segment then its media segments. answer: the same samples in one MP4 (moov
//   first), H.264 video and its audio copied, not re-encoded; Content-Length set, streamed.
// GET /healthz: "ok" (the Container's readiness check).
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import {
  errorResponse,
  readBody,
  Refused,
  runFfmpeg,
  serveFetch,
  writeBody,
} from "./ffmpeg-service.mjs";

export { hasFfmpeg } from "./ffmpeg-service.mjs";

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

/** A recording remuxed into one MP4, streamed back from the temporary file. */
async function remuxResponse(request, url, timeoutMs) {
  const format = url.searchParams.get("format");
  if (format !== "mpegts" && format !== "mp4")
    throw new Refused(
      400,
      "format: mpegts (TS segments) or mp4 (an init segment, then fMP4 segments)",
    );
  const dir = await mkdtemp(join(tmpdir(), "remux-"));
  try {
    const input = join(dir, "in");
    const output = join(dir, "out.mp4");
    await writeBody(request.body, input, MAX_REMUX_INPUT_BYTES, "the recording");
    await runFfmpeg(remuxArgs(input, output, format), timeoutMs, "not remuxed");
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

/** Serves transcoderResponse; resolves to its URL and a close function. */
export function startTranscoderServer({ port = 0, host = "127.0.0.1", ...options } = {}) {
  return serveFetch((request) => transcoderResponse(request, options), { port, host });
}
