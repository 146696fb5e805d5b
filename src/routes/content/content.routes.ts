// E1–E5 content management (spec 4.1): write credentials; errors as {message}.
import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody, jsonContent, messageErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { libraryPage, libraryQuery } from "../../schemas/console";
import {
  completeUploadBody,
  contentKeyBody,
  contentKeyQuery,
  contentObject,
  createContentBody,
  createContentResponse,
  updateContentBody,
  uploadStateResponse,
} from "../../schemas/content";

const base = { tags: ["Content"], security: SECURITY.write, middleware: credentials("write") };

export const create = createRoute({
  ...base,
  method: "post",
  path: "/v2/content",
  operationId: "createContent",
  summary: "E1. Create content and start the upload",
  description:
    "Records the metadata, opens a multipart upload and returns one signed URL per part (PUT each part of chunkSize bytes, keep the ETag header) plus a thumbnailUploadUrl (PUT a 1920x1080 JPEG).",
  request: { body: jsonBody(createContentBody) },
  responses: {
    200: jsonContent(createContentResponse, "Created"),
    ...messageErrors(400, 401, 413, 429),
  },
});

export const complete = createRoute({
  ...base,
  method: "post",
  path: "/v2/content/complete",
  operationId: "completeUpload",
  summary: "E2. Complete the upload",
  description:
    "Completes the multipart upload, checks the media (MP4/MOV, H.264 video or HEVC/VP9/AV1/ProRes where the deployment has a transcoder, AAC audio, at most 1920x1080; every sample it declares lies inside the file, see docs/api.md#what-e2-refuses), packages its HLS stream and publishes the content (H.264: status available, playable at once; another codec: status processing, published with the webhook video.ready once its transcoded H.264 variant is ready). A rejected upload answers 400 with the reason; its media is deleted.",
  request: { body: jsonBody(completeUploadBody) },
  responses: {
    200: jsonContent(contentObject, "Published"),
    ...messageErrors(400, 401, 404, 413, 429),
  },
});

export const thumbnailUrl = createRoute({
  ...base,
  method: "post",
  path: "/v2/content/thumbnail",
  operationId: "createThumbnailUploadUrl",
  summary: "A fresh thumbnail upload URL",
  description:
    "To replace a content's thumbnail after E1: answers a new signed URL (valid UPLOAD_URL_TTL_SECONDS) to PUT a 1920x1080 JPEG of at most 5 MB to. The URL is bound to this content and dies with it.",
  request: { body: jsonBody(contentKeyBody) },
  responses: {
    200: jsonContent(
      z.object({ contentKey: z.string(), thumbnailUploadUrl: z.string(), expires: z.string() }),
      "The URL and when it expires",
    ),
    ...messageErrors(400, 401, 404, 429),
  },
});

export const retrieve = createRoute({
  ...base,
  method: "get",
  path: "/v2/content",
  operationId: "getContent",
  summary: "E3. Retrieve content",
  request: { query: contentKeyQuery },
  responses: {
    200: jsonContent(contentObject, "The content"),
    ...messageErrors(400, 401, 404, 429),
  },
});

export const update = createRoute({
  ...base,
  method: "put",
  path: "/v2/content",
  operationId: "updateContent",
  summary: "E4. Update content",
  description:
    "Every field of the update column of spec 2.1 is required; thumbnailUrl may be null. The usual flow is retrieve with E3, modify, send: the fields E3 adds (status, rejectionReason, duration, createdDate, publishedDate, url) are accepted and ignored, and the service's own thumbnail URL sent back keeps the service thumbnail. isLive false on a live stream that has not ended answers 409 (end it with POST /v2/live/end).",
  request: { body: jsonBody(updateContentBody) },
  responses: {
    200: jsonContent(contentObject, "As stored"),
    ...messageErrors(400, 401, 404, 409, 413, 429),
  },
});

export const remove = createRoute({
  ...base,
  method: "delete",
  path: "/v2/content",
  operationId: "deleteContent",
  summary: "E5. Delete content",
  description:
    "Deletes the metadata, the media and the thumbnail, and aborts an unfinished upload. Statistics stay.",
  request: { query: contentKeyQuery },
  responses: {
    200: jsonContent(contentObject, "The deleted content"),
    ...messageErrors(400, 401, 404, 429),
  },
});

export const uploadState = createRoute({
  ...base,
  method: "get",
  path: "/v2/content/upload",
  operationId: "getUploadState",
  summary: "Resume an unfinished upload",
  description:
    "For a content still `uploading`: the parts already stored (PartNumber, ETag, Size: send them back in E2 with the others) and a fresh signed URL for each missing part, plus a fresh thumbnail upload URL. Any client with write credentials can resume an upload this way, after a reload or a lost connection. A dedicated endpoint rather than E3, so E3 stays a cheap read and E4 (retrieve, modify, send) is unchanged. 409 when the content is not uploading (available, rejected, expired), or when storage no longer holds the upload (presigned S3 mode: R2 aborted it).",
  request: { query: contentKeyQuery },
  responses: {
    200: jsonContent(uploadStateResponse, "The upload and what is left to send"),
    ...messageErrors(400, 401, 404, 409, 429),
  },
});

export const library = createRoute({
  ...base,
  method: "get",
  path: "/v2/content/list",
  operationId: "listAllContent",
  summary: "All the organization's content with its status (the console's library)",
  description:
    "Every content, newest created first, whatever its status: uploading, available, rejected (with rejectionReason) or expired — E6 lists only published videos. Filters: status, search (title and description words, the last a prefix, or a content key), one category, tag and event name each. Paged by cursor (nextCursor), so every page costs the same at any depth.",
  request: { query: libraryQuery },
  responses: { 200: jsonContent(libraryPage, "A page"), ...messageErrors(400, 401, 429) },
});
