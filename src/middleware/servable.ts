// Public files of a video (media, thumbnail, stream) are served only while the video may be:
// published and not removed (domain/files.ts#isServable). Runs before the edge cache, so a
// cached segment stops being served when its video is removed, and (streams) when its key now
// names another content row.
import type { MiddlewareHandler } from "hono";
import { isServable } from "../domain/files";
import { checkStreamVersion, HLS_VERSION_PATTERN } from "../domain/streaming/served";
import type { AppEnv } from "../http/context";
import { notFound } from "../shared/errors";
import { CONTENT_KEY_PATTERN } from "../shared/ids";
import { isolateNow } from "../shared/isolate-memory";
import { parseStreamFile, streamPath } from "../shared/stream-files";
import { spendPublicRead } from "./public-reads";

export const servableOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const contentKey = c.req.param("contentKey") ?? "";
  // A malformed key is left to the route's validation (400).
  if (
    CONTENT_KEY_PATTERN.test(contentKey) &&
    !(await isServable(c.get("db"), contentKey, isolateNow()))
  ) {
    // A key that serves nothing cost a lookup: it counts against the client's public reads.
    spendPublicRead(c);
    throw notFound(`no published video ${contentKey}`);
  }
  await next();
};

/**
 * Streams: the URL's version must name the content served under the key now, checked before
 * the edge cache (whose entries are keyed by URL): a key freed by E5 and created again, by any
 * organization, must not serve the deleted video's cached playlists and segments. Checked once:
 * the handler reads the stream it found (`servedStream`).
 */
export const servableStreamOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const contentKey = c.req.param("contentKey") ?? "";
  const version = c.req.param("version") ?? "";
  // A malformed key or version is left to the route's validation (400).
  if (!CONTENT_KEY_PATTERN.test(contentKey) || !HLS_VERSION_PATTERN.test(version)) return next();
  const file = parseStreamFile(c.req.param("file") ?? "");
  const check = await checkStreamVersion(c.get("db"), contentKey, version, file, isolateNow());
  if (check && "movedTo" in check && file !== null)
    return c.redirect(
      `${streamPath(contentKey, check.movedTo, file)}${new URL(c.req.url).search}`,
      301,
    );
  if (!check || !("served" in check)) {
    spendPublicRead(c);
    throw notFound(`no stream version ${version} of ${contentKey}`);
  }
  c.set("servedStream", check.served);
  await next();
};
