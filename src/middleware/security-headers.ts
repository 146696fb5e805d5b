// Headers every answer carries: no MIME sniffing (a JSON error must never render as HTML), and
// no referrer leaking signed URLs or sync codes from pages that link to the API.
import type { MiddlewareHandler } from "hono";

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  c.res.headers.set("Referrer-Policy", "no-referrer");
};
