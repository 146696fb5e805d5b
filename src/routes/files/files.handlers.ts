import {
  defaultThumbnail,
  frameObjectKey,
  isServable,
  mediaObjectKey,
  servableContent,
  thumbnailObjectKey,
} from "../../domain/files";
import type { AppRouteHandler } from "../../http/router";
import { serveStored } from "../../http/serve-object";
import { spendPublicRead } from "../../middleware/public-reads";
import { notFound } from "../../shared/errors";
import { etagMatches } from "../../shared/etag";
import { isolateNow } from "../../shared/isolate-memory";
import type * as routes from "./files.routes";

const PUBLIC_CORS = { "Access-Control-Allow-Origin": "*" };
const IMMUTABLE = "public, max-age=31536000, immutable";

export const media: AppRouteHandler<typeof routes.media> = async (c) => {
  const { contentKey, file } = c.req.valid("param");
  // Media of a served video is player traffic; a key that serves nothing counts against the
  // client's public reads (middleware/public-reads.ts).
  if (!(await isServable(c.get("db"), contentKey, isolateNow()))) {
    spendPublicRead(c);
    throw notFound(`no media at /media/${contentKey}/${file}`);
  }
  // The URL names the key, not the file: a key deleted and created again serves another file
  // here, and a browser holding the old one fresh would mix its ranges with the new file's. As
  // long as the playlists' life: after it, a browser revalidates (If-Range / ETag).
  const response = await serveStored(c, mediaObjectKey(contentKey, file), {
    cacheControl: "public, max-age=300",
    headers: PUBLIC_CORS,
  });
  if (!response) throw notFound(`no media at /media/${contentKey}/${file}`);
  return response;
};

export const thumbnail: AppRouteHandler<typeof routes.thumbnail> = async (c) => {
  const contentKey = c.req.valid("param").file.replace(/\.jpg$/, "");
  const content = await servableContent(c.get("db"), contentKey, isolateNow());
  if (!content) {
    spendPublicRead(c);
    throw notFound(`no thumbnail at /thumbnails/${contentKey}.jpg`);
  }
  // The URL of the stored thumbnail's version names it for good (a replacement, or a content
  // created again under the key, gets another); any other URL may change at any time (the
  // default image until one is stored; an older version shows the current one).
  const v = c.req.valid("query").v;
  const versioned = v !== undefined && Number(v) === content.thumbnailVersion;
  const options = {
    cacheControl: versioned ? IMMUTABLE : "public, max-age=60",
    contentType: "image/jpeg",
    headers: PUBLIC_CORS,
  };
  // The publisher's thumbnail, else the one made from the video, else the placeholder.
  const stored =
    (await serveStored(c, thumbnailObjectKey(contentKey), options)) ??
    (await serveStored(c, frameObjectKey(contentKey), options));
  if (stored) return stored;
  const fallback = await defaultThumbnail();
  const headers = {
    ...PUBLIC_CORS,
    "Content-Type": "image/jpeg",
    "Cache-Control": "public, max-age=60",
    ETag: fallback.etag,
  };
  if (etagMatches(c.req.header("If-None-Match"), fallback.etag))
    return new Response(null, { status: 304, headers });
  return new Response(c.req.method === "HEAD" ? null : fallback.bytes, { status: 200, headers });
};
