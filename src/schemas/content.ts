// zod schemas of the content endpoints (E1–E5, spec 2.1); the OpenAPI document is generated from them.
import { z } from "@hono/zod-openapi";
import { CONTENT_STATUSES } from "../shared/vocabulary";
import { contentKeySchema, required } from "./common";
import { ecommerceKeySchema } from "./events";

export const TITLE_MAX = 500;
export const DESCRIPTION_MAX = 5000;
const NAME_MAX = 200;
const NAMES_MAX = 100;

const names = (what: string) =>
  z
    .array(
      z.string().min(1, `${what} names must not be empty`).max(NAME_MAX),
      required("an array of strings"),
    )
    .max(NAMES_MAX, `at most ${NAMES_MAX} ${what} names`)
    .openapi({ example: [] });

const customFieldValue = z.union([z.string().max(1000), z.number()], {
  error: "custom field values must be a string or a number",
});

export const customFieldsSchema = z
  .array(
    z
      .record(z.string().min(1).max(100), customFieldValue)
      .refine(
        (o) => Object.keys(o).length === 1,
        "each custom field must be an object with exactly one key",
      ),
    required("an array of objects"),
  )
  .max(100, "at most 100 custom fields")
  .openapi({ example: [{ season: 3 }] });

/** URLs written into records and feed files: http(s) only (no javascript:, data:), bounded. */
const httpUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2000, "must be at most 2000 characters");

export const translationSchema = z.strictObject({
  language: z.string().regex(/^[a-z]{2}$/, "must be a two-letter language code"),
  title: z.string().max(TITLE_MAX),
  description: z.string().max(DESCRIPTION_MAX),
});

export const subtitleSchema = z
  .record(
    z.string().regex(/^[a-z]{2}(-[A-Za-z0-9]{2,8})?$/, "subtitle keys must be language codes"),
    httpUrl,
  )
  .refine((o) => Object.keys(o).length >= 1, "each subtitle object maps a language code to a URL");

/**
 * Subtitle languages of one video, counted over all its subtitle objects: each is a rendition of
 * the master playlist and a line of every feed file that lists the video.
 */
export const SUBTITLE_LANGUAGES_MAX = 100;

const subtitlesSchema = z
  .array(subtitleSchema)
  .max(50)
  .refine((list) => languageCount(list) <= SUBTITLE_LANGUAGES_MAX, {
    error: (i) =>
      `at most ${SUBTITLE_LANGUAGES_MAX} subtitle languages per video (this body has ${languageCount(i.input as Record<string, string>[])})`,
  })
  .openapi({
    description: `Language code → subtitle file URL; at most ${SUBTITLE_LANGUAGES_MAX} languages per video over all objects`,
  });

function languageCount(list: Record<string, string>[]): number {
  let count = 0;
  for (const subtitle of list) count += Object.keys(subtitle).length;
  return count;
}

