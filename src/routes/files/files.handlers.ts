import type { AppRouteHandler } from "../../http/router";
import { DEFAULT_THUMBNAIL_JPEG } from "../../media/default-thumbnail";
import { etagMatches } from "../../shared/etag";
import { notFound } from "../../shared/errors";
import { thumbnailKey } from "../../storage/layout";
import { serveStored } from "../../http/serve-object";
import type * as routes from "./files.routes";

const PUBLIC_CORS = { "Access-Control-Allow-Origin": "*" };

export const media: AppRouteHandler<typeof routes.media> = async (c) => {
  const { contentKey, file } = c.req.valid("param");
  // Media objects never change under the same key (a re-upload needs a new content).
  const response = await serveStored(c, `${contentKey}/${file}`, { cacheControl: "public, max-age=86400", headers: PUBLIC_CORS });
  if (!response) throw notFound(`no media at /media/${contentKey}/${file}`);
  return response;
};

let defaultThumbnailEtag: Promise<string> | undefined;
function defaultEtag(): Promise<string> {
  defaultThumbnailEtag ??= crypto.subtle
    .digest("SHA-256", DEFAULT_THUMBNAIL_JPEG)
    .then((d) => `"default-${[...new Uint8Array(d).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`);
  return defaultThumbnailEtag;
}

export const thumbnail: AppRouteHandler<typeof routes.thumbnail> = async (c) => {
  const contentKey = c.req.valid("param").file.replace(/\.jpg$/, "");
  // Short max-age: the default image is replaced when the publisher uploads a thumbnail.
  const options = { cacheControl: "public, max-age=300", contentType: "image/jpeg", headers: PUBLIC_CORS };
  const stored = await serveStored(c, thumbnailKey(contentKey), options);
  if (stored) return stored;
  const etag = await defaultEtag();
  const headers = { ...PUBLIC_CORS, "Content-Type": "image/jpeg", "Cache-Control": options.cacheControl, ETag: etag };
  if (etagMatches(c.req.header("If-None-Match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(c.req.method === "HEAD" ? null : DEFAULT_THUMBNAIL_JPEG, { status: 200, headers });
};
