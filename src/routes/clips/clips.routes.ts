// Clips (docs/api.md "Clips"): a new video cut from a time range of a video or of a live
// stream's DVR window, made by its job in seconds.
import { createRoute } from "@hono/zod-openapi";
import { jsonBody, jsonContent, koErrors, SECURITY } from "../../http/openapi";
import { credentials } from "../../middleware/credentials";
import { clipObject, createClipBody } from "../../schemas/clips";

export const create = createRoute({
  tags: ["Clips"],
  security: SECURITY.write,
  middleware: credentials("write"),
  method: "post",
  path: "/v2/clips",
  operationId: "createClip",
  summary: "Cut a clip of a video or of a live stream",
  description:
    "A new video (its own content key, metadata, thumbnail, statistics and feeds) made of the source's segments that overlap [start, end), copied without re-encoding: the start moves back to the keyframe that starts the segment holding it, the end forward to the end of the segment holding it (`clip` says where it was cut). The source is a video on demand, or a live stream while it is live (the range within its DVR window). Answered 202 with status processing; poll GET /v2/content?contentKey= (or wait for the video.ready webhook): available once it plays (seconds), rejected with rejectionReason if it could not be made. The clip's file is its own: deleting the source leaves it whole.",
  request: { body: jsonBody(createClipBody) },
  responses: {
    202: jsonContent(clipObject, "Accepted: the clip's record (status processing) and its cut"),
    ...koErrors(400, 401, 403, 404, 409, 413, 429),
  },
});
