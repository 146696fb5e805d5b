// zod schemas of the statistics endpoints: event ingestion, ecommerce items, viewer erasure,
// the reports E8–E12 and analytics E7. The OpenAPI document is generated from them.
import { z } from "@hono/zod-openapi";
import {
  AD_COUNTERS,
  AD_POSITIONS,
  DEVICE_TYPES,
  ECOMMERCE_COUNTERS,
  EVENT_NAMES,
  VIDEO_COUNTERS,
  VIEWER_AD_COUNTERS,
  VIEWER_VIDEO_COUNTERS,
  counterTarget,
  COMBINED_FIELDS,
} from "../shared/counters";
import { isCalendarDay, parseTimestamp } from "../shared/dates";
import { canonicalDeviceType } from "../shared/device";
import { CONTENT_KEY_PATTERN } from "../shared/ids";
import { olderRecordHead, syndicationRecord, translationRecord } from "./records";

/** "is required" when absent, `must be <expected>` for a wrong type. */
const required = (expected: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : `must be ${expected}`),
});
const text = (max: number) =>
  z.string(required("a string")).min(1, "must not be empty").max(max, `must be at most ${max} characters`);
const contentKey = z.string(required("a string")).regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits");

// ---------------------------------------------------------------------------------------------
// Ingestion

export const EVENTS_MAX = 500;
export const EVENTS_BODY_MAX_BYTES = 1024 * 1024;

/** One event. Optional dimensions may also be null (= not reported, stored as 'none'). */
export const statsEvent = z
  .strictObject({
    event: z
      .string(required("a counter name"))
      .refine((name) => counterTarget(name) !== null, { error: (i) => `unknown counter ${JSON.stringify(i.input)}` })
      .openapi({ description: "A counter of spec 2.5 (video, ad or ecommerce row), or one of its other spellings", enum: [...EVENT_NAMES], example: "played_1s" }),
    contentKey: contentKey.openapi({ description: "A content key of the organization", example: "abc123XY" }),
    timestamp: z
      .string("must be a string")
      .refine((v) => parseTimestamp(v) !== null, "must be an ISO 8601 timestamp with an offset (Z or ±hh:mm)")
      .nullish()
      .openapi({
        description: "When it happened (default: when received). Counted on the UTC day of this instant. At most 5 minutes in the future and EVENTS_MAX_AGE_DAYS (default 7) days old.",
        example: "2026-11-01T22:00:00-05:00",
      }),
    deviceType: z
      .string("must be a string")
      .refine((v) => canonicalDeviceType(v) !== null, `must be one of ${DEVICE_TYPES.join(", ")}`)
      .nullish()
      .openapi({ description: "Mobile, Desktop, Tablet, TV or Other (any letter case); default: derived from the User-Agent", enum: [...DEVICE_TYPES] }),
    playerId: text(128).nullish().openapi({ description: "video_player_id / ad_player_id" }),
    adPosition: z.enum(AD_POSITIONS, { error: "must be preroll or midroll" }).nullish().openapi({ description: "Ad events and viewer rows" }),
    adCreative: text(256).nullish().openapi({ description: "Ad events" }),
    adSystem: text(256).nullish().openapi({ description: "Ad events" }),
    ecommerceKey: text(64).nullish().openapi({ description: "Ecommerce events; absent for events of the bar itself" }),
    fingerprint: text(256).nullish().openapi({ description: "Device fingerprint (viewer rows)" }),
    tput: text(512).nullish().openapi({ description: "Third party user token (viewer rows; stored only as a hash)" }),
    consent: z.boolean("must be true or false").nullish().openapi({ description: "true: the viewer consented to viewer-level statistics" }),
  })
  .openapi("StatsEvent");
export type StatsEvent = z.infer<typeof statsEvent>;

/** The envelope, checked before the events one by one (each event is judged on its own). */
export const eventBatchEnvelope = z.strictObject(
  {
    events: z
      .array(z.unknown(), required("an array of events"))
      .max(EVENTS_MAX, `at most ${EVENTS_MAX} events per batch`),
  },
  {
    error: (i) =>
      typeof i.input === "object" && i.input !== null && !Array.isArray(i.input) ? undefined : "the body must be a JSON object {events: [...]}",
  },
);

/** What a valid batch looks like (OpenAPI document). */
export const eventBatch = z
  .object({ events: z.array(statsEvent).max(EVENTS_MAX) })
  .openapi("EventBatch", { description: "application/json, or text/plain carrying the same JSON (navigator.sendBeacon)" });

export const eventBatchResult = z
  .object({
    status: z.literal("ok"),
    accepted: z.number().openapi({ description: "Events counted" }),
    rejected: z
      .array(z.object({ index: z.number().openapi({ description: "Position in events" }), reason: z.string() }))
      .openapi({ description: "Events not counted, with why" }),
  })
  .openapi("EventBatchResult");

export const eventsQuery = z.object({
  sync: z.string().optional().openapi({ description: "The organization's sync code, when the X-Service-Sync-Code header cannot be sent (sendBeacon)" }),
});

