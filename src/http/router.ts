// Every route group is built the same way: zod validation answered by one hook (400 naming
// the field), typed handlers, and the OpenAPI document generated from the route definitions.
import { OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "./context";
import { validationHook } from "./validation";

export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
}

export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
