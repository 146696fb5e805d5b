// The local stand-in for Cloudflare's Media Transformations (frame mode): POST /frame?time=<s>
// with a video as the body answers one frame as a 1920x1080 JPEG (the picture fitted, black
// bars around), made by ffmpeg. npm run dev serves it on a loopback port (FRAME_SERVICE_URL);
// the workers tests bind it as the FRAMES service (vitest.config.ts). src/media/frames.ts is
// the worker's side.
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  errorResponse,
  Refused,
  readBody,
  runFfmpeg,
  serveFetch,
} from "../../containers/transcoder/ffmpeg-service.mjs";

/** Whether ffmpeg runs on this machine (without it the service keeps its placeholder thumbnail). */
export { hasFfmpeg } from "../../containers/transcoder/ffmpeg-service.mjs";

/**
 * What this stand-in accepts, as Media Transformations documents its own limits (an input under
 * 100 MB, a frame at most 10 minutes in, 10 to 2,000 pixels a side), so a request that works here
 * fits production too.
 */
export const MAX_INPUT_BYTES = 100 * 1000 * 1000;
export const MAX_TIME_SECONDS = 600;
/**
 * How long ffmpeg may take for one frame before it is killed: a frame of a small clip takes a
 * fraction of a second; a crafted file can keep ffmpeg busy for minutes.
 */
export const FFMPEG_TIMEOUT_MS = 15_000;

/**
 * ffmpeg's arguments for one frame of the MP4/MOV file at `input` (a path of our own). The input
 * is read only as an MP4/MOV (the mov demuxer, forced: never a playlist, a concat list or an
 * image sequence ffmpeg would otherwise detect) and only through the file protocol; the
 * demuxer's external data references (drefs) stay off.
 */
export function frameArgs(input, { time, width, height }) {
  const fit = `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:-1:-1:color=black,format=yuvj420p`;
  return [
    "-nostdin",
    "-v",
    "error",
    "-threads",
    "1",
    "-filter_threads",
    "1",
    // Input options: only local files, read as MP4/MOV, no external references.
    "-protocol_whitelist",
    "file",
    "-f",
    "mov",
    "-enable_drefs",
    "0",
    "-ss",
    String(time),
    "-i",
    `file:${input}`,
    "-frames:v",
    "1",
    "-vf",
    fit,
    "-q:v",
    "3",
    "-f",
    "mjpeg",
    "pipe:1",
  ];
}

/**
 * One frame of the video in `request`'s body: a fetch-style handler (Request → Response).
 * `timeoutMs` bounds ffmpeg (tests pass a small one).
 */
export async function frameResponse(request, { timeoutMs = FFMPEG_TIMEOUT_MS } = {}) {
  const url = new URL(request.url);
  const time = Number(url.searchParams.get("time") ?? "0");
  const width = Number(url.searchParams.get("width") ?? "1920");
  const height = Number(url.searchParams.get("height") ?? "1080");
  if (request.method !== "POST" || url.pathname !== "/frame" || !request.body)
    return new Response("POST /frame?time=<seconds> with the video as the body", { status: 400 });
  if (
    ![time, width, height].every(Number.isFinite) ||
    time < 0 ||
    time > MAX_TIME_SECONDS ||
    width < 10 ||
    height < 10 ||
    width > 2000 ||
    height > 2000
  ) {
    return new Response(
      `time, width, height: numbers (0 <= time <= ${MAX_TIME_SECONDS}, 10..2000 pixels)`,
      { status: 400 },
    );
  }
  // ffmpeg seeks in a file (a moov at the end needs it), not in a pipe.
  const dir = await mkdtemp(join(tmpdir(), "frame-"));
  try {
    const input = join(dir, "video.mp4");
    await writeFile(input, await readBody(request.body, MAX_INPUT_BYTES, "the video"));
    const jpeg = await runFfmpeg(frameArgs(input, { time, width, height }), timeoutMs, "no frame");
    if (jpeg.length === 0) return new Response(`no frame at ${time} s`, { status: 422 });
    return new Response(jpeg, { headers: { "Content-Type": "image/jpeg" } });
  } catch (err) {
    return errorResponse(err);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * frameResponse, remembering the last frames made (by the video's SHA-256 and the query): the
 * tests and the demo publish the same few files many times, and a frame of the same bytes at
 * the same time is the same frame.
 */
export function rememberingFrameService(entries = 32, options = {}) {
  const made = new Map();
  return async (request) => {
    if (request.method !== "POST" || !request.body) return frameResponse(request, options);
    let body;
    try {
      body = await readBody(request.body, MAX_INPUT_BYTES, "the video");
    } catch (err) {
      if (err instanceof Refused) return errorResponse(err);
      throw err;
    }
    const key = `${createHash("sha256").update(body).digest("hex")} ${new URL(request.url).search}`;
    let jpeg = made.get(key);
    if (!jpeg) {
      const response = await frameResponse(
        new Request(request.url, { method: "POST", body }),
        options,
      );
      if (!response.ok) return response;
      jpeg = new Uint8Array(await response.arrayBuffer());
      if (made.size >= entries) made.delete(made.keys().next().value);
      made.set(key, jpeg);
    }
    return new Response(jpeg, { headers: { "Content-Type": "image/jpeg" } });
  };
}

/** The only address the frame service listens on: it runs ffmpeg on what it is sent. */
export const FRAME_SERVICE_HOST = "127.0.0.1";

/**
 * Serves frameResponse on a loopback port; resolves to its URL (carrying this process's secret:
 * only requests to that URL, naming this address, are answered; ffmpeg-service.mjs, serveFetch),
 * the address it listens on and a close function.
 */
export function startFrameServer({ port = 0, ...options } = {}) {
  return serveFetch(rememberingFrameService(32, options), { port, host: FRAME_SERVICE_HOST });
}
