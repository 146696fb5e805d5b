// zod schemas of the reports E8–E12 and analytics E7 (spec 4.3, 4.2, 2.5).
import { z } from "@hono/zod-openapi";
import {
  AD_COUNTERS,
  COMBINED_FIELDS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_AD_COUNTERS,
  VIEWER_VIDEO_COUNTERS,
} from "../shared/counters";
import { isCalendarDay } from "../shared/dates";
import { contentKeySchema as contentKey, required, text } from "./common";
import { olderRecordHead, syndicationRecord, translationRecord } from "./records";

const day = z
  .string(required("a date YYYY-MM-DD"))
  .refine(isCalendarDay, "must be a date YYYY-MM-DD")
  .openapi({ example: "2026-11-01" });
const flag01 = z.enum(["0", "1"], { error: "must be 0 or 1" }).optional();

const reportBase = {
  organization_key: z
    .string()
    .max(64)
    .openapi({ description: "The organization (with its X-Service-Sync-Code)" }),
  start_date: day.openapi({ description: "First UTC day, inclusive" }),
  end_date: day.openapi({
    description: "Last UTC day, inclusive; at most 366 days from start_date",
  }),
  content_key: contentKey
    .optional()
    .openapi({ description: "One video (also a deleted one: statistics stay)" }),
};

export const reportQuery = z.object(reportBase);

export const REPORT_RESULT_LIMIT_MAX = 10_000;

export const combinedReportQuery = z.object({
  ...reportBase,
  sort_field: z
    .string()
    .max(64)
    .optional()
    .openapi({
      description: `Highest first. One of ${COMBINED_FIELDS.join(", ")} (also video_exited_fulscreen)`,
    }),
  column_list: z
    .string()
    .max(2000)
    .optional()
    .openapi({ description: "Comma-separated fields of the stats rows; must include sort_field" }),
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
  content_key: reportBase.content_key.openapi({
    description: "Viewers of this video; not with fingerprint_list",
  }),
  fingerprint_list: z.string().max(30_000).optional().openapi({
    description: 'Fingerprints, each quoted, comma-separated: "a","b"',
    example: '"f1","f2"',
  }),
  tput: text(512).optional().openapi({
    description: "Everything watched by this third party user token; not with fingerprint_list",
  }),
});

export const ecommerceReportQuery = z.object({
  ...reportBase,
  include_video_data: flag01.openapi({ description: "1: video_info of the videos in the stats" }),
  include_ecommerce_data: flag01.openapi({
    description: "1: ecommerce_info of the items in the stats",
  }),
});

const counterFields = (names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, z.number()]));

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
    content_key: z
      .string()
      .optional()
      .openapi({ description: "Absent when the query filters by content_key" }),
    country: z.string(),
    device_type: z.string(),
    ip: z.string(),
    fingerprint: z.string(),
    tput: z.string().openapi({
      description: "The token given as tput in tput mode; otherwise its stored hash (or none)",
    }),
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
      description:
        "Video statistics rows: content_key, date and the column_list fields (all fields without column_list)",
    }),
    video: combinedVideoRecord
      .nullable()
      .openapi({ description: "null when the content was deleted (its statistics stay)" }),
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
    syndications: z.array(
      z.object({
        start_date: z.string(),
        end_date: z.string().nullable(),
        geos: z.array(z.string()),
      }),
    ),
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
    ecommerce_info: z
      .array(ecommerceInfo)
      .openapi({ description: "With include_ecommerce_data=1: the items in the stats" }),
    ecommerce_stats: z.array(ecommerceStatsRow),
    video_info: z.array(ecommerceVideoInfo).openapi({
      description: "With include_video_data=1: the videos in the stats (deleted ones are left out)",
    }),
  })
  .openapi("EcommerceReportData");

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
const filterParam = (description: string) =>
  z.string().max(2000, "must be at most 2000 characters").optional().openapi({ description });

