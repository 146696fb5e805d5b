// zod schemas of the operator API (/admin/*).
import { z } from "@hono/zod-openapi";
import { isAlpha3 } from "../shared/geo";
import { CONTENT_KEY_PATTERN, KEY_PATTERN } from "../shared/ids";
import { ALLOWED_SITE_PATTERN } from "../shared/sites";
import { ENTITLEMENTS, PLANS, STATS_MOVE_PHASES } from "../shared/vocabulary";

const keyMessage = "must be 1 to 64 letters, digits, - or _";
export const organizationKey = z.string().regex(KEY_PATTERN, keyMessage);
export const orgParam = z.object({ organizationKey });

export const organizationView = z
  .object({
    organizationKey: z.string(),
    name: z.string(),
    syncCode: z.string(),
    apiKey: z.string(),
    plan: z.enum(PLANS),
    entitlements: z.array(z.enum(ENTITLEMENTS)),
    network: z.string().nullable(),
    playerTokensRequired: z
      .boolean()
      .openapi({ description: "Events without a valid signed player token are refused" }),
    enforcePlaybackWindows: z.boolean().openapi({
      description:
        "Media are served only while a syndication window of the video is open and covers the viewer's country (a video's own enforcePlaybackWindows overrides it)",
    }),
    allowedSites: z.array(z.string()).openapi({
      description:
        "Sites allowed to embed the player (CSP frame-ancestors) and to fetch the media (Referer/Origin); empty: every site",
    }),
    referrerRequired: z
      .boolean()
      .openapi({ description: "Media requests without a Referer or Origin are refused" }),
    statsShard: z.number().int().openapi({
      description: "The statistics database holding its statistics: 0 is STATS_DB, n is STATS_DB_n",
    }),
    createdAt: z.string(),
  })
  .openapi("AdminOrganization");

export const credentialsView = z
  .object({
    syncCode: z.string(),
    apiKey: z.string(),
    apiSecret: z.string().openapi({ description: "Shown once" }),
    apiToken: z.string().openapi({ description: "Shown once" }),
  })
  .openapi("IssuedCredentials");

export const createOrganizationBody = z
  .strictObject({
    organizationKey,
    name: z.string().min(1).max(200).optional(),
    plan: z.enum(PLANS).default("standard"),
    entitlements: z
      .array(z.enum(ENTITLEMENTS))
      .max(ENTITLEMENTS.length * 2)
      .default([]),
    network: z.string().min(1).max(100).nullable().optional(),
    statsShard: z.number().int().min(0).max(63).optional().openapi({
      description:
        "The statistics shard (default 0, STATS_DB); later changes are moves (POST …/statistics/move)",
    }),
  })
  .openapi("AdminCreateOrganization");

export const updateOrganizationBody = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    plan: z.enum(PLANS).optional(),
    entitlements: z
      .array(z.enum(ENTITLEMENTS))
      .max(ENTITLEMENTS.length * 2)
      .optional(),
    network: z.string().min(1).max(100).nullable().optional(),
    playerTokensRequired: z
      .boolean()
      .optional()
      .openapi({ description: "Require signed player tokens on POST /v2/events" }),
    enforcePlaybackWindows: z.boolean().optional().openapi({
      description:
        "Serve a video's media only while one of its syndication windows is open and covers the viewer's country",
    }),
    allowedSites: z
      .array(
        z
          .string()
          .transform((s) => s.toLowerCase())
          .pipe(
            z
              .string()
              .regex(
                ALLOWED_SITE_PATTERN,
                "allowedSites must be host names, or *. and a host name for its subdomains",
              ),
          ),
      )
      .max(100, "at most 100 allowed sites")
      .optional()
      .openapi({
        description:
          "Host names (example.com, or *.example.com for its subdomains) allowed to embed the player and fetch the media; [] for every site",
      }),
    referrerRequired: z.boolean().optional().openapi({
      description:
        "Refuse media requests that carry neither Referer nor Origin (apps, direct links)",
    }),
  })
  .openapi("AdminUpdateOrganization");

export const subOrganizationBody = z
  .strictObject({
    name: z.string().min(1).max(200),
    mmiKey: z.string().regex(KEY_PATTERN, keyMessage).optional(),
  })
  .openapi("AdminCreateSubOrganization");

export const rotateBody = z
  .strictObject({
    rotate: z
      .array(z.enum(["syncCode", "apiKey", "apiSecret", "apiToken"]))
      .min(1)
      .max(4)
      .default(["apiSecret", "apiToken"])
      .openapi({
        description:
          "Which credentials to replace (default apiSecret and apiToken). Rotating syncCode moves the feed list URL.",
      }),
  })
  .openapi("AdminRotateCredentials");

