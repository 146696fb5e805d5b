// The middleware of every authenticated route: who is asking (and may they: the route's
// capability), the write recorded in the audit log, then the plan's rate limit.
import type { MiddlewareHandler } from "hono";
import type { AppEnv, AuthClass } from "../http/context";
import { auditWrites } from "./audit";
import { authenticate } from "./auth";
import { type CachePolicy, edgeCache } from "./edge-cache";
import { rateLimit } from "./rate-limit";

export function credentials(kind: AuthClass): MiddlewareHandler<AppEnv>[] {
  return [authenticate(kind), auditWrites, rateLimit];
}

/**
 * An authenticated read answered from the edge cache when it can be: who is asking (the key
 * holds the caller), the cache, then the rate limit, which only answers computed afresh spend.
 * (A read writes nothing: no audit.)
 */
export function cachedRead(kind: AuthClass, policy: CachePolicy): MiddlewareHandler<AppEnv>[] {
  return [authenticate(kind), edgeCache(policy), rateLimit];
}
