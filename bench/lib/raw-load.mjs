// A load client that does not look at the bodies: HTTP/1.1 over keep-alive sockets, each
// connection sending its next GET once the previous answer's last byte arrived, counting the
// body's bytes as they pass (Content-Length or chunked framing) and dropping them. autocannon
// parses and hands every body to JavaScript, so on a 400 KB segment it measures itself more than
// the server; this spends a few comparisons per received buffer. Loopback only.
//
//   const result = await rawLoad({ url, path: (n) => `/x?n=${n}`, connections: 10, seconds: 4 });
//   // { requests, rps, bytes, statuses: { 200: n }, errors, p50, p99 } (latencies in ms)
import { connect } from "node:net";
import { performance } from "node:perf_hooks";
import { isLoopbackUrl } from "../../scripts/lib/net.mjs";
import { percentile } from "./stats.mjs";

const HEADER_END = Buffer.from("\r\n\r\n");

/**
 * The answers on one socket, as bytes arrive: calls `done(status, bytes)` once per answer.
 * Understands Content-Length and chunked bodies (the worker's two framings).
 */
function answerReader(done) {
  let head = Buffer.alloc(0);
  let remaining = -1; // body bytes left (Content-Length), -1: reading the head
  let chunked = false;
  let chunkLeft = 0; // chunked: bytes of the current chunk (+2 for its CRLF) still to skip
  let status = 0;
  let bytes = 0;
  let sizeLine = "";
  const finish = () => {
    done(status, bytes);
    head = Buffer.alloc(0);
    remaining = -1;
    chunked = false;
    bytes = 0;
  };
  /** Consumes chunked framing from `buf` at `at`; the offset after what it used. */
  const chunkedFrom = (buf, at) => {
    while (at < buf.length) {
      if (chunkLeft > 0) {
        const take = Math.min(chunkLeft, buf.length - at);
        chunkLeft -= take;
        at += take;
        continue;
      }
      const nl = buf.indexOf(10, at);
      if (nl < 0) {
        sizeLine += buf.toString("latin1", at);
        return buf.length;
      }
      const line = (sizeLine + buf.toString("latin1", at, nl)).trim();
      sizeLine = "";
      at = nl + 1;
      if (line === "") continue; // the CRLF after a chunk's data
      const size = parseInt(line, 16);
      if (size === 0) {
        // The last chunk: its CRLF (no trailers from the worker).
        chunkLeft = 2;
        const take = Math.min(chunkLeft, buf.length - at);
        at += take;
        chunkLeft -= take;
        finish();
        return at;
      }
      bytes += size;
      chunkLeft = size;
    }
    return at;
  };
  return (data) => {
    let buf = data;
    while (buf.length > 0) {
      if (remaining === -1 && !chunked) {
        head = head.length ? Buffer.concat([head, buf]) : buf;
        const end = head.indexOf(HEADER_END);
        if (end < 0) return;
        const text = head.toString("latin1", 0, end);
        status = Number(text.slice(9, 12));
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
        chunked = !length && /\r\ntransfer-encoding:\s*chunked/i.test(text);
        remaining = length ? Number(length[1]) : 0;
        buf = head.subarray(end + 4);
        head = Buffer.alloc(0);
        if (!chunked && remaining === 0) finish();
        continue;
      }
      if (chunked) {
        const at = chunkedFrom(buf, 0);
        buf = buf.subarray(at);
        continue;
      }
      const take = Math.min(remaining, buf.length);
      bytes += take;
      remaining -= take;
      buf = buf.subarray(take);
      if (remaining === 0) finish();
    }
  };
}

/**
 * Sends GETs of `path(n)` (n counts every request of the run) over `connections` keep-alive
 * sockets for `seconds`; resolves with the throughput and latencies. `headers`: extra request
 * headers. A socket that fails is counted as an error and opened again.
 */
export async function rawLoad({ url, path, connections = 10, seconds = 4, headers = {} }) {
  const base = new URL(url);
  if (!isLoopbackUrl(base.origin))
    throw new Error(`rawLoad measures loopback servers only: ${url}`);
  const port = Number(base.port || 80);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  let n = 0;
  let requests = 0;
  let bytes = 0;
  let errors = 0;
  const statuses = {};
  const latencies = [];
  const started = performance.now();
  const until = started + seconds * 1000;

  const run = () =>
    new Promise((resolve) => {
      const socket = connect({ host: base.hostname, port, noDelay: true });
      let sent = 0;
      const send = () => {
        if (performance.now() >= until) {
          socket.end();
          return;
        }
        sent = performance.now();
        socket.write(`GET ${path(n++)} HTTP/1.1\r\nHost: ${base.host}\r\n${extra}\r\n`);
      };
      socket.on(
        "data",
        answerReader((status, size) => {
          latencies.push(performance.now() - sent);
          requests++;
          bytes += size;
          statuses[status] = (statuses[status] ?? 0) + 1;
          send();
        }),
      );
      socket.on("connect", send);
      socket.on("error", () => {
        errors++;
      });
      socket.on("close", () => {
        resolve(performance.now() < until ? run() : undefined);
      });
    });

  await Promise.all(Array.from({ length: connections }, run));
  const elapsed = (performance.now() - started) / 1000;
  return {
    requests,
    rps: requests / elapsed,
    bytes,
    statuses,
    errors,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
