// What the service's two ffmpeg programs share: the rendition transcoder (this folder, the
// Container image) and the local frame service (scripts/lib/frame-service.mjs, the stand-in for
// Media Transformations). Each takes a video in a request body, runs ffmpeg on it under a time
// bound and answers a fetch-style Response; this module is that part, said once.
import { execFile, spawn } from "node:child_process";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import { createServer } from "node:http";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";

/** Whether ffmpeg runs on this machine. */
export function hasFfmpeg() {
  return new Promise((resolve) => execFile("ffmpeg", ["-version"], (err) => resolve(!err)));
}

/** A request refused with an HTTP status and a message naming the problem. */
export class Refused extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Text ffmpeg wrote, made safe to answer with: its last line, the temporary paths in it taken
 * out (the caller's log keeps the whole of it), at most 160 characters.
 */
export function shortDiagnostic(stderr) {
  const last = String(stderr).trim().split("\n").at(-1) ?? "";
  return last.replace(/(?:file:)?\/[^\s:'"]+/g, "<file>").slice(0, 160);
}

/**
 * ffmpeg with a time bound (SIGKILL once `timeoutMs` have passed: ffmpeg busy in a crafted file
 * does not stop on SIGTERM); resolves to what it wrote to stdout when it exits 0. The answer
 * waits for 'close', so no ffmpeg outlives its request. `failure` starts the 422 message, which
 * says why in a short line (no paths); its whole stderr goes to this program's log.
 */
export function runFfmpeg(args, timeoutMs, failure) {
  return new Promise((resolve, reject) => {
    const child = spawn("ffmpeg", args, { stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    let err = "";
    let stopped = false;
    const timer = setTimeout(() => {
      stopped = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => {
      if (err.length < 4096) err += d;
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (stopped)
        reject(new Refused(504, `ffmpeg took longer than ${timeoutMs} ms and was stopped`));
      else if (code === 0) resolve(Buffer.concat(out));
      else {
        console.error(
          JSON.stringify({ level: "error", msg: failure, exit: code, stderr: err.slice(0, 4096) }),
        );
        reject(new Refused(422, `${failure}: ffmpeg exited ${code}: ${shortDiagnostic(err)}`));
      }
    });
  });
}

/** The request's body, refused (413) past `max` bytes without reading further. */
export async function readBody(body, max, what) {
  const chunks = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) throw new Refused(413, `${what} is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The request's body written to `path` as it arrives (never held whole), refused (413) past `max` bytes. */
export async function writeBody(body, path, max, what) {
  let size = 0;
  const bounded = new Transform({
    transform(chunk, _encoding, done) {
      size += chunk.length;
      done(size > max ? new Refused(413, `${what} is larger than ${max} bytes`) : null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(body), bounded, createWriteStream(path));
  return size;
}

/** The answer to an error: a Refused with its status, anything else a 500 (the detail logged). */
export function errorResponse(err) {
  if (err instanceof Refused) return new Response(err.message, { status: err.status });
  console.error(JSON.stringify({ level: "error", msg: "internal error", error: String(err) }));
  return new Response("internal error (logged)", { status: 500 });
}

/**
 * Serves a fetch-style handler (Request → Response) over Node's HTTP server on `host:port`
 * (0: a free port); resolves to its URL (loopback when listening on every address), the
 * address it listens on and a close function.
 *
 * On loopback (a developer's machine) it answers only requests that name it in the Host header
 * (`127.0.0.1:<port>` or `localhost:<port>`) and whose path starts with a secret made for this
 * process, which the URL it resolves to carries (`http://127.0.0.1:<port>/<secret>`): a web page
 * the developer opens cannot drive it, even through a name rebound to 127.0.0.1. Listening on
 * every address (the Container, reached only through its Durable Object) it checks neither.
 */
export function serveFetch(handle, { port = 0, host = "127.0.0.1" } = {}) {
  const guarded = host !== "0.0.0.0";
  const secret = guarded ? randomBytes(24).toString("hex") : null;
  let hosts = [];
  const refuse = (res, status, message) => {
    res.writeHead(status, { "Content-Type": "text/plain" });
    res.end(message);
  };
  const server = createServer(async (req, res) => {
    let path = req.url ?? "/";
    if (secret !== null) {
      if (!hosts.includes(String(req.headers.host).toLowerCase()))
        return refuse(res, 421, "this service answers requests to its own address only");
      const given = Buffer.from(path.slice(1, 1 + secret.length));
      const expected = Buffer.from(secret);
      if (
        given.length !== expected.length ||
        !timingSafeEqual(given, expected) ||
        path[secret.length + 1] !== "/"
      )
        return refuse(res, 403, "the path must start with this process's secret (its URL)");
      path = path.slice(secret.length + 1);
    }
    let response;
    try {
      response = await handle(
        new Request(`http://${host}${path}`, {
          method: req.method,
          headers: req.headers,
          body: req.method === "POST" ? Readable.toWeb(req) : undefined,
          duplex: "half",
        }),
      );
    } catch (err) {
      response = errorResponse(err);
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    // Streamed: a remuxed recording may be gigabytes.
    if (response.body) await pipeline(Readable.fromWeb(response.body), res).catch(() => undefined);
    else res.end();
  });
  return new Promise((resolve) => {
    server.listen(port, host, () => {
      const { address, port: bound } = server.address();
      const name = host === "0.0.0.0" ? "127.0.0.1" : host;
      hosts = [`${name}:${bound}`, `localhost:${bound}`];
      resolve({
        url: `http://${name}:${bound}${secret === null ? "" : `/${secret}`}`,
        address,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
