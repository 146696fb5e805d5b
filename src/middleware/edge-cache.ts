// Repeated reads answered from the edge (the Workers Cache API, per Cloudflare location, and in
// front of it the isolate's own memory for the hottest answers: isolate-answers.ts) without a D1
// query beyond the credential check, which is itself kept in the isolate
// (domain/kept-lookups.ts).
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
//
// After a write, one refresh per key and isolate, not one per reader: the first request that
// misses computes the answer; requests for the same key meanwhile wait for it ("coalesced",
// polling in their own request context), or, for public reads of a policy that allows it, get
// the latest answer of an earlier version if it was computed at most EDGE_STALE_SECONDS ago
// ("stale"; the latest answers are kept in the isolate's memory only, so a miss makes one cache
// put). A request carrying write credentials never gets a stale answer (the writer reads its own
// writes), nor does one with a bookmark.
import type { Context, MiddlewareHandler } from "hono";
import { bodyEtag, etagMatches, notModified } from "../http/conditional";
import type { AppEnv } from "../http/context";
import { BOOKMARK_HEADER } from "../http/request";
import { edgeCacheKey } from "../shared/edge-cache-key";
import { isolateNow } from "../shared/isolate-memory";
import { readerOf } from "../shared/versions";
import { offersWriteCredentials } from "./auth";
import { ISOLATE_ANSWER_MAX_BYTES, isolateAnswers } from "./isolate-answers";
import { currentRateLimitHeaders } from "./rate-limit";

export interface CachePlan {
  /** What besides the caller and the URL the answer depends on (versions, country). */
  parts: (string | number)[];
  ttlSeconds: number;
  /**
   * The parts that name the answer whatever the versions (a network listing's country): the key
   * under which the isolate also keeps the latest answer in memory, to be served stale for a few
   * seconds after a version change. Absent: never served stale.
   */
  latestParts?: (string | number)[];
  /**
   * Writers delete the entry when its source changes (feed files: the key names no version). It
   * is then never kept in an isolate's memory (isolate-answers.ts), which their deletes cannot reach.
   */
  deletedOnChange?: true;
}

/** How a route's answers are cached: null for an answer that must not be (it is computed each time). */
export type CachePolicy = (c: Context<AppEnv>) => CachePlan | null | Promise<CachePlan | null>;

/** The answer's own Cache-Control, kept beside the one that gives the entry its TTL. */
const CLIENT_CACHE_CONTROL = "X-Client-Cache-Control";
/** Headers of the answer that a hit gives back (the outer middleware adds the rest). */
const REPLAYED = ["content-type", "etag", "last-modified", "access-control-allow-origin"];

/**
 * Query arguments that change nothing the cache keeps: a playback token, checked before the cache
 * (middleware/signed-playback.ts), and the CMCD data players add to every stream request
 * (docs/qoe.md): one entry serves every viewer.
 */
const UNKEYED_QUERY = new Set(["token", "CMCD"]);

function normalizedQuery(url: URL): string {
  const pairs = [...url.searchParams]
    .filter(([name]) => !UNKEYED_QUERY.has(name))
    .sort(([a, x], [b, y]) => (a === b ? x.localeCompare(y) : a.localeCompare(b)));
  return new URLSearchParams(pairs).toString();
}

function callerParts(c: Context<AppEnv>): string[] {
  const auth = c.get("auth") as AppEnv["Variables"]["auth"] | undefined;
  return auth
    ? [readerOf(auth), auth.via, [...auth.org.entitlements].sort().join(".") || "-"]
    : ["public"];
}

/** The cache key: a URL under the service's own origin that names everything the answer depends on. */
export function cacheKey(c: Context<AppEnv>, plan: CachePlan): string {
  const url = new URL(c.req.url);
  return edgeCacheKey(
    c.get("origins").baseUrl,
    [...callerParts(c), ...plan.parts],
    url.pathname,
    normalizedQuery(url),
  );
}

