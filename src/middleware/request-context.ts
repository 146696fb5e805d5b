// Per-request setup and bookkeeping: the metered database, configuration and public origins
// on the way in; Server-Timing (D1 rows read and time) and one JSON log line on the way out.
import type { MiddlewareHandler } from "hono";
import { loadConfig } from "../config";
import { createDb } from "../db/client";
import { D1Meter, meterD1 } from "../db/metered-d1";
import type { AppEnv } from "../http/context";

export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  const meter = new D1Meter();
  c.set("meter", meter);
  c.set("db", createDb(meterD1(c.env.DB, meter)));
  c.set("errorStyle", "ko");
  const config = loadConfig(c.env);
  c.set("config", config);
  const baseUrl = config.publicBaseUrl ?? new URL(c.req.url).origin;
  c.set("baseUrl", baseUrl);
  c.set("staticUrl", config.staticUrl ?? baseUrl);

  await next();

  const elapsed = performance.now() - started;
  c.res.headers.append("Server-Timing", meter.serverTiming());
  c.res.headers.append("Server-Timing", `total;dur=${elapsed.toFixed(2)}`);
  // Never log query strings or headers: they may carry credentials.
  console.log(
    JSON.stringify({
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      duration_ms: Math.round(elapsed),
      organization: c.get("auth")?.org.organizationKey ?? null,
      d1_rows_read: meter.rowsRead,
      d1_rows_written: meter.rowsWritten,
      d1_ms: Number(meter.durationMs.toFixed(2)),
    }),
  );
};
