// Player traffic for media and thumbnails (public, not rate limited; cached by ETag).
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../http/context";
import { notFound } from "../http/errors";
import { validationHook } from "../http/validation";
import { DEFAULT_THUMBNAIL_JPEG } from "../media/default-thumbnail";
import { CONTENT_KEY_PATTERN, thumbnailKey } from "../storage/layout";
import { serveObject } from "../storage/objects";

export const fileRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });

const PUBLIC_CORS = { "Access-Control-Allow-Origin": "*" };
const contentKeyParam = z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits");

fileRoutes.openapi(
  createRoute({
    method: "get",
    path: "/media/{contentKey}/{file}",
    tags: ["Files"],
    summary: "The video file (the record's url)",
    description: "Supports Range (206), HEAD, ETag and If-None-Match (304).",
    request: { params: z.object({ contentKey: contentKeyParam, file: z.string().regex(/^[A-Za-z0-9]{1,8}\.(mp4|mov)$/) }) },
    responses: {
      200: { description: "The media", content: { "video/mp4": { schema: z.string().openapi({ format: "binary" }) } } },
      206: { description: "Partial content" },
      304: { description: "Not modified" },
      404: { description: "No such media" },
    },
  }),
  async (c) => {
    const { contentKey, file } = c.req.valid("param");
    const response = await serveObject(c.env.MEDIA, `${contentKey}/${file}`, c.req.raw, {
      // Media objects never change under the same key (a re-upload needs a new content).
      cacheControl: "public, max-age=86400",
      headers: PUBLIC_CORS,
    });
    if (!response) throw notFound(`no media at /media/${contentKey}/${file}`);
    return response as never;
  },
);

let defaultThumbnailEtag: Promise<string> | undefined;
function defaultEtag(): Promise<string> {
  defaultThumbnailEtag ??= crypto.subtle
    .digest("SHA-256", DEFAULT_THUMBNAIL_JPEG)
    .then((d) => `"default-${[...new Uint8Array(d).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`);
  return defaultThumbnailEtag;
}

fileRoutes.openapi(
  createRoute({
    method: "get",
    path: "/thumbnails/{file}",
    tags: ["Files"],
    summary: "A content's thumbnail (the service thumbnail URL)",
    description: "The uploaded thumbnail, or a default 1920x1080 image until one is uploaded.",
    request: { params: z.object({ file: z.string().regex(/^[A-Za-z0-9]{1,8}\.jpg$/, "must be <contentKey>.jpg") }) },
    responses: {
      200: { description: "JPEG", content: { "image/jpeg": { schema: z.string().openapi({ format: "binary" }) } } },
      304: { description: "Not modified" },
    },
  }),
  async (c) => {
    const contentKey = c.req.valid("param").file.replace(/\.jpg$/, "");
    // Short max-age: the default image is replaced when the publisher uploads a thumbnail.
    const options = { cacheControl: "public, max-age=300", contentType: "image/jpeg", headers: PUBLIC_CORS };
    const stored = await serveObject(c.env.MEDIA, thumbnailKey(contentKey), c.req.raw, options);
    if (stored) return stored as never;
    const etag = await defaultEtag();
    const headers = { ...PUBLIC_CORS, "Content-Type": "image/jpeg", "Cache-Control": options.cacheControl, ETag: etag };
    if (c.req.header("If-None-Match") === etag) return new Response(null, { status: 304, headers }) as never;
    return new Response(c.req.method === "HEAD" ? null : DEFAULT_THUMBNAIL_JPEG, { status: 200, headers }) as never;
  },
);