/** The key of the latest answer of any version (null when the plan or the caller may not be served stale). */
function latestKey(c: Context<AppEnv>, plan: CachePlan): string | null {
  if (!plan.latestParts || c.get("config").edgeStaleSeconds === 0) return null;
  const via = (c.get("auth") as AppEnv["Variables"]["auth"] | undefined)?.via;
  if (via === "write" || offersWriteCredentials(c)) return null;
  const url = new URL(c.req.url);
  return edgeCacheKey(
    c.get("origins").baseUrl,
    [...callerParts(c), "latest", ...plan.latestParts],
    url.pathname,
    normalizedQuery(url),
  );
}

/** When the answer was computed (ms), kept on the entry to bound what a stale answer may be. */
const COMPUTED_AT = "X-Computed-At";

/** An answer as kept: its bytes and headers (plain values, shared by the requests of an isolate). */
interface Kept {
  body: ArrayBuffer;
  headers: [string, string][];
}

/** An answer being computed by one request of this isolate; `kept` is set when it is done. */
interface Computation {
  kept?: Kept | null;
}
const computing = new Map<string, Computation>();

/** The answers this isolate kept most recently (isolate-answers.ts): a hit there asks no cache. */
const hot = isolateAnswers();

/**
 * How a request waits for another's answer: it checks every POLL_MS in its own context (workerd
 * cancels a request's continuations of a promise that another request resolves, so the answer
 * cannot be handed over as a promise), for at most WAIT_FOR_ANOTHER_MS: the first request may
 * have been cancelled (its client went away) before it could say it is done.
 */
const POLL_MS = 10;
const WAIT_FOR_ANOTHER_MS = 10_000;

