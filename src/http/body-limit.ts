// Request body size limits (hono/body-limit), answering 413 in the route's error shape.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { errorResponse } from "./errors";

export function limitBody(maxSize: number) {
  return bodyLimit({
    maxSize,
    onError: (c) => errorResponse(c, 413, `the body is over ${maxSize} bytes`),
  });
}

/** JSON bodies of the API: 1 MB is far above any valid request (a content object is a few KB). */
export const JSON_BODY_MAX_BYTES = 1024 * 1024;

/**
 * The body limit of every route but those that carry their own: upload parts (chunkSize bytes,
 * checked against the upload), event batches (EVENTS_BODY_MAX_BYTES), live segments
 * (LIVE_SEGMENT_MAX_BYTES) and caption files (CAPTION_FILE_MAX_BYTES).
 */
export const defaultBodyLimit: MiddlewareHandler = async (c, next) => {
  // No route reads the body of a GET or HEAD, and hono's limit of a chunked body rebuilds the
  // request around it, which the runtime refuses for those methods (a 500 before this check).
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  const path = new URL(c.req.url).pathname;
  if (
    path.startsWith("/v2/uploads/") ||
    path.startsWith("/v2/events") ||
    path.startsWith("/live-ingest/") ||
    (c.req.method === "PUT" && path.startsWith("/v2/content/captions/"))
  )
    return next();
  return jsonLimit(c, next);
};
const jsonLimit = limitBody(JSON_BODY_MAX_BYTES);
