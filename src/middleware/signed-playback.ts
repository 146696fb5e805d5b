// Signed playback (docs/api.md "Signed playback"): a video that requires it is served — media,
// playlists, init and media segments, DASH, subtitles, the embed — only with `?token=`, a JWT
// signed with one of its organization's playback keys (domain/playback). Runs before the edge
// cache, so a cached segment is checked like any other; the cache keys ignore `token`
// (middleware/edge-cache.ts), so one cached copy serves every viewer, and the token is written
// into a playlist's or manifest's URLs after the cache: a cached body never holds a token.
import type { Context, MiddlewareHandler } from "hono";
import { isLadderPlaylist, LIVE_PLAYLIST, RECORDING_PLAYLIST } from "../domain/live/files";
import { checkPlayback } from "../domain/playback/keys";
import { requestPage } from "../domain/playback/sites";
import type { AppEnv } from "../http/context";
import { requestCountry } from "../http/request";
import { CONTENT_KEY_PATTERN } from "../shared/ids";
import { isolateNow } from "../shared/isolate-memory";
import { parseStreamFile, type StreamBody, streamBody } from "../shared/stream-files";

function referrerHost(c: Context<AppEnv>): string | null {
  const page = requestPage({ referer: c.req.header("Referer"), origin: c.req.header("Origin") });
  return page ? page.host.toLowerCase() : null;
}

/** The URIs an HLS playlist lists: its URI lines and URI="…" attributes (two passes, no split). */
export function withTokenInPlaylist(body: string, token: string): string {
  // The token is base64url and dots (checked before): nothing in it needs escaping.
  const q = `?token=${token}`;
  return body
    .replace(/^([^#\s?][^\n?]*)$/gm, (line) => `${line}${q}`)
    .replace(/URI="([^"?]+)"/g, (_, uri: string) => `URI="${uri}${q}"`);
}

/**
 * The URLs a DASH manifest names: its SegmentTemplate's initialization and media, and its text
 * AdaptationSets' BaseURL (a subtitle file).
 */
export function withTokenInManifest(body: string, token: string): string {
  return body
    .replace(
      /\b(initialization|media)="([^"?]+)"/g,
      (_, name: string, uri: string) => `${name}="${uri}?token=${token}"`,
    )
    .replace(
      /<BaseURL>([^<?]+)<\/BaseURL>/g,
      (_, uri: string) => `<BaseURL>${uri}?token=${token}</BaseURL>`,
    );
}

/**
 * What the requested file's body is: a stream's file as its name says (shared/stream-files.ts);
 * a live stream's playlists (domain/live/files.ts: source, recording, master, rungs) are HLS
 * playlists too.
 */
function requestedBody(name: string): StreamBody | null {
  const file = parseStreamFile(name);
  if (file) return streamBody(file);
  return name === LIVE_PLAYLIST || name === RECORDING_PLAYLIST || isLadderPlaylist(name)
    ? "playlist"
    : null;
}

const REWRITES: Partial<Record<StreamBody, (body: string, token: string) => string>> = {
  playlist: withTokenInPlaylist,
  manifest: withTokenInManifest,
};

/**
 * The request's playback token checked for the video its path names: its claims (null when the
 * video needs none, or the key is malformed: left to the route's validation); throws the 403
 * refusal when it needs one and the token is absent or not good.
 */
export async function checkRequestToken(c: Context<AppEnv>) {
  const contentKey = c.req.param("contentKey") ?? "";
  if (!CONTENT_KEY_PATTERN.test(contentKey)) return null;
  return checkPlayback(c.get("db"), c.get("config").signingSecret, c.req.query("token"), {
    contentKey,
    nowMs: isolateNow(),
    country: requestCountry(c.req.raw),
    referrerHost: referrerHost(c),
    serviceHost: new URL(c.get("origins").baseUrl).host.toLowerCase(),
  });
}

export const signedPlayback: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = c.req.query("token");
  const claims = await checkRequestToken(c);
  await next();
  if (!claims || !token || c.res.status !== 200) return;
  const holds = requestedBody(c.req.param("file") ?? "");
  const rewrite = holds && REWRITES[holds];
  if (!rewrite) return;
  const headers = new Headers(c.res.headers);
  headers.delete("Content-Length");
  // Each viewer's copy names its token: shared caches must not keep it for another.
  headers.set(
    "Cache-Control",
    (headers.get("Cache-Control") ?? "max-age=300").replace("public", "private"),
  );
  // (decoded by hand: workerd warns when .text() reads a body whose type is not text/*)
  const body = rewrite(new TextDecoder().decode(await c.res.arrayBuffer()), token);
  c.res = undefined;
  c.res = new Response(body, { status: 200, headers });
};
