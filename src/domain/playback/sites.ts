// Playback rights, allowed sites (docs/api.md "Playback rights"): an organization may list the
// sites allowed to embed its player; its media then refuse a request whose Referer or Origin
// names another site, and (referrerRequired) one that names none.
import type { Origins } from "../deps";

export type SiteDecision = { allowed: true } | { allowed: false; message: string };

function urlOf(url: string | null | undefined): URL | null {
  if (!url || url === "null") return null;
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The page a media request comes from: its Referer, else its Origin (null: neither names one). */
export function requestPage(from: {
  referer: string | null | undefined;
  origin: string | null | undefined;
}): URL | null {
  return urlOf(from.referer) ?? urlOf(from.origin);
}

export function siteMatches(site: string, host: string): boolean {
  return site.startsWith("*.") ? host.endsWith(site.slice(1)) : host === site;
}

/**
 * May a media request from this page (its Referer, else its Origin) be served? The service's
 * own pages (the embed page) always may; no list means every site; no Referer nor Origin
 * (an app, a link opened directly) may unless the organization requires one.
 */
export function siteDecision(
  rights: { allowedSites: string[]; referrerRequired: boolean },
  from: { referer: string | null | undefined; origin: string | null | undefined },
  origins: Origins,
): SiteDecision {
  const page = requestPage(from);
  if (page === null) {
    return rights.referrerRequired
      ? {
          allowed: false,
          message:
            "this video is played only on its publisher's sites: the request carries no Referer or Origin",
        }
      : { allowed: true };
  }
  if (rights.allowedSites.length === 0) return { allowed: true };
  const own = [urlOf(origins.baseUrl)?.origin, urlOf(origins.staticUrl)?.origin];
  const host = page.hostname.toLowerCase();
  if (own.includes(page.origin) || rights.allowedSites.some((site) => siteMatches(site, host))) {
    return { allowed: true };
  }
  return {
    allowed: false,
    message: `this video is played only on its publisher's sites: ${host} is not one of them`,
  };
}

/** The embed page's CSP frame-ancestors: the listed sites, or any site without a list. */
export function frameAncestors(allowedSites: string[]): string {
  return allowedSites.length === 0 ? "*" : ["'self'", ...allowedSites].join(" ");
}
