// The plan's per-minute limit for authenticated requests (DESIGN.md): mounted after
// authenticate(), so only requests that proved their credentials count. RateLimit-* headers
// on every answer; 429 with Retry-After past the limit.
import type { MiddlewareHandler } from "hono";
import { PLAN_LIMITS, RateLimiter, type RateLimitDecision } from "../domain/rate-limit";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";

const limiter = new RateLimiter();

function headers(d: RateLimitDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSeconds),
    ...(!d.allowed && { "Retry-After": String(d.resetSeconds) }),
  };
}

export const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { org } = c.get("auth");
  // RATE_LIMIT_PER_MINUTE (local load tests) replaces the plan's limit; the counting is the same.
  const limit = c.get("config").rateLimitPerMinute ?? PLAN_LIMITS[org.plan];
  const decision = limiter.hit(c.env.RATE_LIMITS, org.syncCode, limit, Date.now(), (p) => c.executionCtx.waitUntil(p));
  if (!decision.allowed) {
    throw new ApiError(429, `rate limit exceeded: ${decision.limit} requests per minute for this organization`, headers(decision));
  }
  await next();
  for (const [name, value] of Object.entries(headers(decision))) c.res.headers.set(name, value);
};
