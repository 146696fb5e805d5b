// zod schemas of the QoE endpoints (docs/qoe.md): the CMCD collector, the daily figures, the
// views of a video, and the alerts' thresholds.
import { z } from "@hono/zod-openapi";
import { DEVICE_TYPES } from "../shared/counters";
import { isCalendarDay } from "../shared/dates";
import { QOE_DIMENSIONS } from "../shared/qoe";
import { contentKeySchema, required } from "./common";
import { dimension } from "./events";

/** At most this many bytes of CMCD reports per request (200 lines of 1 KB and room to spare). */
export const CMCD_BODY_MAX_BYTES = 256 * 1024;

export const cmcdQuery = z.object({
  sync: z.string().max(128).optional().openapi({
    description:
      "The organization's sync code (players cannot send the X-Service-Sync-Code header)",
  }),
  CMCD: z.string().optional().openapi({
    description: "One CMCD payload (what a player in query mode appends to its requests)",
    example: 'e=ps,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",sta=p,ts=1700000000000,v=2',
  }),
  contentKey: contentKeySchema.optional().openapi({
    description:
      "The content the reports are about, for players configured without a content id (cid) whose reports name no stream URL of the service",
  }),
  playerId: dimension(128).optional().openapi({
    description: "Reported as the player id dimension of the daily figures",
  }),
  token: z.string().max(2048).optional().openapi({
    description: "A signed player token, for organizations that require one",
  }),
});

export const cmcdResult = z
  .object({
    status: z.literal("ok"),
    accepted: z.number().openapi({ description: "Reports queued for the views' figures" }),
    ignored: z
      .array(z.object({ where: z.string(), reason: z.string() }))
      .openapi({ description: "Reports taken but of no use to a view (no session id, …)" }),
  })
  .openapi("CmcdResult");

const day = z
  .string(required("a date YYYY-MM-DD"))
  .refine(isCalendarDay, "must be a date YYYY-MM-DD")
  .openapi({ example: "2026-11-01" });

export const QOE_ORDER = [
  "views",
  "score",
  "failurePct",
  "rebufferPct",
  "startupMsP90",
  "exitsBeforeStartPct",
] as const;

export const qoeQuery = z.object({
  from: day.openapi({ description: "First UTC day, inclusive" }),
  to: day.openapi({ description: "Last UTC day, inclusive; at most 366 days from `from`" }),
  contentKey: contentKeySchema.optional(),
  country: z
    .string()
    .regex(/^[A-Z]{3}$|^none$/, "must be an ISO 3166-1 alpha-3 code or none")
    .optional(),
  device: z
    .enum([...DEVICE_TYPES, "none"], { error: `must be one of ${DEVICE_TYPES.join(", ")}, none` })
    .optional(),
  playerId: z.string().min(1).max(128).optional(),
  groupBy: z
    .enum(["date", ...QOE_DIMENSIONS], {
      error: `must be one of date, ${QOE_DIMENSIONS.join(", ")}`,
    })
    .optional()
    .openapi({ description: "One row per value of this dimension; without it, one row of totals" }),
  orderBy: z
    .enum(QOE_ORDER, { error: `must be one of ${QOE_ORDER.join(", ")}` })
    .optional()
    .openapi({
      description:
        "Rows sorted by this figure, the worst first (most views, lowest score, highest rates and startup); default views, and date order for groupBy=date",
    }),
  minViews: z.coerce
    .number("must be a number")
    .int("must be an integer")
    .min(0)
    .max(1_000_000)
    .optional()
    .openapi({ description: "Leave out rows with fewer views (default 0)" }),
  limit: z.coerce
    .number("must be a number")
    .int("must be an integer")
    .min(1, "must be 1 to 1000")
    .max(1000, "must be 1 to 1000")
    .optional(),
});

const nullableNumber = z.number().nullable();

export const qoeRow = z
  .object({
    key: z.string().openapi({
      description: "The group's value (the date, the content key, …); 'all' without groupBy",
    }),
    views: z.number().openapi({ description: "Views that asked to play" }),
    startupMsP50: nullableNumber,
    startupMsP90: nullableNumber,
    startupMsP95: nullableNumber,
    startupMsAverage: nullableNumber,
    exitsBeforeStartPct: nullableNumber,
    failurePct: nullableNumber,
    rebufferPct: nullableNumber.openapi({
      description: "Rebuffering time as % of watch time (playing + rebuffering)",
    }),
    rebufferFrequency: nullableNumber.openapi({ description: "Rebuffers per minute played" }),
    rebufferedViewsPct: nullableNumber,
    playedMs: z.number(),
    averageBitrateKbps: nullableNumber,
    averageHeight: nullableNumber,
    upscalePct: nullableNumber,
    liveLatencyMs: nullableNumber,
    score: nullableNumber.openapi({ description: "Viewer experience score, 0–100 (docs/qoe.md)" }),
    playbackSuccessScore: nullableNumber,
    startupScore: nullableNumber,
    smoothnessScore: nullableNumber,
    videoQualityScore: nullableNumber,
  })
  .openapi("QoeRow");

