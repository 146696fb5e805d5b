// Headers every answer carries: no MIME sniffing (a JSON error must never render as HTML), and
// no referrer leaking signed URLs or sync codes from pages that link to the API.
import type { MiddlewareHandler } from "hono";

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("X-Content-Type-Options", "nosniff");
  // The embed page sets its own (its player's media requests name the service's origin).
  if (!c.res.headers.has("Referrer-Policy")) c.res.headers.set("Referrer-Policy", "no-referrer");
};
