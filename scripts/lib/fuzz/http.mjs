// HTTP over loopback (node:http: raw paths with ../ kept, repeated headers, latin1 header bytes);
// a DNS lookup that only yields loopback addresses.
import { lookup as dnsLookup } from "node:dns";
import http from "node:http";
import zlib from "node:zlib";
import { isLoopbackAddress } from "../net.mjs";
import { MAX_KEEP_BYTES } from "./config.mjs";

/** DNS lookup that only ever yields loopback addresses ("localhost" cannot be pointed elsewhere). */
export function loopbackLookup(hostname, options, callback) {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err);
    const ok = addresses.filter((a) => isLoopbackAddress(a.address));
    if (!ok.length)
      return callback(
        Object.assign(new Error(`${hostname} does not resolve to a loopback address`), {
          code: "ENOTLOOPBACK",
        }),
      );
    if (options.all) return callback(null, ok);
    callback(null, ok[0].address, ok[0].family);
  });
}

/** `keepBytes`: how much of a body to keep (the rest is counted, not held); MAX_KEEP_BYTES by default. */
export function sendHttp(target, request, { agent, timeoutMs, keepBytes = MAX_KEEP_BYTES }) {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    let response = null;
    const finish = (value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...value, ms: Math.round(performance.now() - started) });
    };
    let req;
    const timer = setTimeout(() => {
      finish({
        error: "timeout",
        message: `no complete answer within ${timeoutMs} ms${response ? ` (status ${response.status} received)` : ""}`,
      });
      req?.destroy(new Error("timeout"));
    }, timeoutMs);
    try {
      req = http.request({
        host: target.host,
        port: target.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent: agent === false ? new http.Agent({ keepAlive: false }) : agent,
        lookup: loopbackLookup,
      });
    } catch (err) {
      // Node refused to send it (e.g. a character it does not allow in a path or header).
      finish({ error: "client", message: `${err.code ?? err.name}: ${err.message}` });
      return;
    }
    req.on("response", (res) => {
      response = { status: res.statusCode, headers: res.headers };
      const chunks = [];
      let kept = 0;
      let total = 0;
      res.on("data", (chunk) => {
        total += chunk.length;
        if (kept < keepBytes) {
          chunks.push(chunk);
          kept += chunk.length;
        }
      });
      res.on("end", () => {
        let body = Buffer.concat(chunks);
        const encoding = String(res.headers["content-encoding"] ?? "").toLowerCase();
        try {
          if (total === kept && encoding === "gzip") body = zlib.gunzipSync(body);
          else if (total === kept && encoding === "deflate") body = zlib.inflateSync(body);
          else if (total === kept && encoding === "br") body = zlib.brotliDecompressSync(body);
        } catch {
          // keep the raw bytes
        }
        finish({
          status: res.statusCode,
          headers: res.headers,
          body,
          bodyBytes: total,
          truncated: total > kept,
        });
      });
      res.on("error", (err) =>
        finish({
          error: "connection",
          message: `answer aborted after status ${res.statusCode}: ${err.code ?? ""} ${err.message}`,
        }),
      );
      res.on("aborted", () =>
        finish({ error: "connection", message: `answer aborted after status ${res.statusCode}` }),
      );
    });
    req.on("error", (err) => {
      if (response) return; // the answer came; a late EPIPE/ECONNRESET on our upload is not a finding
      if (req.reusedSocket && err.code === "ECONNRESET" && !request.retried) {
        // The server closed an idle keep-alive connection as we reused it: send again, once, on a new one.
        settled = true;
        clearTimeout(timer);
        sendHttp(
          target,
          { ...request, retried: true },
          { agent: false, timeoutMs, keepBytes },
        ).then((r) => resolve({ ...r, retriedAfterReset: true }));
        return;
      }
      finish({ error: "connection", message: `${err.code ?? err.name}: ${err.message}` });
    });
    if (request.body && request.body.length) {
      if (request.chunked) {
        req.write(request.body);
        req.end();
      } else {
        req.end(request.body);
      }
    } else {
      req.end();
    }
  });
}