const isoTimestamp = z.iso.datetime({ offset: true, error: "must be an ISO 8601 timestamp" });
const syndicationInput = z
  .strictObject({
    name: z.string().max(200).default(""),
    start_time: isoTimestamp,
    stop_time: isoTimestamp.nullable().default(null),
    geos: z
      .array(
        z
          .string()
          .refine((g) => g === "-" || isAlpha3(g), 'geos must be ISO 3166 alpha-3 codes or "-"'),
      )
      .max(300)
      .default([]),
  })
  .refine(
    (s) => s.stop_time === null || Date.parse(s.stop_time) > Date.parse(s.start_time),
    "stop_time must be after start_time",
  );

export const contentKeyParam = z.object({
  contentKey: z.string().regex(CONTENT_KEY_PATTERN, "must be 1 to 8 letters or digits"),
});

export const operatorVideoBody = z
  .strictObject({
    serviceCategories: z.array(z.string().min(1).max(200)).max(100).optional(),
    syndications: z
      .array(syndicationInput)
      .max(100)
      .optional()
      .openapi({ description: "Replaces every window of the video" }),
    removed: z.boolean().optional(),
    isLive: z.boolean().optional(),
    urlHLS: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .max(2000)
      .nullable()
      .optional(),
  })
  .openapi("OperatorVideoChanges");

export const operatorVideoView = z
  .object({
    contentKey: z.string(),
    serviceCategories: z.array(z.string()),
    syndications: z.array(
      z.object({
        name: z.string(),
        start_time: z.string(),
        stop_time: z.string().nullable(),
        geos: z.array(z.string()),
      }),
    ),
    removed: z.boolean(),
    isLive: z.boolean(),
    urlHLS: z.string().nullable(),
  })
  .openapi("OperatorVideo");

export const rebuildBody = z
  .strictObject({
    feedId: z.string().max(64).optional().openapi({ description: "Rebuild this feed" }),
    contentKey: z.string().max(8).optional().openapi({
      description: "Rebuild the feeds this video belongs to (what a write to it triggers)",
    }),
    all: z
      .boolean()
      .optional()
      .openapi({ description: "Rebuild every feed in id order, `limit` at a time from `afterId`" }),
    afterId: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(1000).default(100),
    force: z
      .boolean()
      .default(false)
      .openapi({ description: "Write every file even when its content is unchanged" }),
  })
  .refine(
    (b) =>
      [b.feedId, b.contentKey, b.all].filter((v) => v !== undefined && v !== false).length === 1,
    {
      message: "give exactly one of feedId, contentKey or all",
    },
  )
  .openapi("AdminRebuildFeeds");

export const rebuildResult = z
  .object({
    feeds: z.number(),
    written: z.number(),
    unchanged: z.number(),
    nextAfterId: z.number().nullable(),
  })
  .openapi("AdminRebuildResult");

export const statisticsMoveBody = z
  .strictObject({
    shard: z
      .number("must be an integer")
      .int("must be an integer")
      .min(0, "must be at least 0")
      .max(63, "must be at most 63")
      .openapi({ description: "The statistics shard to move to: 0 is STATS_DB, n is STATS_DB_n" }),
  })
  .openapi("AdminStatisticsMove");

export const statisticsMoveView = z
  .object({
    organizationKey: z.string(),
    fromShard: z.number(),
    toShard: z.number(),
    phase: z.enum(STATS_MOVE_PHASES).openapi({
      description:
        "copy (settled days, counting goes on), catch-up (counting held, recent days), drop (the old shard's rows), done",
    }),
    rowsCopied: z.number(),
    rowsDropped: z.number(),
    startedAt: z.string(),
    switchedAt: z
      .string()
      .nullable()
      .openapi({ description: "When the organization's statistics switched to the new shard" }),
    done: z.boolean(),
    retryAfterSeconds: z.number().openapi({
      description:
        "Seconds before the next step can do anything (the drop waits for cached credentials to expire)",
    }),
    stopped: z.string().optional().openapi({
      description:
        "Set when this step stopped the move (the copy's totals differed): why. The organization stays where it was.",
    }),
  })
  .openapi("AdminStatisticsMoveStatus");

export const statisticsShardsView = z
  .object({
    shards: z.array(
      z.object({
        shard: z.number(),
        binding: z.string(),
        organizations: z.number(),
        sizeBytes: z
          .number()
          .nullable()
          .openapi({ description: "The database's size as D1 reports it" }),
        limitBytes: z.number().openapi({ description: "D1's size limit per database" }),
        usedPercent: z.number().nullable(),
        today: z.object({
          date: z.string(),
          organizations: z
            .number()
            .openapi({ description: "Organizations with counted messages today" }),
          messages: z.number(),
          eventsCounted: z.number(),
          eventsRejected: z.number(),
          eventsRefused: z.number(),
          maxLagMs: z.number().openapi({ description: "Longest queue lag of the day, in ms" }),
          lastCountedAt: z.string().nullable(),
        }),
        movesIn: z.number(),
        movesOut: z.number(),
      }),
    ),
    deadLetters: z
      .object({ count: z.number(), oldest: z.string().nullable() })
      .openapi({ description: "Parked messages of every shard (kept in shard 0)" }),
  })
  .openapi("AdminStatisticsShards");
