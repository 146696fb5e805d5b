// Playback rights at the media (docs/api.md "Playback rights"): allowed sites (Referer/Origin)
// and syndication windows with their geographies. Mounted before the edge cache, so a cached
// segment is never served to a viewer, a site or at a time the rights exclude; a refusal is 403
// (the video exists). A key that serves nothing is left to the servable gates (404).
import type { MiddlewareHandler } from "hono";
import { servableContent } from "../domain/files";
import { siteDecision } from "../domain/playback/sites";
import { playbackWindowDecision } from "../domain/playback/windows";
import type { AppEnv } from "../http/context";
import { requestCountry } from "../http/request";
import { forbidden } from "../shared/errors";
import { CONTENT_KEY_PATTERN } from "../shared/ids";
import { isolateNow } from "../shared/isolate-memory";

export const playbackRights: MiddlewareHandler<AppEnv> = async (c, next) => {
  const contentKey = c.req.param("contentKey") ?? "";
  if (!CONTENT_KEY_PATTERN.test(contentKey)) return next();
  const nowMs = isolateNow();
  const db = c.get("db");
  const content = await servableContent(db, contentKey, nowMs);
  if (!content) return next();
  const site = siteDecision(
    content,
    { referer: c.req.header("Referer"), origin: c.req.header("Origin") },
    c.get("origins"),
  );
  if (!site.allowed) throw forbidden(site.message);
  if (content.enforcePlaybackWindows) {
    const country = requestCountry(c.req.raw);
    const windows = await playbackWindowDecision(db, content.id, country, nowMs);
    if (!windows.allowed) throw forbidden(windows.message);
  }
  await next();
  const restricted =
    content.enforcePlaybackWindows || content.allowedSites.length > 0 || content.referrerRequired;
  if (!restricted || c.res.status >= 400) return;
  // A shared cache between the viewer and the service must not give this answer to another
  // viewer (country, site) or keep it past a window's close.
  c.res = new Response(c.res.body, c.res);
  c.res.headers.set("Cache-Control", "private, max-age=60");
};
