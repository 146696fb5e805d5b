// zod schemas of the catalog read endpoints (E6, E13–E16) and feed definitions.
import { z } from "@hono/zod-openapi";
import { spokenMatch } from "./captions";
import { olderRecordHead, syndicationRecord, translationRecord } from "./records";

export const PAGE_SIZE_MAX = 1000;

const flag = (name: string) =>
  z
    .enum(["0", "1"], { error: `${name} must be 0 or 1` })
    .transform((v) => v === "1")
    .optional();
const intParam = (name: string, min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be an integer` })
    .int(`${name} must be an integer`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`)
    .default(fallback);
/** Query strings are bounded like every input: a filter is at most FILTER_MAX characters. */
export const FILTER_MAX = 2000;
const bounded = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const filter = (description: string) => bounded(FILTER_MAX).optional().openapi({ description });

export const videosQuery = z.object({
  contentKey: bounded(64).optional().openapi({ description: "A single video" }),
  feedId: bounded(64).optional().openapi({ description: "Restrict to one of your feeds" }),
  mmi: bounded(64)
    .optional()
    .openapi({ description: "Restrict to a sub-organization (MMI key). Gated: mmi" }),
  networkVideos: flag("networkVideos").openapi({
    description:
      "1: include network videos with an open syndication window for your country. Gated: network",
  }),
  watchedByTput: bounded(512).optional().openapi({
    description: "Videos watched by this third party user token. Gated: watched_by_tput",
  }),
  searchString: bounded(500).optional().openapi({
    description:
      "Terms (`,` all, `|` any) matched against title/description words (prefix) or the content key; at most 20 `,` groups and 50 terms",
  }),
  categories: filter(
    "`,` = all, `|` = any (`a,b|c` = a and (b or c)); values percent-encoded; at most 20 `,` groups and 100 values",
  ),
  customFields: filter(
    "`[{name:v1|v2}]` any value, `[{name:v1!v2}]` all values; at most 20 field conditions and 100 values. Gated: custom_fields",
  ),
  events: filter("As categories. Gated: events"),
  tags: filter("As categories"),
  page: intParam("page", 1, 1_000_000, 1),
  pageSize: intParam("pageSize", 1, PAGE_SIZE_MAX, 100),
});

/** The fields of the v2 video record (spec 2.2), shared by the listing's record and the feed file's. */
const v2VideoFields = {
  contentKey: z.string(),
  createdDate: z.string(),
  publishedDate: z.string().nullable(),
  title: z.string(),
  description: z.string(),
  duration: z.number(),
  serviceCategories: z.array(z.string()),
  categories: z.array(z.string()),
  tags: z.array(z.string()),
  events: z.array(z.string()),
  customFields: z.array(z.record(z.string(), z.union([z.string(), z.number()]))),
  isLive: z.boolean(),
  thumbnail: z.string(),
  url: z.string(),
  urlHLS: z.string().nullable(),
};

export const v2VideoRecord = z.object(v2VideoFields).openapi("VideoRecord");

export const videosResponse = z
  .object({
    count: z.number(),
    message: z.string(),
    page: z.number(),
    pageSize: z.number(),
    data: z.array(v2VideoRecord),
  })
  .openapi("VideoList");

const commaList = bounded(FILTER_MAX).optional();

const organizationKey = z
  .string()
  .min(1)
  .max(64)
  .openapi({ description: "The organization (with its X-Service-Sync-Code)" });

export const searchMetadataQuery = z.object({
  organization_key: organizationKey,
  privateTags: commaList.openapi({
    description: "Comma-separated tags (case-sensitive); alias tagString",
  }),
  tagString: commaList,
  privateCategories: commaList.openapi({
    description: "Comma-separated categories; alias categoryString",
  }),
  categoryString: commaList,
  events: commaList,
  titleString: commaList.openapi({
    description:
      "Comma-separated words or phrases in title or description (not case-sensitive); at most 100",
  }),
  and: flag("and"),
  tagAnd: flag("tagAnd"),
  categoryAnd: flag("categoryAnd"),
  eventAnd: flag("eventAnd"),
  titleAnd: flag("titleAnd"),
  start: intParam("start", 0, 10_000_000, 0),
  limit: intParam("limit", 1, PAGE_SIZE_MAX, 100),
});

export const searchListQuery = z.object({
  organization_key: organizationKey,
  searchString: z
    .string({ error: "searchString is required" })
    .max(500, "searchString must be at most 500 characters")
    .openapi({ description: "At least 3 characters" }),
  start: intParam("start", 0, 10_000_000, 0),
  limit: intParam("limit", 1, PAGE_SIZE_MAX, 100),
});

export const searchFeedQuery = z.object({
  feed: z.string({ error: "feed is required" }).min(1, "feed is required").max(64),
  searchString: z
    .string({ error: "searchString is required" })
    .max(500, "searchString must be at most 500 characters"),
  start: intParam("start", 0, 10_000_000, 0),
  limit: intParam("limit", 1, PAGE_SIZE_MAX, 100),
});

export const getVideosQuery = z.object({
  organization_key: organizationKey,
  start: intParam("start", 0, 10_000_000, 0),
  limit: intParam("limit", 1, PAGE_SIZE_MAX, 100),
  content_key: bounded(64).optional(),
  ownVideos: flag("ownVideos"),
  privateCategories: flag("privateCategories"),
  privateTags: flag("privateTags"),
});

