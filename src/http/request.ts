// What a request says about its sender: country and address (set by Cloudflare's edge).

/**
 * The requester's country as alpha-2: the CF-IPCountry header (Cloudflare sets it and overwrites
 * any value a client sends), else request.cf.country. The header comes first so local
 * development, where request.cf is a fixed placeholder, can choose a country.
 */
export function requestCountry(request: Request): string | null {
  const cf = (request as Request & { cf?: { country?: unknown } }).cf;
  const fromCf = typeof cf?.country === "string" ? cf.country : null;
  const country = request.headers.get("CF-IPCountry") ?? fromCf;
  return country && /^[A-Za-z]{2}$/.test(country) ? country.toUpperCase() : null;
}

/** The client's IP (CF-Connecting-IP, set by Cloudflare); null when absent (local tools). */
export function clientIp(request: Request): string | null {
  const ip = request.headers.get("CF-Connecting-IP");
  return ip && ip.length <= 64 ? ip : null;
}

/** D1's read-your-writes bookmark: on every answer that read D1, accepted back on the next request (db/sessions.ts). */
export const BOOKMARK_HEADER = "X-D1-Bookmark";
