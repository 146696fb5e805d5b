// The middleware of every authenticated route: who is asking, then the plan's rate limit.
import type { MiddlewareHandler } from "hono";
import type { AppEnv, AuthClass } from "../http/context";
import { authenticate } from "./auth";
import { rateLimit } from "./rate-limit";

export function credentials(kind: AuthClass): [MiddlewareHandler<AppEnv>, MiddlewareHandler<AppEnv>] {
  return [authenticate(kind), rateLimit];
}
