// The local stand-in for Cloudflare's Media Transformations (frame mode): POST /frame?time=<s>
// with a video as the body answers one frame as a 1920x1080 JPEG (the picture fitted, black
// bars around), made by ffmpeg. npm run dev serves it on a loopback port (FRAME_SERVICE_URL);
// the workers tests bind it as the FRAMES service (vitest.config.ts). src/media/frames.ts is
// the worker's side.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/** Whether ffmpeg runs on this machine (without it the service keeps its placeholder thumbnail). */
export function hasFfmpeg() {
  return new Promise((resolve) => execFile("ffmpeg", ["-version"], (err) => resolve(!err)));
}

function run(args) {
  return new Promise((resolve, reject) => {
    const child = spawn("ffmpeg", args, { stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    let err = "";
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(Buffer.concat(out))
        : reject(new Error(`ffmpeg exited ${code}: ${err.slice(0, 300)}`)),
    );
  });
}

/** One frame of the video in `request`'s body: a fetch-style handler (Request → Response). */
export async function frameResponse(request) {
  const url = new URL(request.url);
  const time = Number(url.searchParams.get("time") ?? "0");
  const width = Number(url.searchParams.get("width") ?? "1920");
  const height = Number(url.searchParams.get("height") ?? "1080");
  if (request.method !== "POST" || url.pathname !== "/frame" || !request.body)
    return new Response("POST /frame?time=<seconds> with the video as the body", { status: 400 });
  if (
    ![time, width, height].every(Number.isFinite) ||
    time < 0 ||
    width < 16 ||
    height < 16 ||
    width > 4096 ||
    height > 4096
  ) {
    return new Response("time, width, height: numbers (0 <= time, 16..4096 pixels)", {
      status: 400,
    });
  }
  // ffmpeg seeks in a file (a moov at the end needs it), not in a pipe.
  const dir = await mkdtemp(join(tmpdir(), "frame-"));
  try {
    const input = join(dir, "video");
    await pipeline(Readable.fromWeb(request.body), createWriteStream(input));
    const fit = `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:-1:-1:color=black,format=yuvj420p`;
    const jpeg = await run([
      "-v",
      "error",
      "-ss",
      String(time),
      "-i",
      input,
      "-frames:v",
      "1",
      "-vf",
      fit,
      "-q:v",
      "3",
      "-f",
      "mjpeg",
      "pipe:1",
    ]);
    if (jpeg.length === 0) return new Response(`no frame at ${time} s`, { status: 422 });
    return new Response(jpeg, { headers: { "Content-Type": "image/jpeg" } });
  } catch (err) {
    return new Response(String(err), { status: 500 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * frameResponse, remembering the last frames made (by the video's SHA-256 and the query): the
 * tests and the demo publish the same few files many times, and a frame of the same bytes at
 * the same time is the same frame.
 */
export function rememberingFrameService(entries = 32) {
  const made = new Map();
  return async (request) => {
    if (request.method !== "POST" || !request.body) return frameResponse(request);
    const body = new Uint8Array(await request.arrayBuffer());
    const key = `${createHash("sha256").update(body).digest("hex")} ${new URL(request.url).search}`;
    let jpeg = made.get(key);
    if (!jpeg) {
      const response = await frameResponse(new Request(request.url, { method: "POST", body }));
      if (!response.ok) return response;
      jpeg = new Uint8Array(await response.arrayBuffer());
      if (made.size >= entries) made.delete(made.keys().next().value);
      made.set(key, jpeg);
    }
    return new Response(jpeg, { headers: { "Content-Type": "image/jpeg" } });
  };
}

/** Serves frameResponse on a loopback port; resolves to its URL and a close function. */
export function startFrameServer({ port = 0 } = {}) {
  const handle = rememberingFrameService();
  const server = createServer(async (req, res) => {
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: req.method === "POST" ? Readable.toWeb(req) : undefined,
      duplex: "half",
    });
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address();
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