/** Fields shared by create and update. */
export const editable = {
  title: z.string(required("a string")).max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`),
  description: z
    .string(required("a string"))
    .max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
  thumbnailUrl: httpUrl.nullable(),
  categories: names("category"),
  tags: names("tag"),
  events: names("event"),
  customFields: customFieldsSchema,
  // Extension fields (not in the spec's table): optional on create and update.
  translations: z.array(translationSchema).max(50).optional(),
  subtitles: subtitlesSchema.optional(),
  isLive: z.boolean().optional(),
  signedPlayback: z
    .boolean({ error: "must be true, false or null" })
    .nullable()
    .optional()
    .openapi({
      description:
        'Extension: true, this video plays only with a playback token (docs/api.md "Signed playback"); false, never needs one; null (the default), as the organization\'s setting says',
    }),
  enforcePlaybackWindows: z
    .boolean({ error: "must be true, false or null" })
    .nullable()
    .optional()
    .openapi({
      description:
        "Extension: serve the media only while one of the video's syndication windows is open and covers the viewer's country (true), always (false), or as the organization says (null, the default)",
    }),
  adTagUrl: z
    .string({ error: "must be a string or null" })
    .min(1, "must not be empty (null: none)")
    .max(2000, "must be at most 2000 characters")
    .nullable()
    .optional()
    .openapi({
      description:
        "Extension: the video's own VAST/VMAP ad tag for the service's player (https; its macros are kept for the player to expand). It comes before its player configuration's and its organization's; null (the default): none of its own. Needs the enterprise_player entitlement",
    }),
  itemPlacements: z
    .array(
      z.strictObject({
        ecommerceKey: ecommerceKeySchema,
        start: z
          .number({ error: "must be a number of seconds or null" })
          .min(0, "must be at least 0")
          .nullable()
          .default(null),
        end: z
          .number({ error: "must be a number of seconds or null" })
          .positive("must be positive")
          .nullable()
          .default(null),
      }),
      required("an array of placements"),
    )
    .max(100, "at most 100 item placements")
    .optional()
    .openapi({
      description:
        "Extension: ecommerce items (POST /v2/ecommerce) the service's player shows over the video, each from start to end (seconds; null: from the start, to the end)",
    }),
};

export const createContentBody = z
  .strictObject({
    contentKey: contentKeySchema.nullish(),
    contentSize: z
      .number({ error: (i) => (i.input === undefined ? "is required" : "must be a number") })
      .int("must be an integer")
      .positive("must be a positive integer"),
    title: editable.title.optional(),
    description: editable.description.optional(),
    thumbnailUrl: editable.thumbnailUrl.optional(),
    categories: editable.categories.optional(),
    tags: editable.tags.optional(),
    events: editable.events.optional(),
    customFields: editable.customFields.optional(),
    suffix: z.enum([".mp4", ".mov"], { error: "must be .mp4 or .mov" }).optional(),
    translations: editable.translations,
    subtitles: editable.subtitles,
    isLive: editable.isLive,
    signedPlayback: editable.signedPlayback,
    enforcePlaybackWindows: editable.enforcePlaybackWindows,
    adTagUrl: editable.adTagUrl,
    itemPlacements: editable.itemPlacements,
    chunkSize: z
      .number({ error: "must be a number" })
      .int("must be an integer")
      .optional()
      .openapi({
        description:
          "Extension: the size of every part but the last, in bytes, when the client wants smaller parts than the service's (a browser loses less to a reload): at least 5 MiB (R2's minimum); more than the service's own part size (the default) is taken down to it. contentUploadData.chunkSize answers what was taken.",
      }),
  })
  .openapi("CreateContent");

/**
 * What E3 returns besides the editable fields. E4's usual flow is "retrieve with E3, modify,
 * send" (spec 4.1), so E4 accepts them, checks their types, and ignores them.
 */
const readOnly = {
  status: z.enum(CONTENT_STATUSES).optional(),
  rejectionReason: z.string().max(2000).nullable().optional(),
  duration: z.number().nullable().optional(),
  createdDate: z.string().max(64).optional(),
  publishedDate: z.string().max(64).nullable().optional(),
  url: z.string().max(2000).nullable().optional(),
};

export const updateContentBody = z
  .strictObject({
    ...readOnly,
    contentKey: contentKeySchema,
    title: editable.title,
    description: editable.description,
    thumbnailUrl: z.union([httpUrl, z.null()], required("a URL or null")),
    categories: editable.categories,
    tags: editable.tags,
    events: editable.events,
    customFields: editable.customFields,
    translations: editable.translations,
    subtitles: editable.subtitles,
    isLive: editable.isLive,
    signedPlayback: editable.signedPlayback,
    enforcePlaybackWindows: editable.enforcePlaybackWindows,
    adTagUrl: editable.adTagUrl,
    itemPlacements: editable.itemPlacements,
  })
  .openapi("UpdateContent");

export const completeUploadBody = z
  .strictObject({
    uploadId: z.string(required("a string")).min(1).max(1024),
    key: z.string(required("a string")).min(1).max(200),
    parts: z
      .array(
        z.strictObject({
          PartNumber: z.number().int().min(1).max(10_000),
          ETag: z.string().min(1, "must not be empty").max(200),
        }),
        required("an array of {PartNumber, ETag}"),
      )
      .min(1, "at least one part is required")
      .max(10_000, "at most 10000 parts"),
  })
  .openapi("CompleteUpload");

export const contentKeyBody = z
  .strictObject({ contentKey: contentKeySchema })
  .openapi("ContentKey");

export const contentKeyQuery = z.object({
  contentKey: contentKeySchema.openapi({ param: { name: "contentKey", in: "query" } }),
});

export const contentObject = z
  .object({
    contentKey: z.string(),
    title: z.string(),
    description: z.string(),
    thumbnailUrl: z.string(),
    categories: z.array(z.string()),
    tags: z.array(z.string()),
    events: z.array(z.string()),
    customFields: z.array(z.record(z.string(), z.union([z.string(), z.number()]))),
    translations: z.array(translationSchema),
    subtitles: z.array(z.record(z.string(), z.string())),
    isLive: z.boolean(),
    signedPlayback: z.boolean().nullable(),
    enforcePlaybackWindows: z.boolean().nullable().openapi({
      description:
        "The video's own playback windows setting; null: its organization's (docs/api.md, Playback rights)",
    }),
    adTagUrl: z.string().nullable().openapi({ description: "The video's own ad tag (null: none)" }),
    itemPlacements: z.array(
      z.object({
        ecommerceKey: z.string(),
        start: z.number().nullable(),
        end: z.number().nullable(),
      }),
    ),
    status: z.enum(CONTENT_STATUSES).openapi({
      description:
        "uploading until E2 completes; processing after E2 while a source that is not H.264 (HEVC, VP9, AV1, ProRes) is transcoded: not listed, no stream yet; available once published (playable); rejected when the media failed the checks or could not be transcoded (see rejectionReason); expired when the upload was abandoned (its signed URLs expired)",
    }),
    rejectionReason: z.string().nullable(),
    duration: z.number().nullable(),
    createdDate: z.string(),
    publishedDate: z.string().nullable(),
    url: z.string().nullable().openapi({ description: "Media URL once available" }),
  })
  .openapi("Content");

export const createContentResponse = contentObject
  .extend({
    contentSize: z.number(),
    thumbnailUploadUrl: z.string(),
    contentUploadData: z.object({
      chunkSize: z.number(),
      uploadId: z.string(),
      key: z.string(),
      signedUrls: z.array(z.string()),
    }),
  })
  .openapi("CreatedContent");

export type CreateContentBody = z.infer<typeof createContentBody>;
export type UpdateContentBody = z.infer<typeof updateContentBody>;
export type CompleteUploadBody = z.infer<typeof completeUploadBody>;
export type ContentObject = z.infer<typeof contentObject>;

export const uploadStateResponse = z
  .object({
    contentKey: z.string(),
    status: z.enum(CONTENT_STATUSES),
    contentSize: z.number(),
    chunkSize: z.number(),
    uploadId: z.string(),
    key: z.string(),
    partCount: z
      .number()
      .openapi({ description: "Parts of the whole upload: ceil(contentSize / chunkSize)" }),
    storedParts: z
      .array(z.object({ PartNumber: z.number(), ETag: z.string(), Size: z.number() }))
      .openapi({ description: "Parts already stored, with the ETag E2 needs back" }),
    missingParts: z
      .array(z.object({ PartNumber: z.number(), Size: z.number(), signedUrl: z.string() }))
      .openapi({
        description:
          "Parts still to PUT, each with a fresh signed URL and the exact size it must have",
      }),
    thumbnailUploaded: z.boolean(),
    thumbnailUploadUrl: z.string().openapi({ description: "A fresh thumbnail upload URL" }),
    expires: z.string().openapi({ description: "When the signed URLs expire" }),
  })
  .openapi("UploadState");

export type UploadStateResponse = z.infer<typeof uploadStateResponse>;
