// Worker-signed upload URLs: PUT a video part (streamed into the R2 multipart upload) or the
// thumbnail (checked, then stored). The signature is the credential: no other auth here.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { findContentByKeyAnyOrg, markThumbnailUploaded } from "../db/content";
import { expectedPartSize } from "../domain/content";
import { ApiError, badRequest, messageErrors } from "../http/errors";
import type { AppEnv } from "../http/context";
import { validationHook } from "../http/validation";
import { checkThumbnail, THUMBNAIL_MAX_BYTES } from "../media/jpeg";
import { messageError } from "../schemas/content";
import { serviceThumbnailUrl, thumbnailKey } from "../storage/layout";
import { verifyWorkerSignature, type UploadTarget } from "../storage/signed-urls";

export const uploadRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, strict: false });
uploadRoutes.use("/v2/uploads/*", messageErrors);

const numeric = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int();
const partQuery = z.object({
  key: z.string().min(1),
  uploadId: z.string().min(1),
  partNumber: numeric("partNumber").min(1).max(10_000),
  expires: numeric("expires"),
  signature: z.string().min(1),
});
const thumbnailQuery = z.object({ key: z.string().min(1), expires: numeric("expires"), signature: z.string().min(1) });

const errorResponses = {
  400: { description: "Bad body (size or format)", content: { "application/json": { schema: messageError } } },
  403: { description: "Wrong or expired signature", content: { "application/json": { schema: messageError } } },
  404: { description: "The upload no longer exists", content: { "application/json": { schema: messageError } } },
  411: { description: "Content-Length is required", content: { "application/json": { schema: messageError } } },
};

async function verify(c: Context<AppEnv>, target: UploadTarget, signature: string): Promise<void> {
  const check = await verifyWorkerSignature(
    c.get("config").signingSecret,
    target,
    signature,
    Math.floor(Date.now() / 1000),
  );
  if (!check.ok) throw new ApiError(403, `upload URL rejected: ${check.reason}`);
}

function contentLength(c: Context<AppEnv>): number {
  const header = c.req.header("Content-Length");
  if (header === undefined || !/^\d+$/.test(header)) throw new ApiError(411, "Content-Length header is required");
  return Number(header);
}

uploadRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v2/uploads/part",
    tags: ["Uploads"],
    summary: "Upload one video part (signed URL from E1)",
    description:
      "Body: the part's bytes (chunkSize bytes for every part but the last). Answers with the part's ETag header, to be sent back in E2.",
    request: { query: partQuery },
    responses: {
      200: {
        description: "Stored; the ETag header identifies the part",
        content: { "application/json": { schema: z.object({ partNumber: z.number(), etag: z.string() }) } },
      },
      ...errorResponses,
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    await verify(c, { method: "PUT", key: q.key, uploadId: q.uploadId, partNumber: q.partNumber, expires: q.expires }, q.signature);
    const content = await findContentByKeyAnyOrg(c.get("db"), q.key.split("/")[0] ?? "");
    if (!content || content.mediaKey !== q.key || content.uploadId !== q.uploadId) {
      throw new ApiError(404, "upload not found: it was completed, rejected or deleted");
    }
    const length = contentLength(c);
    const expected = expectedPartSize(content.contentSize, content.chunkSize, q.partNumber);
    if (length > content.chunkSize) {
      throw badRequest(`part body is ${length} bytes, larger than chunkSize ${content.chunkSize}`);
    }
    if (length !== expected) {
      throw badRequest(`part ${q.partNumber} must be exactly ${expected} bytes, got ${length}`);
    }
    const body = c.req.raw.body;
    if (!body) throw badRequest("part body is empty");
    const part = await c.env.MEDIA.resumeMultipartUpload(q.key, q.uploadId).uploadPart(q.partNumber, body);
    c.header("ETag", `"${part.etag}"`);
    return c.json({ partNumber: part.partNumber, etag: part.etag }, 200);
  },
);

uploadRoutes.openapi(
  createRoute({
    method: "put",
    path: "/v2/uploads/thumbnail",
    tags: ["Uploads"],
    summary: "Upload the thumbnail (signed URL from E1)",
    description: "Body: a JPEG, 1920x1080, at most 5 MB. Served afterwards at the content's thumbnail URL.",
    request: { query: thumbnailQuery },
    responses: {
      200: {
        description: "Stored",
        content: { "application/json": { schema: z.object({ thumbnailUrl: z.string() }) } },
      },
      ...errorResponses,
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    await verify(c, { method: "PUT", key: q.key, uploadId: "", partNumber: 0, expires: q.expires }, q.signature);
    const contentKey = q.key.split("/")[0] ?? "";
    const content = await findContentByKeyAnyOrg(c.get("db"), contentKey);
    if (!content || thumbnailKey(contentKey) !== q.key) throw new ApiError(404, "content not found: it was deleted");
    if (contentLength(c) > THUMBNAIL_MAX_BYTES) {
      throw badRequest(`thumbnail is larger than 5 MB (${contentLength(c)} bytes)`);
    }
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const problem = checkThumbnail(bytes);
    if (problem) throw badRequest(problem);
    const stored = await c.env.MEDIA.put(q.key, bytes, { httpMetadata: { contentType: "image/jpeg" } });
    await markThumbnailUploaded(c.get("db"), content.id, new Date().toISOString());
    c.header("ETag", stored.httpEtag);
    return c.json({ thumbnailUrl: content.thumbnailUrl ?? serviceThumbnailUrl(c.get("staticUrl"), contentKey) }, 200);
  },
);
