// Stored R2 objects (media, thumbnails, feed files) as HTTP answers.
import type { Context } from "hono";
import { ifRangeHolds } from "../shared/etag";
import { parseRange, resolveRange, type ServeOptions, serveObject } from "../storage/objects";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";

/**
 * Bytes made in the worker (a stream's segment) as an HTTP answer: the whole, or one Range
 * (206; 416 when not satisfiable) like a stored object. If-Range is compared with the answer's
 * strong ETag (these answers have no Last-Modified, so a date never holds): a stale one gets
 * the whole body (RFC 9110 §13.1.5).
 */
export function serveBytes(
  c: Context<AppEnv>,
  bytes: Uint8Array,
  headers: Record<string, string>,
): Response {
  const range = parseRange(c.req.header("Range") ?? null);
  if (!range || !ifRangeHolds(c.req.header("If-Range"), headers.ETag ?? null))
    return new Response(bytes, { status: 200, headers });
  const part = resolveRange(range, bytes.length);
  if (!part)
    throw new ApiError(416, `Range: not satisfiable; the file has ${bytes.length} bytes`, {
      "Content-Range": `bytes */${bytes.length}`,
    });
  return new Response(bytes.subarray(part.offset, part.offset + part.length), {
    status: 206,
    headers: {
      ...headers,
      "Content-Range": `bytes ${part.offset}-${part.offset + part.length - 1}/${bytes.length}`,
    },
  });
}

/** An R2 object as an HTTP answer; null when it does not exist. */
export async function serveStored(
  c: Context<AppEnv>,
  key: string,
  options: ServeOptions,
): Promise<Response | null> {
  const served = await serveObject(c.env.MEDIA, key, c.req.raw, options);
  if (served.kind === "missing") return null;
  if (served.kind === "unsatisfiable") {
    throw new ApiError(416, `Range: not satisfiable; the object has ${served.size} bytes`, {
      "Content-Range": `bytes */${served.size}`,
    });
  }
  return served.response;
}