export const qoeAnswer = z
  .object({
    from: z.string(),
    to: z.string(),
    groupBy: z.string().nullable(),
    rows: z.array(qoeRow),
  })
  .openapi("QoeFigures");

export const qoeViewsQuery = z.object({
  contentKey: contentKeySchema,
  from: day.optional().openapi({ description: "First UTC day (default: the day before `to`)" }),
  to: day.optional().openapi({ description: "Last UTC day (default: today)" }),
  limit: z.coerce
    .number("must be a number")
    .int("must be an integer")
    .min(1, "must be 1 to 500")
    .max(500, "must be 1 to 500")
    .optional(),
});

export const qoeView = z
  .object({
    sessionId: z.string(),
    contentKey: z.string(),
    startedAt: z.string().openapi({ description: "The view's first report (ISO 8601)" }),
    lastReportAt: z.string(),
    country: z.string(),
    device: z.string(),
    playerId: z.string(),
    state: z.string().nullable().openapi({ description: "The CMCD state at the last report" }),
    attempted: z.boolean(),
    started: z.boolean(),
    startupMs: nullableNumber,
    exitedBeforeStart: z.boolean(),
    failed: z.boolean(),
    errorCode: z.string().nullable(),
    rebuffers: z.number(),
    rebufferMs: z.number(),
    playedMs: z.number(),
    averageBitrateKbps: nullableNumber,
    averageHeight: nullableNumber,
    upscalePct: nullableNumber,
    liveLatencyMs: nullableNumber,
    renditions: z.array(
      z.object({
        rendition: z.string(),
        height: nullableNumber,
        playedMs: z.number(),
        averageKbps: nullableNumber,
        rebuffers: z.number(),
        rebufferMs: z.number(),
      }),
    ),
    score: nullableNumber,
  })
  .openapi("QoeView");

export const qoeViewsAnswer = z.object({ views: z.array(qoeView) }).openapi("QoeViews");

const pct = (what: string) =>
  z
    .number(`must be a number (${what})`)
    .gt(0, "must be above 0")
    .max(100, "must be at most 100")
    .nullable()
    .optional();

export const qoeAlertSettingsBody = z
  .strictObject({
    enabled: z.boolean("must be true or false").optional().openapi({ description: "Default true" }),
    minViews: z
      .number("must be a number")
      .int("must be an integer")
      .min(1, "must be 1 to 100000")
      .max(100_000, "must be 1 to 100000")
      .optional()
      .openapi({ description: "Views a window must hold to be judged (default 20)" }),
    failurePct: pct("a percentage").openapi({
      description: "Alert when at least this % of the window's views failed",
    }),
    rebufferPct: pct("a percentage").openapi({
      description: "Alert when rebuffering takes at least this % of the window's watch time",
    }),
    startupMsP90: z
      .number("must be a number")
      .int("must be an integer (milliseconds)")
      .min(1, "must be 1 to 600000")
      .max(600_000, "must be 1 to 600000")
      .nullable()
      .optional()
      .openapi({
        description: "Alert when the window's 90th percentile startup is at least this many ms",
      }),
    perVideo: z
      .boolean("must be true or false")
      .optional()
      .openapi({ description: "Judge each video's window too (default true)" }),
  })
  .refine(
    (b) => b.failurePct != null || b.rebufferPct != null || b.startupMsP90 != null,
    "set at least one threshold: failurePct, rebufferPct or startupMsP90",
  )
  .openapi("QoeAlertSettingsBody");

const alertFigures = z.object({
  views: z.number(),
  failurePct: nullableNumber,
  rebufferPct: nullableNumber,
  startupMsP90: nullableNumber,
});

export const qoeAlertsAnswer = z
  .object({
    settings: z
      .object({
        enabled: z.boolean(),
        minViews: z.number(),
        failurePct: nullableNumber,
        rebufferPct: nullableNumber,
        startupMsP90: nullableNumber,
        perVideo: z.boolean(),
        windowMinutes: z.number(),
      })
      .nullable(),
    alerts: z.array(
      z.object({
        id: z.number(),
        scope: z.enum(["organization", "video"]),
        contentKey: z.string().nullable(),
        open: z.boolean(),
        openedAt: z.string(),
        closedAt: z.string().nullable(),
        crossed: z.array(z.string()),
        figures: alertFigures,
        worst: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
  })
  .openapi("QoeAlerts");
