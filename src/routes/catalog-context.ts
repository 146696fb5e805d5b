// Builds the catalog context of a request (who asks, from where, when).
import type { Context } from "hono";
import { alpha3, requestCountry } from "../domain/geo";
import type { CatalogContext } from "../domain/catalog/video-filter";
import type { Origins } from "../domain/catalog/records";
import type { AppEnv } from "../http/context";

export function catalogContext(c: Context<AppEnv>): CatalogContext {
  return {
    db: c.get("db"),
    auth: c.get("auth"),
    country: alpha3(requestCountry(c.req.raw)),
    now: new Date().toISOString(),
  };
}

export function origins(c: Context<AppEnv>): Origins {
  return { baseUrl: c.get("baseUrl"), staticUrl: c.get("staticUrl") };
}
