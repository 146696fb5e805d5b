// Read responses: a strong ETag over the body, If-None-Match answered with 304, and
// Cache-Control. Players and CDNs revalidate cheaply; nothing is recomputed on a 304 from a
// cache, and the worker saves the transfer when the body is unchanged.
import type { MiddlewareHandler } from "hono";

async function bodyEtag(body: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", body);
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `"${hex}"`;
}

export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/**
 * `cacheControl` for 200s; errors get `no-store`. `vary` lists the request headers the answer
 * depends on (credentials sent as headers make a response private to them).
 */
export function cacheableJson(cacheControl: string, vary: string[] = []): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (vary.length) c.res.headers.set("Vary", vary.join(", "));
    if (c.res.status !== 200) {
      c.res.headers.set("Cache-Control", "no-store");
      return;
    }
    const etag = await bodyEtag(await c.res.clone().arrayBuffer());
    c.res.headers.set("ETag", etag);
    c.res.headers.set("Cache-Control", cacheControl);
    if (etagMatches(c.req.header("If-None-Match"), etag)) {
      const headers = new Headers(c.res.headers);
      headers.delete("Content-Length");
      headers.delete("Content-Type");
      c.res = undefined; // replace rather than merge into the 200
      c.res = new Response(null, { status: 304, headers });
    }
  };
}
