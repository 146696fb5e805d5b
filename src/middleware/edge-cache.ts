// Repeated reads answered from the edge (the Workers Cache API, per Cloudflare location)
// without a D1 query beyond the credential check, which is itself kept in the isolate
// (domain/recent-lookups.ts).
//
// Freshness: the key holds the organization's catalog version (and its network's for network
// listings, its statistics version for reports), read with the credentials. Every write goes
// through catalogChanged, which moves the version on: the next read asks a new key. Staleness is
// bounded for everyone by the credential cache (another isolate may still hold the old version)
// and by each entry's TTL; docs/api.md lists the bound of each endpoint. A request carrying an
// X-D1-Bookmark (a client reading its own writes) skips the cache.
//
// Keys never mix organizations, sub-organizations, credential classes, entitlements, or (for
// network listings) countries: all are part of the key, and the URL's query is normalized.
import type { Context, MiddlewareHandler } from "hono";
import { BOOKMARK_HEADER } from "../http/request";
import { bodyEtag, etagMatches, notModified } from "../http/conditional";
import type { AppEnv } from "../http/context";
import { edgeCacheKey } from "../shared/edge-cache-key";
import { currentRateLimitHeaders } from "./rate-limit";

export interface CachePlan {
  /** What besides the caller and the URL the answer depends on (versions, country). */
  parts: (string | number)[];
  ttlSeconds: number;
}

/** How a route's answers are cached: null for an answer that must not be (it is computed each time). */
export type CachePolicy = (c: Context<AppEnv>) => CachePlan | null | Promise<CachePlan | null>;

/** The answer's own Cache-Control, kept beside the one that gives the entry its TTL. */
const CLIENT_CACHE_CONTROL = "X-Client-Cache-Control";
/** Headers of the answer that a hit gives back (the outer middleware adds the rest). */
const REPLAYED = ["content-type", "etag", "last-modified", "access-control-allow-origin"];

function normalizedQuery(url: URL): string {
  const pairs = [...url.searchParams].sort(([a, x], [b, y]) => (a === b ? x.localeCompare(y) : a.localeCompare(b)));
  return new URLSearchParams(pairs).toString();
}

/** The cache key: a URL under the service's own origin that names everything the answer depends on. */
export function cacheKey(c: Context<AppEnv>, plan: CachePlan): string {
  const url = new URL(c.req.url);
  const auth = c.get("auth") as AppEnv["Variables"]["auth"] | undefined;
  const caller = auth
    ? [`o${auth.org.id}`, `m${auth.subOrg?.id ?? 0}`, auth.via, [...auth.org.entitlements].sort().join(".") || "-"]
    : ["public"];
  return edgeCacheKey(c.get("origins").baseUrl, [...caller, ...plan.parts], url.pathname, normalizedQuery(url));
}

function replay(stored: Response): Headers {
  const headers = new Headers();
  for (const name of REPLAYED) {
    const value = stored.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const clientCacheControl = stored.headers.get(CLIENT_CACHE_CONTROL);
  if (clientCacheControl) headers.set("Cache-Control", clientCacheControl);
  headers.set("X-Edge-Cache", "hit");
  return headers;
}

export function edgeCache(policy: CachePolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const skip = c.req.method !== "GET" || c.req.header(BOOKMARK_HEADER) !== undefined || c.req.header("Range") !== undefined;
    const plan = skip ? null : await policy(c);
    if (!plan) return next();
    const key = cacheKey(c, plan);
    const cache = caches.default;
    const hit = await cache.match(key);
    if (hit) {
      const headers = replay(hit);
      // A hit spends no budget (middleware/rate-limit.ts) but says where the budget stands.
      if (c.get("auth")) for (const [name, value] of Object.entries(currentRateLimitHeaders(c))) headers.set(name, value);
      const etag = headers.get("ETag");
      c.res = etag && etagMatches(c.req.header("If-None-Match"), etag) ? notModified(headers) : new Response(hit.body, { status: 200, headers });
      return;
    }
    await next();
    // Only complete 200 answers; a handler that streams (a large report) says no-store.
    if (c.res.status !== 200 || c.res.headers.get("Cache-Control") === "no-store") return;
    c.header("X-Edge-Cache", "miss");
    const body = await c.res.clone().arrayBuffer();
    const etag = c.res.headers.get("ETag") ?? (await bodyEtag(body));
    c.header("ETag", etag);
    const headers = new Headers({ "Cache-Control": `public, max-age=${plan.ttlSeconds}` });
    for (const name of REPLAYED) {
      const value = c.res.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    headers.set("ETag", etag);
    const clientCacheControl = c.res.headers.get("Cache-Control");
    if (clientCacheControl) headers.set(CLIENT_CACHE_CONTROL, clientCacheControl);
    c.executionCtx.waitUntil(cache.put(key, new Response(body, { headers })));
  };
}
