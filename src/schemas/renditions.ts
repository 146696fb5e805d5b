// zod schemas of the rendition ladder (docs/renditions.md): the organization's ladder
// (/v2/renditions/ladder) and a video's rungs and their states (/v2/content/renditions).
import { z } from "@hono/zod-openapi";
import { contentKeySchema, required } from "./common";

const MAX_RUNGS = 8;

export const rung = z
  .strictObject({
    height: z
      .number(required("a whole number"))
      .int("must be a whole number")
      .min(36, "must be at least 36 pixels")
      .max(2160, "must be at most 2160 pixels")
      .openapi({ description: "The picture's shorter side, in pixels (even widths are derived)" }),
    bitrate: z
      .number(required("a whole number"))
      .int("must be a whole number")
      .min(50_000, "must be at least 50000 bit/s")
      .max(20_000_000, "must be at most 20000000 bit/s")
      .openapi({ description: "Target video bit rate, bit/s (the source's audio is kept)" }),
  })
  .openapi("Rung");

export const ladder = z
  .object({
    rungs: z.array(rung),
    default: z.boolean().openapi({ description: "Whether these are the service's default rungs" }),
  })
  .openapi("RenditionLadder");

export const ladderBody = z
  .strictObject({
    rungs: z
      .array(rung, required("a list of rungs, or null"))
      .max(MAX_RUNGS, `at most ${MAX_RUNGS} rungs`)
      .refine(
        (rungs) => new Set(rungs.map((r) => r.height)).size === rungs.length,
        "must not list a height twice",
      )
      .nullable()
      .openapi({ description: "The rungs ([] for none: a single variant); null for the default" }),
  })
  .openapi("RenditionLadderUpdate");

export const renditionState = z
  .object({
    name: z.string().openapi({ description: "r<height>: its files are r<height>-video.m3u8 …" }),
    width: z.number().int(),
    height: z.number().int(),
    status: z.enum(["pending", "ready", "failed"]),
    reason: z.string().nullable().openapi({ description: "Why it failed" }),
    peakBitrate: z.number().int().nullable().openapi({ description: "BANDWIDTH, bit/s (ready)" }),
    averageBitrate: z.number().int().nullable(),
    codecs: z.string().nullable(),
  })
  .openapi("Rendition");

export const recordingRemux = z
  .object({
    status: z.enum(["pending", "published", "kept", "failed"]).openapi({
      description:
        "pending: the remux is queued or running; published: the recording plays as an upload (urlHLS the packaged stream); kept: it plays as recorded for good (reason); failed: retry it (POST /v2/content/renditions/retry)",
    }),
    reason: z.string().nullable(),
  })
  .openapi("RecordingRemux");

export const contentRenditions = z
  .object({
    contentKey: z.string(),
    renditions: z.array(renditionState),
    recording: recordingRemux.nullable().openapi({
      description:
        "A live recording's remux into an MP4 (docs/live.md), which its ladder waits for; null for an upload, or a recording not remuxed (no transcoder)",
    }),
  })
  .openapi("ContentRenditions");

export const retryBody = z
  .strictObject({
    contentKey: contentKeySchema,
    rung: z
      .string()
      .regex(/^r\d{1,4}$/, "must be a rung's name, r<height> (r360)")
      .optional()
      .openapi({ description: "Only this rung (default: every failed rung)" }),
  })
  .openapi("RenditionRetry");

export const retriedRenditions = contentRenditions
  .extend({
    retried: z.array(z.string()).openapi({ description: "The rungs queued again" }),
  })
  .openapi("RetriedRenditions");
