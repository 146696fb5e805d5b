// What a request says about its sender: country and address (set by Cloudflare's edge).

/**
 * The requester's country as alpha-2: request.cf.country, which the runtime sets from the
 * client's address. The CF-IPCountry header only where the runtime gives no `cf` at all (tools
 * and tests calling the worker's fetch handler directly): where it does, a client's own header
 * must not choose its country (windows, geographies, a token's country claim). Local
 * development has a placeholder `cf` (miniflare's, country US); a local tool picks a country
 * with miniflare's MF-CF-Blob header (`{"country":"DE"}`), as tests do.
 */
export function requestCountry(request: Request): string | null {
  const cf = (request as Request & { cf?: { country?: unknown } }).cf;
  const country =
    cf === undefined || cf === null
      ? request.headers.get("CF-IPCountry")
      : typeof cf.country === "string"
        ? cf.country
        : null;
  return country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null;
}

/** The client's IP (CF-Connecting-IP, set by Cloudflare); null when absent (local tools). */
export function clientIp(request: Request): string | null {
  const ip = request.headers.get("CF-Connecting-IP");
  return ip && ip.length <= 64 ? ip : null;
}

/** D1's read-your-writes bookmark: on every answer that read D1, accepted back on the next request (db/sessions.ts). */
export const BOOKMARK_HEADER = "X-D1-Bookmark";
