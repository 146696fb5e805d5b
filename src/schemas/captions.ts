// zod schemas of captions (docs/captions.md): the tracks the service keeps, automatic captions,
// and the organization's caption settings. The OpenAPI document is generated from them.
import { z } from "@hono/zod-openapi";
import { CAPTION_KINDS, CAPTION_LABEL_MAX, LANGUAGE_CODE } from "../shared/captions";
import { contentKeySchema, required } from "./common";

export const languageSchema = z
  .string(required("a language code such as en or pt-BR"))
  .regex(
    LANGUAGE_CODE,
    "must be a language code: two lower-case letters and an optional region or script (en, pt-BR, zh-Hant)",
  )
  .openapi({ example: "en" });

const NO_CONTROL = /^[^\p{Cc}]+$/u;
const label = z
  .string()
  .min(1, "must not be empty")
  .max(CAPTION_LABEL_MAX, `must be at most ${CAPTION_LABEL_MAX} characters`)
  .regex(NO_CONTROL, "must be printable text (no control characters)")
  // The regex's source, not the literal (whose flags the generator would write into the
  // pattern): JSON Schema patterns are ECMAScript with the u flag already.
  .openapi({ pattern: NO_CONTROL.source });

const kind = z.enum(CAPTION_KINDS, { error: `must be ${CAPTION_KINDS.join(" or ")}` });

export const contentKeyParam = z.object({
  contentKey: contentKeySchema.openapi({ param: { name: "contentKey", in: "path" } }),
});

export const trackParams = z.object({
  contentKey: contentKeySchema.openapi({ param: { name: "contentKey", in: "path" } }),
  language: languageSchema.openapi({ param: { name: "language", in: "path" } }),
});

const flag = z.enum(["true", "false", "1", "0"], { error: "must be true or false" });

export const uploadQuery = z.object({
  label: label.optional().openapi({
    description:
      "What players list it as; default: the language's name (\"English\"), or the track's own label when it is replaced",
  }),
  kind: kind.optional().openapi({
    description:
      "subtitles (the dialogue, for viewers who hear but do not follow the language) or captions (for viewers who do not hear the audio: dialogue, speakers, sounds); default subtitles, or the track's own",
  }),
  default: flag.optional().openapi({
    description:
      "true: players show it unless the viewer chooses otherwise (one default track per video: another loses it)",
  }),
});

export const trackQuery = z.object({
  version: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1_000_000, "must be at most 1000000")
    .optional()
    .openapi({ description: "An earlier version of the track (every saved version is kept)" }),
});

export const trackSettingsBody = z
  .strictObject({ label: label.optional(), kind: kind.optional(), default: z.boolean().optional() })
  .openapi("CaptionTrackSettings");

export const generateBody = z
  .strictObject({
    language: languageSchema.nullable().optional().openapi({
      description: "The spoken language; absent or null: detected from the audio",
    }),
  })
  .openapi("CaptionGenerateRequest");

export const captionTrack = z
  .object({
    language: z.string(),
    label: z.string(),
    kind: z.enum(CAPTION_KINDS),
    default: z.boolean(),
    automatic: z.boolean().openapi({
      description: "Made from the audio by a speech engine (and not edited since)",
    }),
    engine: z.string().nullable().openapi({ description: "The engine that made it (automatic)" }),
    version: z.number().openapi({ description: "Moves on at each save" }),
    cueCount: z.number(),
    url: z.string().openapi({
      description: "The WebVTT file on the service's origin (the same URL for every version)",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("CaptionTrack");

export const captionJob = z
  .object({
    status: z.enum(["pending", "assembling", "ready", "failed"]),
    language: z.string().nullable().openapi({ description: "Asked for (null: detected)" }),
    trigger: z.enum(["request", "auto"]),
    engine: z.string(),
    reason: z.string().nullable().openapi({ description: "Why it failed" }),
    track: z.string().nullable().openapi({ description: "The language of the track it made" }),
    audioSeconds: z.number().nullable().openapi({ description: "Audio given to the engine" }),
    requestedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi("CaptionJob");

export const captionList = z
  .object({
    contentKey: z.string(),
    tracks: z.array(captionTrack),
    automatic: captionJob.nullable().openapi({
      description: "The latest request for automatic captions (null: none)",
    }),
  })
  .openapi("CaptionTracks");

export const cue = z.object({
  id: z.string().optional(),
  start: z.number().openapi({ description: "Seconds from the start of the video" }),
  end: z.number(),
  text: z.string().openapi({ description: "WebVTT cue text (lines separated by \\n)" }),
  settings: z.string().optional().openapi({ description: "WebVTT cue settings" }),
});

export const captionTrackWithCues = captionTrack
  .extend({ cues: z.array(cue) })
  .openapi("CaptionTrackCues");

export const captionSettingsBody = z
  .strictObject({
    autoCaptions: z.boolean(required("true or false")).openapi({
      description: "Every video published from now on gets automatic captions",
    }),
    autoLanguage: languageSchema.nullable().openapi({
      description: "Their spoken language; null: detected from the audio",
    }),
    transcriptSearch: z.boolean(required("true or false")).openapi({
      description:
        "Searches (E13–E15, the console's library) find videos by words said in them (their caption tracks), with where",
    }),
  })
  .openapi("CaptionSettingsBody");

export const captionSettings = captionSettingsBody
  .extend({
    engine: z.object({
      available: z.boolean(),
      name: z.string().nullable(),
      languages: z.array(z.string()).nullable().openapi({
        description: "What it transcribes (null: any language it detects)",
      }),
      reason: z.string().nullable().openapi({ description: "Why there is none" }),
    }),
  })
  .openapi("CaptionSettings");

/** Where a search's words are spoken in a video (E13–E15 records, the library). */
export const spokenMatch = z
  .object({
    start: z.number().openapi({ description: "Seconds into the video: where to start the player" }),
    language: z.string(),
    text: z.string().openapi({ description: "The words around them" }),
  })
  .openapi("SpokenMatch");