export const analyticsParams = z.object({
  type: z.enum(ANALYTICS_TYPES, { error: `must be one of ${ANALYTICS_TYPES.join(", ")}` }).openapi({
    param: { name: "type", in: "path" },
    description: "video, ads, livestream (video counters of live videos), viewers or ecommerce",
  }),
});

export const analyticsQuery = z.object({
  summary: z.string().max(10).optional().openapi({
    description:
      "Give summary, detailed or daily (exactly one): totals per contentKey over the range",
  }),
  detailed: z.string().max(10).optional().openapi({
    description:
      "Give summary, detailed or daily (exactly one): one row per UTC day and contentKey",
  }),
  daily: z.string().max(10).optional().openapi({
    description:
      "Give summary, detailed or daily (exactly one): one row per UTC day of the range, totals over the selected videos (zeros for days without statistics), e.g. plays per day for a chart",
  }),
  startDate: day.openapi({ description: "First UTC day, inclusive" }),
  endDate: day.openapi({ description: "Last UTC day, inclusive; at most 366 days from startDate" }),
  fields: z
    .union([z.string().max(2000), z.array(z.string().max(64)).max(100)])
    .optional()
    .openapi({
      description:
        "Metrics (comma-separated or repeated): played_1 (= played_1s), played_30 (= played_30s) or any counter of the type; default all",
    }),
  contentKey: filterParam("One video"),
  feedId: filterParam("As E6"),
  mmi: filterParam("As E6. Gated: mmi"),
  networkVideos: flag01.openapi({ description: "As E6. Gated: network" }),
  searchString: filterParam("As E6"),
  categories: filterParam("As E6"),
  customFields: filterParam("As E6. Gated: custom_fields"),
  events: filterParam("As E6. Gated: events"),
  tags: filterParam("As E6"),
  page: intParam(1, 1_000_000, 1),
  pageSize: intParam(1, ANALYTICS_PAGE_SIZE_MAX, 100),
  includeCount: flag01.openapi({
    description:
      "1: answer count on every page (summary and detailed read every statistics row of the range for it); without it count comes with daily, on the last page, and where the page's reading saw every row anyway",
  }),
});

export const analyticsRow = z
  .object({
    date: z.string().optional().openapi({ description: "detailed and daily: end of the UTC day" }),
    contentKey: z.string().optional().openapi({ description: "summary and detailed" }),
    startDate: z.string().optional().openapi({ description: "summary: the range" }),
    endDate: z.string().optional(),
  })
  .catchall(z.number())
  .openapi("AnalyticsRow", {
    description:
      "contentKey and startDate/endDate (summary), date and contentKey (detailed) or date (daily), and one number per field",
  });

export const analyticsResponse = z
  .object({
    count: z.number().optional().openapi({
      description:
        "Rows over all pages: with includeCount=1, for daily, on the last page, and where the page's reading saw every row anyway",
    }),
    hasMore: z.boolean().openapi({ description: "Whether a next page has rows" }),
    message: z.string(),
    page: z.number(),
    pageSize: z.number(),
    data: z.array(analyticsRow),
  })
  .openapi("AnalyticsPage");

export const totalsQuery = z.object({
  startDate: day.openapi({ description: "First UTC day, inclusive" }),
  endDate: day.openapi({ description: "Last UTC day, inclusive; at most 366 days from startDate" }),
  by: z
    .enum(["day", "country", "device"], { error: "must be day, country or device" })
    .openapi({ description: "Group the sums by UTC day, country (alpha-3) or device type" }),
});

export const totalsResponse = z
  .object({
    by: z.enum(["day", "country", "device"]),
    startDate: z.string(),
    endDate: z.string(),
    data: z.array(
      z.object({
        key: z
          .string()
          .openapi({ description: "The day, country or device type ('none' when not known)" }),
        video_impression: z.number(),
        video_played: z.number(),
        played_30s: z.number(),
        video_ended: z.number(),
      }),
    ),
  })
  .openapi("VideoTotals");
