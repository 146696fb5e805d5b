// Live streams (docs/live.md): the API's side of them.
import { z } from "@hono/zod-openapi";
import { LIVE_STATES } from "../shared/vocabulary";
import { contentKeySchema } from "./common";
import { contentObject, editable } from "./content";

export const liveStreamBody = z
  .strictObject({
    contentKey: contentKeySchema.nullish(),
    title: editable.title.optional(),
    description: editable.description.optional(),
    thumbnailUrl: editable.thumbnailUrl.optional(),
    categories: editable.categories.optional(),
    tags: editable.tags.optional(),
    events: editable.events.optional(),
    customFields: editable.customFields.optional(),
    translations: editable.translations,
    subtitles: editable.subtitles,
    signedPlayback: editable.signedPlayback,
    enforcePlaybackWindows: editable.enforcePlaybackWindows,
    dvrWindowSeconds: z
      .number({ error: "must be a number" })
      .int("must be an integer")
      .min(60, "must be at least 60 seconds")
      .max(86400, "must be at most 86400 seconds (24 hours)")
      .optional()
      .openapi({
        description:
          "How far back viewers may rewind while the stream runs (the live playlist's window); default LIVE_DVR_SECONDS (7200, two hours). The recording keeps every segment whatever the window.",
      }),
    timeoutSeconds: z
      .number({ error: "must be a number" })
      .int("must be an integer")
      .min(5, "must be at least 5 seconds")
      .max(3600, "must be at most 3600 seconds")
      .optional()
      .openapi({
        description:
          "How long the encoder may send nothing before the stream ends by itself; default LIVE_TIMEOUT_SECONDS (60)",
      }),
  })
  .openapi("CreateLiveStream");
export type LiveStreamBody = z.infer<typeof liveStreamBody>;

export const liveStatus = z
  .object({
    state: z.enum(LIVE_STATES).openapi({
      description:
        "idle: waiting for the encoder's first segments; live: running (isLive true, urlHLS the live playlist); ended: the recording is a video on demand (isLive false)",
    }),
    dvrWindowSeconds: z.number(),
    timeoutSeconds: z.number(),
    startedAt: z.string().nullable(),
    endedAt: z.string().nullable(),
    endReason: z.string().nullable(),
    lastHeartbeat: z.string().nullable().openapi({ description: "The encoder's last request" }),
    segments: z.number().openapi({ description: "Segments recorded so far" }),
    recordedSeconds: z.number(),
    bytes: z.number().openapi({
      description:
        "Every byte the stream stores: its segments, init segments, and files no playlist named yet (deleted 2 minutes after they arrived)",
    }),
    maxBytes: z.number().nullable().openapi({
      description:
        "The most the stream may store (the organization's plan); past it the stream ends. Null for a stream created before the limit",
    }),
    rungs: z
      .array(
        z.object({
          name: z.string().openapi({ description: "The rung, named by its height: r360" }),
          width: z.number(),
          height: z.number(),
          segments: z.number().openapi({ description: "Segments of the rung made so far" }),
          lagSeconds: z.object({ median: z.number(), max: z.number() }).nullable().openapi({
            description:
              "How long after the source's segment was listed the rung's was stored, over the last 60 segments (seconds); null before its first",
          }),
        }),
      )
      .openapi({
        description:
          "The rungs transcoded while live where a transcoder runs (the organization's ladder below the encoder's picture), listed in urlHLS as their segments are made; empty without a transcoder or when no rung is below the picture",
      }),
  })
  .openapi("LiveStatus");

const streamKeyFields = {
  streamKey: z.string().openapi({
    description:
      "The stream key: shown here once (stored hashed), in the ingest URL's path; rotate it with POST /v2/live/key",
  }),
  ingestBaseUrl: z.string().openapi({
    description: "The encoder writes its media playlist and segments under this URL (HTTP PUT)",
  }),
  ingestUrl: z.string().openapi({
    description: "The media playlist URL to give ffmpeg (`-f hls -method PUT <ingestUrl>`)",
  }),
};

export const liveStreamObject = contentObject.extend({ live: liveStatus }).openapi("LiveStream");
export const createdLiveStream = contentObject
  .extend({ ...streamKeyFields, live: liveStatus })
  .openapi("CreatedLiveStream");
export const rotatedStreamKey = z
  .object({ contentKey: z.string(), ...streamKeyFields })
  .openapi("RotatedStreamKey");
export const liveKeyBody = z.strictObject({ contentKey: contentKeySchema });

export const liveListQuery = z.object({
  state: z
    .enum(LIVE_STATES, { error: `must be one of ${LIVE_STATES.join(", ")}` })
    .optional()
    .openapi({ param: { name: "state", in: "query" }, description: "Only streams in this state" }),
  cursor: z
    .string()
    .max(300, "must be at most 300 characters")
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description: "nextCursor of the previous page",
    }),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(100, "must be at most 100")
    .default(25)
    .openapi({ param: { name: "limit", in: "query" } }),
});

export const liveStreamPage = z
  .object({
    liveStreams: z.array(
      contentObject.extend({
        liveState: z.enum(LIVE_STATES).openapi({
          description: "The stream's state (live.state of GET /v2/live?contentKey=)",
        }),
      }),
    ),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as cursor for the next (older) page; null on the last" }),
  })
  .openapi("LiveStreamPage");
