// Per-request setup and bookkeeping: the metered database (a D1 session), configuration and
// public origins on the way in; the D1 cost as a Server-Timing metric (hono/timing, mounted before this) and
// one JSON log line on the way out.
import type { MiddlewareHandler } from "hono";
import { setMetric } from "hono/timing";
import { loadConfig } from "../config";
import { createDb } from "../db/client";
import { D1Meter, meterD1 } from "../db/metered-d1";
import { openSession } from "../db/sessions";
import type { AppEnv } from "../http/context";
import { errorStyleOf } from "../http/errors";
import { BOOKMARK_HEADER } from "../http/request";

export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const meter = new D1Meter();
  c.set("meter", meter);
  // One D1 session per request: reads from the nearest replica, writes and read-your-writes
  // through the bookmark (db/sessions.ts), which every answer carries back.
  const session = openSession(c.env.DB, c.req.method, c.req.header(BOOKMARK_HEADER));
  c.set("db", createDb(meterD1(session, meter)));
  c.set("errorStyle", errorStyleOf(new URL(c.req.url).pathname));
  // Configuration errors are answered (503, naming the setting) like any other error.
  const config = loadConfig(c.env);
  c.set("config", config);
  c.set("origins", { baseUrl: config.publicBaseUrl, staticUrl: config.staticUrl });

  await next();

  setMetric(c, "d1", meter.durationMs, meter.description());
  const bookmark = meter.queries > 0 ? session.getBookmark() : null;
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
  // LOG_REQUESTS=0 (load tests): no line per request. Under `wrangler dev` each console.log is
  // also an inspector message that wrangler keeps until DevTools attaches (docs/benchmarks.md).
  if (!config.logRequests) return;
  // Never log query strings, headers or concrete paths: they may carry credentials (a sync code
  // in /v2/orgs/<sync_code>/feeds.json). The route's pattern says what was called.
  const route = c.req.matchedRoutes.filter((r) => r.method !== "ALL").at(-1)?.path ?? "(no route)";
  console.log(
    JSON.stringify({
      method: c.req.method,
      path: route,
      status: c.res.status,
      duration_ms: Math.round(performance.now() - started),
      organization: c.get("auth")?.org.organizationKey ?? null,
      d1_rows_read: meter.rowsRead,
      d1_rows_written: meter.rowsWritten,
      d1_ms: Number(meter.durationMs.toFixed(2)),
      ...(meter.regions.size > 0 && { served_by_region: [...meter.regions].join(",") }),
    }),
  );
};