// ---------------------------------------------------------------------------------------------
// Ecommerce items and viewer erasure (write credentials)

const ecommerceKey = z
  .string(required("a string"))
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits, '.', '-' or '_'")
  .refine((k) => k !== "none", "none is reserved (statistics rows of the bar)");

export const ecommerceItemBody = z
  .strictObject({
    ecommerceKey,
    ecommerceLink: z.url({ protocol: /^https?$/, error: (i) => (i.input === undefined ? "is required" : "must be an http(s) URL") }).max(2000),
    ecommerceName: text(500),
  })
  .openapi("EcommerceItemInput");

export const ecommerceKeyQuery = z.object({ ecommerceKey });

export const ecommerceItem = z
  .object({ ecommerceKey: z.string(), ecommerceLink: z.string(), ecommerceName: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .openapi("EcommerceItem");

export const okEnvelope = <T extends z.ZodType>(data: T, name: string) =>
  z.object({ status: z.literal("ok"), message: z.literal("ok"), data }).openapi(name);

export const viewerErasureQuery = z.object({
  fingerprint: text(256).optional().openapi({ description: "Erase this device fingerprint's rows" }),
  tput: text(512).optional().openapi({ description: "Erase this third party user token's rows" }),
});

// ---------------------------------------------------------------------------------------------
// Reports (E8–E12)

const day = z
  .string(required("a date YYYY-MM-DD"))
  .refine(isCalendarDay, "must be a date YYYY-MM-DD")
  .openapi({ example: "2026-11-01" });
const flag01 = z.enum(["0", "1"], { error: "must be 0 or 1" }).optional();

const reportBase = {
  organization_key: z.string().openapi({ description: "The organization (authentication)" }),
  start_date: day.openapi({ description: "First UTC day, inclusive" }),
  end_date: day.openapi({ description: "Last UTC day, inclusive; at most 366 days from start_date" }),
  content_key: contentKey.optional().openapi({ description: "One video (also a deleted one: statistics stay)" }),
};

export const reportQuery = z.object(reportBase);

export const REPORT_RESULT_LIMIT_MAX = 10_000;

export const combinedReportQuery = z.object({
  ...reportBase,
  sort_field: z
    .string()
    .optional()
    .openapi({ description: `Highest first. One of ${COMBINED_FIELDS.join(", ")} (also video_exited_fulscreen)` }),
  column_list: z.string().optional().openapi({ description: "Comma-separated fields of the stats rows; must include sort_field" }),
  result_limit: z.coerce
    .number("must be an integer")
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(REPORT_RESULT_LIMIT_MAX, `must be at most ${REPORT_RESULT_LIMIT_MAX}`)
    .optional()
    .openapi({ type: "integer", description: "Number of videos (list entries)" }),
});

export const viewerReportQuery = z.object({
  ...reportBase,
  content_key: reportBase.content_key.openapi({ description: "Viewers of this video; not with fingerprint_list" }),
  fingerprint_list: z.string().optional().openapi({ description: 'Fingerprints, each quoted, comma-separated: "a","b"', example: '"f1","f2"' }),
  tput: text(512).optional().openapi({ description: "Everything watched by this third party user token; not with fingerprint_list" }),
});

export const ecommerceReportQuery = z.object({
  ...reportBase,
  include_video_data: flag01.openapi({ description: "1: video_info of the videos in the stats" }),
  include_ecommerce_data: flag01.openapi({ description: "1: ecommerce_info of the items in the stats" }),
});

const counterFields = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, z.number()]));

export const videoStatsRow = z
  .object({
    content_key: z.string(),
    date: z.string().openapi({ example: "2026-11-01T23:59:59.000Z" }),
    country: z.string().openapi({ description: "Alpha-3, or none" }),
    video_device_type: z.string(),
    video_player_id: z.string(),
    ...counterFields(VIDEO_COUNTERS),
  })
  .openapi("VideoStatsRow");

export const adStatsRow = z
  .object({
    date: z.string(),
    content_key: z.string(),
    ad_country: z.string().openapi({ description: "Alpha-2, or none" }),
    ad_creative: z.string(),
    ad_device_type: z.string(),
    ad_player_id: z.string(),
    ad_position: z.string(),
    ad_system: z.string(),
    ...counterFields(AD_COUNTERS),
  })
  .openapi("AdStatsRow");

export const viewerStatsRow = z
  .object({
    date: z.string(),
    content_key: z.string().optional().openapi({ description: "Absent when the query filters by content_key" }),
    country: z.string(),
    device_type: z.string(),
    ip: z.string(),
    fingerprint: z.string(),
    tput: z.string().openapi({ description: "The token given as tput in tput mode; otherwise its stored hash (or none)" }),
    ...counterFields(VIEWER_VIDEO_COUNTERS),
    ad_position: z.string(),
    ...counterFields(VIEWER_AD_COUNTERS),
  })
  .openapi("ViewerStatsRow");

