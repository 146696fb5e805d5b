// Failed authentication is throttled per client (docs/design.md): past AUTH_FAILURES_PER_MINUTE
// failures in a minute, further *failing* attempts answer 429 instead of 401. Valid
// credentials are never refused here: only a failure is counted and judged. The count uses the
// same per-isolate + KV-shard limiter as the plan limits, keyed by the client: an IPv4 address,
// or an IPv6 /64 (shared/client-address.ts: one subscriber holds the whole /64).
import type { Context } from "hono";
import { RateLimiter } from "../domain/rate-limit";
import type { AppEnv } from "../http/context";
import { ApiError } from "../http/errors";
import { clientIp } from "../http/request";
import { addressBucket } from "../shared/client-address";
import { isolateNow } from "../shared/isolate-memory";

const failures = new RateLimiter();

/** The error to answer a failed authentication with: the 401 itself, or 429 for a client past its failures. */
export function authenticationFailed(c: Context<AppEnv>, refusal: ApiError): ApiError {
  // Cloudflare sets CF-Connecting-IP on every request; without it (local tools) there is no
  // client to throttle, and one shared bucket would let one client lock out the others.
  const ip = clientIp(c.req.raw);
  if (!ip) return refusal;
  const limit = c.get("config").authFailuresPerMinute;
  const decision = failures.hit(
    c.env.RATE_LIMITS,
    `authfail:${addressBucket(ip)}`,
    limit,
    isolateNow(),
    (p) => c.executionCtx.waitUntil(p),
  );
  if (decision.allowed) return refusal;
  return new ApiError(
    429,
    `too many failed authentications from this address (an IPv6 client counts by its /64): at most ${limit} a minute`,
    {
      "Retry-After": String(decision.resetSeconds),
    },
  );
}