/** The other request's answer, or null if it kept none or did not give one in time. */
async function answerOfAnother(computation: Computation): Promise<Kept | null> {
  for (let waited = 0; waited < WAIT_FOR_ANOTHER_MS; waited += POLL_MS) {
    if (computation.kept !== undefined) return computation.kept;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return null;
}

function replay(stored: Headers, how: "hit" | "stale" | "coalesced"): Headers {
  const headers = new Headers();
  for (const name of REPLAYED) {
    const value = stored.get(name);
    if (value !== null) headers.set(name, value);
  }
  const clientCacheControl = stored.get(CLIENT_CACHE_CONTROL);
  if (clientCacheControl) headers.set("Cache-Control", clientCacheControl);
  headers.set("X-Edge-Cache", how);
  return headers;
}

export function edgeCache(policy: CachePolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const skip =
      c.req.method !== "GET" ||
      c.req.header(BOOKMARK_HEADER) !== undefined ||
      c.req.header("Range") !== undefined;
    const plan = skip ? null : await policy(c);
    if (!plan) return next();
    const key = cacheKey(c, plan);
    const cache = caches.default;
    const answer = (body: BodyInit | null, stored: Headers, how: "hit" | "stale" | "coalesced") => {
      const headers = replay(stored, how);
      // A hit spends no budget (middleware/rate-limit.ts) but says where the budget stands.
      if (c.get("auth"))
        for (const [name, value] of Object.entries(currentRateLimitHeaders(c)))
          headers.set(name, value);
      const etag = headers.get("ETag");
      c.res =
        etag && etagMatches(c.req.header("If-None-Match"), etag)
          ? notModified(headers)
          : new Response(body, { status: 200, headers });
    };

    const inMemory = !plan.deletedOnChange;
    const latest = inMemory ? latestKey(c, plan) : null;
    const staleMs = c.get("config").edgeStaleSeconds * 1000;
    const kept = inMemory ? hot.get(key, isolateNow()) : null;
    if (kept) return answer(kept.body, new Headers(kept.headers), "hit");
    const hit = await cache.match(key);
    if (hit) {
      // Kept in memory too when small: the entry's remaining TTL, from when it was computed.
      const length = Number(hit.headers.get("Content-Length") ?? Infinity);
      if (!inMemory || length > ISOLATE_ANSWER_MAX_BYTES)
        return answer(hit.body, hit.headers, "hit");
      const kept = { body: await hit.arrayBuffer(), headers: [...hit.headers] };
      const ageMs = isolateNow() - Number(hit.headers.get(COMPUTED_AT));
      if (ageMs >= 0) hot.set(key, kept, plan.ttlSeconds * 1000 - ageMs, isolateNow());
      if (latest && ageMs >= 0) hot.set(latest, kept, staleMs - ageMs, isolateNow());
      return answer(kept.body, hit.headers, "hit");
    }

    const other = computing.get(key);
    if (other) {
      // Another request of this isolate computed this answer and is storing it: that answer.
      if (other.kept) return answer(other.kept.body, new Headers(other.kept.headers), "coalesced");
      // It is computing it: an earlier version's answer, if young enough, now; else the new one.
      const stale = latest ? youngEnough(latest, staleMs) : null;
      if (stale) return answer(stale.body, new Headers(stale.headers), "stale");
      const kept = await answerOfAnother(other);
      if (kept) return answer(kept.body, new Headers(kept.headers), "coalesced");
      // The first one's answer was not kept (an error) or is late: compute it here.
    }

    const mine: Computation = {};
    computing.set(key, mine);
    // The computation stays findable until its answer is in the cache: a reader arriving between
    // the answer and the put would otherwise miss both and compute it again.
    const forget = () => {
      if (computing.get(key) === mine) computing.delete(key);
    };
    let storing = false;
    try {
      await next();
      mine.kept = await keep(c, plan);
      const kept = mine.kept;
      if (kept) {
        if (inMemory) hot.set(key, kept, plan.ttlSeconds * 1000, isolateNow());
        // The latest answer of any version, for stale answers in this isolate (only ever asked
        // while this isolate computes the next version): kept in memory only, for as long as it
        // may be served.
        if (latest) hot.set(latest, kept, staleMs, isolateNow());
        const stillCurrent = c.get("stillCurrent");
        c.executionCtx.waitUntil(
          (async () => {
            try {
              await cache.put(key, new Response(kept.body, { headers: kept.headers }));
            } finally {
              forget();
            }
            // A source rewritten while this answer was read: its writer dropped the cached copy
            // before this put, which would keep the old one until the TTL ends. Checked after the
            // put, so a rewrite either shows here (the copy goes) or comes after this check (its
            // writer's drop comes after the put).
            if (stillCurrent && !(await stillCurrent())) await cache.delete(key);
          })(),
        );
        storing = true; // (only once waitUntil took the put: it forgets the computation)
      }
    } finally {
      mine.kept ??= null; // an error leaves nobody waiting
      if (!storing) forget();
    }
  };
}

/** The latest answer this isolate kept under `key` if it was computed at most `ms` ago. */
function youngEnough(key: string, ms: number): Kept | null {
  const found = hot.get(key, isolateNow());
  const computedAt = Number(
    found?.headers.find(([name]) => name.toLowerCase() === COMPUTED_AT.toLowerCase())?.[1],
  );
  return found && isolateNow() - computedAt <= ms ? found : null;
}

/** The handler's answer as the edge keeps it, or null for one it must not keep. */
async function keep(c: Context<AppEnv>, plan: CachePlan): Promise<Kept | null> {
  // Only complete 200 answers; a handler that streams (a large report) says no-store.
  if (c.res.status !== 200 || c.res.headers.get("Cache-Control") === "no-store") return null;
  c.header("X-Edge-Cache", "miss");
  const body = await c.res.clone().arrayBuffer();
  const etag = c.res.headers.get("ETag") ?? (await bodyEtag(body));
  c.header("ETag", etag);
  const headers = new Headers({
    "Cache-Control": `public, max-age=${plan.ttlSeconds}`,
    [COMPUTED_AT]: String(isolateNow()),
  });
  for (const name of REPLAYED) {
    const value = c.res.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  headers.set("ETag", etag);
  const clientCacheControl = c.res.headers.get("Cache-Control");
  if (clientCacheControl) headers.set(CLIENT_CACHE_CONTROL, clientCacheControl);
  return { body, headers: [...headers] };
}
