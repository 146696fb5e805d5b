// Public reads that cost the service work (docs/api.md "Rate limits"): answers the edge cache did
// not give (E15, json-feed, feed files, stream files), the embed page, and the refusals of the
// media gates (media, thumbnails, streams or the embed page of a key that serves nothing: each a
// database lookup). One client may make PUBLIC_READS_PER_IP_PER_MINUTE of them a minute; past it
// they answer 429 with Retry-After. A client is an IPv4 address or an IPv6 /64
// (shared/client-address.ts), counted like the other per-client limits (domain/rate-limit.ts).
// Answers from the edge cache do not count (mounted after edgeCache(): a hit never reaches it),
// nor do media and thumbnails of a video that is served: a player watching pays only for the
// stream files no one at its location asked before.
import type { Context, MiddlewareHandler } from "hono";
import { RateLimiter } from "../domain/rate-limit";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { clientIp } from "../http/request";
import { addressBucket } from "../shared/client-address";
import { isolateNow } from "../shared/isolate-memory";

const limiter = new RateLimiter();
/** Requests that have spent their unit already (a gate's refusal after the budget middleware). */
const spent = new WeakSet<Request>();

/**
 * Spends one unit of the client's budget for this request (once per request), or throws 429.
 * Without CF-Connecting-IP (local tools) there is no client to count: nothing is spent.
 */
export function spendPublicRead(c: Context<AppEnv>): void {
  const ip = clientIp(c.req.raw);
  if (!ip || spent.has(c.req.raw)) return;
  spent.add(c.req.raw);
  const decision = limiter.hit(
    c.env.RATE_LIMITS,
    `public:${addressBucket(ip)}`,
    c.get("config").publicReadsPerIpPerMinute,
    isolateNow(),
    (p) => c.executionCtx.waitUntil(p),
  );
  if (decision.allowed) return;
  throw new ApiError(
    429,
    `too many public reads from this address (an IPv6 client counts by its /64): at most ${decision.limit} a minute that the edge cache does not answer`,
    {
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": String(decision.resetSeconds),
      "Retry-After": String(decision.resetSeconds),
    },
  );
}

/** Counts a public read that reached it: mounted after edgeCache() (a hit never does). */
export const publicReads: MiddlewareHandler<AppEnv> = async (c, next) => {
  spendPublicRead(c);
  await next();
};
