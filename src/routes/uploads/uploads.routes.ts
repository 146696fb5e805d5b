// Worker-signed upload URLs (from E1): PUT a video part (streamed into the R2 multipart upload)
// or the thumbnail (checked, then stored). The signature is the credential: no other auth.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, messageErrors, SECURITY } from "../../http/openapi";

const numeric = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int();
const signature = z.string().min(1).max(200);
const key = z.string().min(1).max(200);

export const part = createRoute({
  method: "put",
  path: "/v2/uploads/part",
  operationId: "uploadPart",
  tags: ["Uploads"],
  security: SECURITY.public,
  summary: "Upload one video part (signed URL from E1)",
  description:
    "Body: the part's bytes (chunkSize bytes for every part but the last). Answers with the part's ETag header, to be sent back in E2. Content-Length may be left out (Transfer-Encoding: chunked, a streaming client): the body is then streamed to storage and must turn out exactly the part's size, else 400 and nothing is stored. A part sent again replaces the earlier one; GET /v2/content/upload lists what is stored.",
  request: {
    query: z.object({
      key,
      uploadId: z.string().min(1).max(1024),
      partNumber: numeric("partNumber").min(1).max(10_000),
      expires: numeric("expires"),
      signature,
    }),
  },
  responses: {
    200: jsonContent(
      z.object({ partNumber: z.number(), etag: z.string() }),
      "Stored; the ETag header identifies the part",
    ),
    ...messageErrors(400, 403, 404),
  },
});

export const thumbnail = createRoute({
  method: "put",
  path: "/v2/uploads/thumbnail",
  operationId: "uploadThumbnail",
  tags: ["Uploads"],
  security: SECURITY.public,
  summary: "Upload the thumbnail (signed URL from E1)",
  description:
    "Body: a JPEG, 1920x1080, at most 5 MB, with Content-Length (411 without). Served afterwards at the content's thumbnail URL.",
  request: {
    query: z.object({
      key,
      content: numeric("content").min(1),
      expires: numeric("expires"),
      signature,
    }),
  },
  responses: {
    200: jsonContent(z.object({ thumbnailUrl: z.string() }), "Stored"),
    ...messageErrors(400, 403, 404, 411),
  },
});