export const searchRecord = z
  .object({
    ...olderRecordHead,
    privateCategory: z.array(z.string()),
    privateTag: z.array(z.string()),
    events: z.array(z.string()),
    removed: z.boolean(),
    thumbnail: z.string(),
    title: z.string(),
    spoken: spokenMatch.optional().openapi({
      description:
        "Extension: where the search's words are said in the video (search by what is said, when the organization turns it on)",
    }),
  })
  .openapi("SearchRecord");

export const searchResponse = z.object({
  status: z.literal("ok"),
  message: z.string(),
  data: z.array(searchRecord),
});

export const feedSearchResponse = z.object({
  status: z.literal("ok"),
  message: z.string(),
  data: z.array(
    z.object({
      ...olderRecordHead,
      removed: z.boolean(),
      syndications: z.array(syndicationRecord),
      thumbnail: z.string(),
      title: z.string(),
      translations: z.array(translationRecord),
      spoken: spokenMatch.optional().openapi({
        description:
          "Extension: where the search's words are said in the video (search by what is said, when the organization turns it on)",
      }),
    }),
  ),
});

export const getVideosResponse = z.object({
  count: z.number(),
  status: z.literal("ok"),
  message: z.string(),
  data: z.array(
    z.object({
      content_key: z.string(),
      created_date: z.string(),
      description: z.string(),
      privateCategory: z.array(z.string()).optional(),
      privateTag: z.array(z.string()).optional(),
      thumbnail: z.string(),
      title: z.string(),
      isLive: z.boolean().openapi({
        description: "Extension: true while the video is a live stream that runs (docs/live.md)",
      }),
    }),
  ),
});

const names = z.array(z.string().min(1).max(200)).max(100);
export const feedConfiguration = z.strictObject({
  categories: names.default([]),
  tags: names.default([]),
  events: names.default([]),
});
export const feedBody = z
  .strictObject({
    name: z.string({ error: "name is required" }).min(1).max(200),
    configuration: feedConfiguration.default({ categories: [], tags: [], events: [] }),
  })
  .openapi("FeedDefinition");
export const feedMetadata = z
  .object({
    feed_id: z.string(),
    name: z.string(),
    configuration: z.object({
      categories: z.array(z.string()),
      tags: z.array(z.string()),
      events: z.array(z.string()),
    }),
  })
  .openapi("FeedMetadata");

// ---------------------------------------------------------------------------------------------
// Published feed files (spec 2.4, 4.6) and json-feed

const generatedAt = z.string().openapi({ description: "When the file was written (UTC)" });

export const legacyFeedFile = z
  .object({
    feed_id: z.string(),
    name: z.string(),
    categories: z
      .array(z.string())
      .openapi({ description: "Service categories of the feed's videos" }),
    privateCategories: z.array(z.string()),
    privateTags: z.array(z.string()),
    events: z.array(z.string()),
    videos: z.array(
      z.object({
        content_key: z.string(),
        created_date: z.string(),
        title: z.string(),
        description: z.string(),
        duration: z.number(),
        categories: z.array(z.string()),
        privateCategories: z.array(z.string()),
        privateTags: z.array(z.string()),
        events: z.array(z.string()),
        thumbnail: z.string(),
        translations: z.array(translationRecord),
        isLive: z.boolean().openapi({
          description: "Extension: true while the video is a live stream that runs (docs/live.md)",
        }),
      }),
    ),
    generated_at: generatedAt,
  })
  .openapi("LegacyFeedFile");

export const orgFeedListFile = z
  .object({
    feeds: z.array(z.object({ feed_id: z.string(), name: z.string() })),
    generated_at: generatedAt,
  })
  .openapi("FeedListFile");

export const feedVideosFile = z
  .object({
    videos: z.array(
      // Not an extension of VideoRecord: an allOf with it would declare duration a number and a string at once.
      z
        .object({
          ...v2VideoFields,
          duration: z.string().regex(/^\d+$/).openapi({
            description:
              "Seconds, as a string of digits (spec 2.2: a string of digits in feed files)",
            example: "120",
          }),
          subtitles: z
            .array(z.record(z.string(), z.string()))
            .openapi({ description: "Each object maps a language code to a subtitle URL" }),
        })
        .openapi("FeedVideoRecord"),
    ),
    generated_at: generatedAt,
  })
  .openapi("FeedVideosFile");

export const feedMetadataFile = feedMetadata
  .extend({ generated_at: generatedAt })
  .openapi("FeedMetadataFile");

export const jsonFeedQuery = z.object({
  feed: z.string({ error: "feed is required" }).min(1, "feed is required").max(64),
  start: intParam("start", 0, 10_000_000, 0),
  count: intParam("count", 1, 1000, 100),
});

export const jsonFeedResponse = z
  .array(
    z.object({
      categories: z.array(z.string()),
      content_key: z.string(),
      created_date: z.string(),
      creator_code: z.string().nullable(),
      start_date: z.string().nullable(),
      end_date: z.string().nullable(),
      geos: z.string().openapi({ description: "Comma-separated alpha-3 codes; - means all" }),
      key: z.string(),
      total_videos: z.number().openapi({ description: "Videos in the feed, for paging" }),
      video: z.object({
        description: z.string(),
        duration: z.string(),
        id: z.number(),
        key: z.string(),
        thumbnail: z.string(),
        title: z.string(),
        translations: z.array(translationRecord),
        isLive: z.boolean().openapi({
          description: "Extension: true while the video is a live stream that runs (docs/live.md)",
        }),
      }),
    }),
  )
  .openapi("JsonFeed");
