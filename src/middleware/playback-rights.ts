// Playback rights at the media (docs/api.md "Playback rights"): allowed sites (Referer/Origin)
// and syndication windows with their geographies. Mounted before the edge cache, so a cached
// segment is never served to a viewer, a site or at a time the rights exclude; a refusal is 403
// (the video exists). A key that serves nothing is left to the servable gates (404).
import type { Context, MiddlewareHandler } from "hono";
import { servableContent } from "../domain/files";
import { siteDecision } from "../domain/playback/sites";
import { playbackWindowDecision } from "../domain/playback/windows";
import type { AppEnv } from "../http/context";
import { requestCountry } from "../http/request";
import { refused } from "../shared/errors";
import { CONTENT_KEY_PATTERN } from "../shared/ids";
import { isolateNow } from "../shared/isolate-memory";

/**
 * The video's playback rights checked for this request (its Referer or Origin, its country,
 * now): throws the 403 refusal, else whether the video is restricted at all (its answers then
 * depend on who asks). A key that serves nothing is left to the servable gates. `framed`: the
 * embed page, which a request without Referer or Origin gets whatever the organization requires
 * (its frame-ancestors keep other sites from framing it; its media name the service).
 */
export async function checkRequestRights(
  c: Context<AppEnv>,
  { framed = false } = {},
): Promise<{ restricted: boolean }> {
  const contentKey = c.req.param("contentKey") ?? "";
  if (!CONTENT_KEY_PATTERN.test(contentKey)) return { restricted: false };
  const nowMs = isolateNow();
  const db = c.get("db");
  const content = await servableContent(db, contentKey, nowMs);
  if (!content) return { restricted: false };
  const site = siteDecision(
    framed ? { ...content, referrerRequired: false } : content,
    { referer: c.req.header("Referer"), origin: c.req.header("Origin") },
    c.get("origins"),
  );
  if (!site.allowed) throw refused("site", site.message);
  if (content.enforcePlaybackWindows) {
    const country = requestCountry(c.req.raw);
    const windows = await playbackWindowDecision(db, content.id, country, nowMs);
    if (!windows.allowed) throw refused(windows.reason, windows.message);
  }
  return {
    restricted:
      content.enforcePlaybackWindows || content.allowedSites.length > 0 || content.referrerRequired,
  };
}

/** A shared cache must not give a restricted answer to another viewer, nor keep it past a window's close. */
export const RESTRICTED_CACHE_CONTROL = "private, max-age=60";

export const playbackRights: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { restricted } = await checkRequestRights(c);
  await next();
  if (!restricted || c.res.status >= 400) return;
  // A shared cache between the viewer and the service must not give this answer to another
  // viewer (country, site) or keep it past a window's close.
  c.res = new Response(c.res.body, c.res);
  c.res.headers.set("Cache-Control", RESTRICTED_CACHE_CONTROL);
};
