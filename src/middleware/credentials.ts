// The middleware of every authenticated route: who is asking, then the plan's rate limit.
import type { MiddlewareHandler } from "hono";
import type { AppEnv, AuthClass } from "../http/context";
import { authenticate } from "./auth";
import { edgeCache, type CachePolicy } from "./edge-cache";
import { rateLimit } from "./rate-limit";

export function credentials(
  kind: AuthClass,
): [MiddlewareHandler<AppEnv>, MiddlewareHandler<AppEnv>] {
  return [authenticate(kind), rateLimit];
}

/**
 * An authenticated read answered from the edge cache when it can be: who is asking (the key
 * holds the caller), the cache, then the rate limit, which only answers computed afresh spend.
 */
export function cachedRead(kind: AuthClass, policy: CachePolicy): MiddlewareHandler<AppEnv>[] {
  return [authenticate(kind), edgeCache(policy), rateLimit];
}
