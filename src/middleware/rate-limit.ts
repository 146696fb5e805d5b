// The plan's per-minute limit for authenticated requests (docs/design.md): mounted after
// authenticate(), so only requests that proved their credentials count. RateLimit-* headers
// on every answer; 429 with Retry-After past the limit.
//
// Each credential class has its own budget of the plan's limit, so that one cannot spend the
// other's: `public` (the sync code alone, or with organization_key: what ships inside apps and
// web pages, which anyone can copy) and `write` (API key + secret, API token, console session).
// Reads answered from the edge cache do not count (mounted after edgeCache(): a hit never
// reaches it): they cost no database work, and an app whose users read the same pages must not
// be refused for its popularity. What counts is what reaches D1.
import type { Context, MiddlewareHandler } from "hono";
import { PLAN_LIMITS, type RateLimitDecision, RateLimiter } from "../domain/rate-limit";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { isolateNow } from "../shared/isolate-memory";

const limiter = new RateLimiter();

function headers(d: RateLimitDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSeconds),
    ...(!d.allowed && { "Retry-After": String(d.resetSeconds) }),
  };
}

/** The budget a request spends: its organization's, for its credential class. */
function budget(c: Context<AppEnv>) {
  const { org, via } = c.get("auth");
  const credentialClass = via === "write" ? "write" : "public";
  // RATE_LIMIT_PER_MINUTE (local load tests) replaces the plan's limit; the counting is the same.
  return {
    key: `${org.id}:${credentialClass}`,
    credentialClass,
    limit: c.get("config").rateLimitPerMinute ?? PLAN_LIMITS[org.plan],
  };
}

export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { key, credentialClass, limit } = budget(c);
  const decision = limiter.hit(c.env.RATE_LIMITS, key, limit, isolateNow(), (p) =>
    c.executionCtx.waitUntil(p),
  );
  if (!decision.allowed) {
    const which =
      credentialClass === "write" ? "write credentials" : "sync code (public credentials)";
    throw new ApiError(
      429,
      `rate limit exceeded: ${decision.limit} requests per minute for this organization's ${which}`,
      headers(decision),
    );
  }
  await next();
  for (const [name, value] of Object.entries(headers(decision))) c.res.headers.set(name, value);
};

/** The RateLimit-* headers of the request's budget as it stands, counting nothing (an edge-cache hit). */
export function currentRateLimitHeaders(c: Context<AppEnv>): Record<string, string> {
  const { key, limit } = budget(c);
  return headers({ ...limiter.peek(key, limit, isolateNow()), allowed: true });
}
