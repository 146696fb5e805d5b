// Player traffic for media and thumbnails: public, cached by ETag; only a key that serves nothing
// counts against the client's budget of public reads (middleware/public-reads.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { koErrors, notModifiedResponse, SECURITY } from "../../http/openapi";
import { playbackRights } from "../../middleware/playback-rights";
import { signedPlayback } from "../../middleware/signed-playback";
import { playbackTokenQuery } from "../../schemas/playback";
import { CONTENT_KEY_PATTERN } from "../../shared/ids";

const binary = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: z.string().openapi({ format: "binary" }) } },
});

export const media = createRoute({
  method: "get",
  path: "/media/{contentKey}/{file}",
  operationId: "getMedia",
  tags: ["Files"],
  security: SECURITY.public,
  middleware: [signedPlayback, playbackRights],
  summary: "The video file (the record's url)",
  description:
    "Supports Range (one range: 206), If-Range, HEAD, ETag and If-None-Match (304). A range past the end, or the empty suffix bytes=-0, answers 416 with Content-Range: bytes */<size>. A video that requires signed playback is served only with `?token=` (403 otherwise). Outside the video's playback rights (windows and geographies, allowed sites): 403 with the reason (docs/api.md: Playback rights).",
  request: {
    params: z.object({
      contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
      file: z.string().regex(/^[A-Za-z0-9]{1,8}\.(mp4|mov)$/, "must be <contentKey>.mp4 or .mov"),
    }),
    query: playbackTokenQuery,
  },
  responses: {
    200: binary("video/mp4", "The media"),
    206: binary("video/mp4", "Partial content (Content-Range)"),
    ...notModifiedResponse,
    ...koErrors(400, 403, 404, 416, 429),
  },
});

export const thumbnail = createRoute({
  method: "get",
  path: "/thumbnails/{file}",
  operationId: "getThumbnail",
  tags: ["Files"],
  security: SECURITY.public,
  summary: "A content's thumbnail (the service thumbnail URL)",
  description:
    "The stored thumbnail, or a default 1920x1080 image until one is stored. The URL a record carries names the stored thumbnail's version (`?v=`, never reused for the key, even by a content created again under it): each replacement gets a new URL, so the current version's URL is cached for good (immutable); without `v`, or with another version, 60 s.",
  request: {
    params: z.object({
      file: z.string().regex(/^[A-Za-z0-9]{1,8}\.jpg$/, "must be <contentKey>.jpg"),
    }),
    query: z.object({
      v: z
        .string()
        .regex(/^[1-9]\d{0,15}$/, "must be the thumbnail's version, a positive integer")
        .optional(),
    }),
  },
  responses: {
    200: binary("image/jpeg", "JPEG"),
    ...notModifiedResponse,
    ...koErrors(400, 404, 429),
  },
});
