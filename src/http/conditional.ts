// Conditional requests (RFC 9110): one ETag comparison for every response the worker computes,
// and the middleware that gives cacheable JSON reads their ETag, Cache-Control and 304.
import type { MiddlewareHandler } from "hono";
import { sha256Hex } from "../shared/crypto";
import { etagMatches } from "../shared/etag";

export { etagMatches };

/** A strong ETag over a body: the first 128 bits of its SHA-256. */
export async function bodyEtag(body: string | ArrayBuffer): Promise<string> {
  return `"${(await sha256Hex(body)).slice(0, 32)}"`;
}

/** Headers a 304 keeps from the 200 it stands for (RFC 9110 §15.4.5). */
const KEPT_ON_304 = [
  "cache-control",
  "etag",
  "vary",
  "expires",
  "content-location",
  "date",
  "x-edge-cache",
];

export function notModified(from: Headers): Response {
  const headers = new Headers();
  for (const name of KEPT_ON_304) {
    const value = from.get(name);
    if (value !== null) headers.set(name, value);
  }
  for (const [name, value] of from)
    if (name.startsWith("ratelimit-") || name.startsWith("access-control-"))
      headers.set(name, value);
  return new Response(null, { status: 304, headers });
}

/**
 * Cacheable JSON reads: a strong ETag over the body, 304 for a matching If-None-Match, and
 * `cacheControl` on 200s (errors get no-store). `vary` names the request headers the answer
 * depends on; a handler may set its own ETag, or opt out with Cache-Control: no-store. Why
 * not hono/etag: the edge cache and file serving compare ETags outside a middleware, so the
 * comparison lives here once.
 */
export function cacheable(cacheControl: string, vary: string[] = []): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (vary.length) c.res.headers.set("Vary", vary.join(", "));
    // A 304 from the edge cache (middleware/edge-cache.ts): the validators are already set.
    if (c.res.status === 304) {
      c.res.headers.set("Cache-Control", cacheControl);
      return;
    }
    if (c.res.status !== 200) {
      c.res.headers.set("Cache-Control", "no-store");
      return;
    }
    // A handler that streams its body (a large report) opts out with no-store: hashing it would
    // buffer the whole stream.
    if (c.res.headers.get("Cache-Control") === "no-store") return;
    c.res.headers.set("Cache-Control", cacheControl);
    let etag = c.res.headers.get("ETag");
    if (!etag) {
      etag = await bodyEtag(await c.res.clone().arrayBuffer());
      c.res.headers.set("ETag", etag);
    }
    if (
      (c.req.method === "GET" || c.req.method === "HEAD") &&
      etagMatches(c.req.header("If-None-Match"), etag)
    ) {
      const res = notModified(c.res.headers);
      c.res = undefined; // replace rather than merge into the 200
      c.res = res;
    }
  };
}
