import type { Context } from "hono";
import { checkSignature, storePart, storeThumbnail } from "../../domain/content/uploads";
import type { AppEnv } from "../../http/context";
import { requestDeps } from "../../http/deps";
import { ApiError } from "../../http/errors";
import type { AppRouteHandler } from "../../http/router";
import { invalid } from "../../shared/errors";
import type * as routes from "./uploads.routes";

function contentLength(c: Context<AppEnv>): number {
  const header = c.req.header("Content-Length");
  if (header === undefined || !/^\d+$/.test(header))
    throw new ApiError(411, "Content-Length header is required");
  return Number(header);
}

export const part: AppRouteHandler<typeof routes.part> = async (c) => {
  const q = c.req.valid("query");
  const deps = requestDeps(c);
  await checkSignature(
    deps,
    {
      method: "PUT",
      key: q.key,
      uploadId: q.uploadId,
      partNumber: q.partNumber,
      expires: q.expires,
    },
    q.signature,
  );
  // Without Content-Length (Transfer-Encoding: chunked) the body is streamed and must turn out
  // exactly the part's size: the domain checks it while it streams.
  const header = c.req.header("Content-Length");
  const length = header === undefined ? null : contentLength(c);
  const body = c.req.raw.body;
  if (!body) throw invalid("part body is empty");
  const stored = await storePart(deps, q.key, q.uploadId, q.partNumber, length, body);
  c.header("ETag", `"${stored.etag}"`);
  return c.json(stored, 200);
};

export const thumbnail: AppRouteHandler<typeof routes.thumbnail> = async (c) => {
  const q = c.req.valid("query");
  const deps = requestDeps(c);
  await checkSignature(
    deps,
    {
      method: "PUT",
      key: q.key,
      uploadId: `content:${q.content}`,
      partNumber: 0,
      expires: q.expires,
    },
    q.signature,
  );
  const stored = await storeThumbnail(deps, q.key, q.content, contentLength(c), () =>
    c.req.arrayBuffer(),
  );
  c.header("ETag", stored.etag);
  return c.json({ thumbnailUrl: stored.thumbnailUrl }, 200);
};
