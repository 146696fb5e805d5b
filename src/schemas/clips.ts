// Clips (docs/api.md "Clips"): a new video cut from a time range of a video or of a live
// stream's DVR window.
import { z } from "@hono/zod-openapi";
import { contentKeySchema } from "./common";
import { contentObject, editable } from "./content";

/** The longest clip (seconds): highlights, not a second copy of the match. */
export const MAX_CLIP_SECONDS = 600;

const seconds = (what: string) =>
  z
    .number({
      error: (i) => (i.input === undefined ? "is required" : "must be a number of seconds"),
    })
    .min(0, "must be at least 0")
    .max(1e7, "must be at most 10000000")
    .openapi({ description: what });

export const createClipBody = z
  .strictObject({
    sourceContentKey: contentKeySchema.openapi({
      description:
        "The video to cut from: a video on demand (an upload, an ended stream's recording) or a live stream while it is live",
    }),
    start: seconds(
      "Where the clip starts, in seconds on the source's timeline (a live stream's: seconds from its first segment; GET /v2/live answers live.recordedSeconds, the end, and dvrWindowSeconds, how far back the window reaches). Moves back to the keyframe that starts the source's segment holding it",
    ),
    end: seconds(
      "Where the clip ends (after start; at most 600 s after it). Moves forward to the end of the source's segment holding it",
    ),
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
    adTagUrl: editable.adTagUrl,
    itemPlacements: editable.itemPlacements,
  })
  .superRefine((body, ctx) => {
    if (body.end <= body.start)
      ctx.addIssue({ code: "custom", path: ["end"], message: "must be after start" });
    else if (body.end - body.start > MAX_CLIP_SECONDS)
      ctx.addIssue({
        code: "custom",
        path: ["end"],
        message: `the clip is ${Math.round((body.end - body.start) * 1000) / 1000} s long; at most ${MAX_CLIP_SECONDS} s`,
      });
  })
  .openapi("CreateClip");
export type CreateClipBody = z.infer<typeof createClipBody>;

export const clipObject = contentObject
  .extend({
    clip: z
      .object({
        sourceContentKey: z.string(),
        start: z.number().openapi({
          description:
            "Where the clip starts on the source's timeline: the keyframe at or before the asked start",
        }),
        end: z.number().openapi({ description: "Where it ends on the source's timeline" }),
      })
      .openapi("ClipCut"),
  })
  .openapi("Clip");
