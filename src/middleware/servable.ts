// Public files of a video (media, thumbnail, stream) are served only while the video may be:
// published and not removed (domain/files.ts#isServable). Runs before the edge cache, so a
// cached segment stops being served when its video is removed.
import type { MiddlewareHandler } from "hono";
import { isServable } from "../domain/files";
import type { AppEnv } from "../http/context";
import { notFound } from "../shared/errors";
import { CONTENT_KEY_PATTERN } from "../shared/ids";

export const servableOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const contentKey = c.req.param("contentKey") ?? "";
  // A malformed key is left to the route's validation (400).
  if (
    CONTENT_KEY_PATTERN.test(contentKey) &&
    !(await isServable(c.get("db"), contentKey, Date.now()))
  ) {
    throw notFound(`no published video ${contentKey}`);
  }
  await next();
};