export const ecommerceStatsRow = z
  .object({
    date: z.string(),
    content_key: z.string(),
    ecommerce_key: z.string(),
    device_type: z.string(),
    ...counterFields(ECOMMERCE_COUNTERS),
  })
  .openapi("EcommerceStatsRow");


export const combinedVideoRecord = z
  .object({
    ...olderRecordHead,
    privateCategory: z.array(z.string()),
    privateTag: z.array(z.string()),
    removed: z.boolean(),
    syndications: z.array(syndicationRecord),
    thumbnail: z.string(),
    title: z.string(),
    translations: z.array(translationRecord),
  })
  .openapi("CombinedReportVideo");

export const combinedReportEntry = z
  .object({
    stats: z.array(z.record(z.string(), z.union([z.string(), z.number()]))).openapi({
      description: "Video statistics rows: content_key, date and the column_list fields (all fields without column_list)",
    }),
    video: combinedVideoRecord.nullable().openapi({ description: "null when the content was deleted (its statistics stay)" }),
  })
  .openapi("CombinedReportEntry");

export const ecommerceVideoInfo = z
  .object({
    content_key: z.string(),
    description: z.string(),
    duration: z.number().nullable(),
    service_categories: z.array(z.string()),
    privateCategories: z.array(z.string()),
    privateTags: z.array(z.string()),
    removed: z.union([z.literal(0), z.literal(1)]),
    syndications: z.array(z.object({ start_date: z.string(), end_date: z.string().nullable(), geos: z.array(z.string()) })),
    thumbnail: z.string(),
    title: z.string(),
    translations: z.array(translationRecord),
  })
  .openapi("EcommerceVideoInfo");

export const ecommerceInfo = z
  .object({ ecommerce_key: z.string(), ecommerce_link: z.string(), ecommerce_name: z.string() })
  .openapi("EcommerceInfo");

export const ecommerceReportData = z
  .object({
    ecommerce_info: z.array(ecommerceInfo).openapi({ description: "With include_ecommerce_data=1: the items in the stats" }),
    ecommerce_stats: z.array(ecommerceStatsRow),
    video_info: z.array(ecommerceVideoInfo).openapi({ description: "With include_video_data=1: the videos in the stats (deleted ones are left out)" }),
  })
  .openapi("EcommerceReportData");

// ---------------------------------------------------------------------------------------------
// Analytics (E7)

export const ANALYTICS_TYPES = ["video", "ads", "livestream", "viewers", "ecommerce"] as const;
export type AnalyticsType = (typeof ANALYTICS_TYPES)[number];
export const ANALYTICS_PAGE_SIZE_MAX = 1000;

const intParam = (min: number, max: number, fallback: number) =>
  z.coerce
    .number("must be an integer")
    .int("must be an integer")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .default(fallback)
    .openapi({ type: "integer" });
const filterParam = (description: string) => z.string().optional().openapi({ description });

export const analyticsParams = z.object({
  type: z.enum(ANALYTICS_TYPES, { error: `must be one of ${ANALYTICS_TYPES.join(", ")}` }).openapi({
    param: { name: "type", in: "path" },
    description: "video, ads, livestream (video counters of live videos), viewers or ecommerce",
  }),
});

export const analyticsQuery = z.object({
  summary: z.string().optional().openapi({ description: "Give summary or detailed (exactly one): totals per contentKey over the range" }),
  detailed: z.string().optional().openapi({ description: "Give summary or detailed (exactly one): one row per UTC day and contentKey" }),
  startDate: day.openapi({ description: "First UTC day, inclusive" }),
  endDate: day.openapi({ description: "Last UTC day, inclusive; at most 366 days from startDate" }),
  fields: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ description: "Metrics (comma-separated or repeated): played_1 (= played_1s), played_30 (= played_30s) or any counter of the type; default all" }),
  contentKey: filterParam("One video"),
  feedId: filterParam("As E6"),
  mmi: filterParam("As E6. Gated: mmi"),
  networkVideos: z.enum(["0", "1"], { error: "must be 0 or 1" }).optional().openapi({ description: "As E6. Gated: network" }),
  searchString: filterParam("As E6"),
  categories: filterParam("As E6"),
  customFields: filterParam("As E6. Gated: custom_fields"),
  events: filterParam("As E6. Gated: events"),
  tags: filterParam("As E6"),
  page: intParam(1, 1_000_000, 1),
  pageSize: intParam(1, ANALYTICS_PAGE_SIZE_MAX, 100),
});

export const analyticsRow = z
  .object({
    date: z.string().optional().openapi({ description: "detailed: end of the UTC day" }),
    contentKey: z.string(),
    startDate: z.string().optional().openapi({ description: "summary: the range" }),
    endDate: z.string().optional(),
  })
  .catchall(z.number())
  .openapi("AnalyticsRow", { description: "contentKey, date (detailed) or startDate/endDate (summary), and one number per field" });

export const analyticsResponse = z
  .object({ count: z.number(), message: z.string(), page: z.number(), pageSize: z.number(), data: z.array(analyticsRow) })
  .openapi("AnalyticsPage");
