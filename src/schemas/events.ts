// zod schemas of the statistics' write side: event ingestion, ecommerce items, viewer erasure.
import { z } from "@hono/zod-openapi";
import { AD_POSITIONS, counterTarget, DEVICE_TYPES, EVENT_NAMES } from "../shared/counters";
import { parseTimestamp } from "../shared/dates";
import { canonicalDeviceType } from "../shared/device";
import { contentKeySchema as contentKey, required, text } from "./common";

export const EVENTS_MAX = 500;
export const EVENTS_BODY_MAX_BYTES = 1024 * 1024;

/**
 * A free-form dimension value: bounded, printable (no control or format characters), and not
 * one of the words the rollups reserve. Each organization may add at most
 * DIMENSION_VALUES_PER_DAY new values per dimension and day; past it values count as `other`.
 */
const PRINTABLE = /^[^\p{Cc}\p{Cf}]+$/u;
export const dimension = (max: number) =>
  text(max)
    .regex(PRINTABLE, "must be printable text")
    .refine((v) => v !== "none" && v !== "other", "none and other are reserved")
    // The document's pattern is the regex's source: the generator would write the literal's
    // flags into the string ("…$/u"), which no validating client can match. JSON Schema
    // patterns are ECMAScript with the u flag, as this one needs.
    .openapi({ pattern: PRINTABLE.source });

/** One event. Optional dimensions may also be null (= not reported, stored as 'none'). */
export const statsEvent = z
  .strictObject({
    event: z
      .string(required("a counter name"))
      .refine((name) => counterTarget(name) !== null, {
        error: (i) => `unknown counter ${JSON.stringify(i.input)}`,
      })
      .openapi({
        description:
          "A counter of spec 2.5 (video, ad or ecommerce row), or one of its other spellings",
        enum: [...EVENT_NAMES],
        example: "played_1s",
      }),
    contentKey: contentKey.openapi({
      description: "A content key of the organization",
      example: "abc123XY",
    }),
    timestamp: z
      .string("must be a string")
      .refine(
        (v) => parseTimestamp(v) !== null,
        "must be an ISO 8601 timestamp with an offset (Z or ±hh:mm)",
      )
      .nullish()
      .openapi({
        description:
          "When it happened (default: when received). Counted on the UTC day of this instant. At most 5 minutes in the future and EVENTS_MAX_AGE_DAYS (default 7) days old.",
        example: "2026-11-01T22:00:00-05:00",
      }),
    deviceType: z
      .string("must be a string")
      .refine((v) => canonicalDeviceType(v) !== null, `must be one of ${DEVICE_TYPES.join(", ")}`)
      .nullish()
      .openapi({
        description:
          "Mobile, Desktop, Tablet, TV or Other (any letter case); default: derived from the User-Agent",
        enum: [...DEVICE_TYPES],
      }),
    playerId: dimension(128).nullish().openapi({ description: "video_player_id / ad_player_id" }),
    adPosition: z
      .enum(AD_POSITIONS, { error: "must be preroll or midroll" })
      .nullish()
      .openapi({ description: "Ad events and viewer rows" }),
    adCreative: dimension(256).nullish().openapi({ description: "Ad events" }),
    adSystem: dimension(256).nullish().openapi({ description: "Ad events" }),
    ecommerceKey: dimension(64)
      .nullish()
      .openapi({ description: "Ecommerce events; absent for events of the bar itself" }),
    fingerprint: dimension(256)
      .nullish()
      .openapi({ description: "Device fingerprint (viewer rows)" }),
    tput: text(512)
      .nullish()
      .openapi({ description: "Third party user token (viewer rows; stored only as a hash)" }),
    consent: z
      .boolean("must be true or false")
      .nullish()
      .openapi({ description: "true: the viewer consented to viewer-level statistics" }),
  })
  .openapi("StatsEvent");
export type StatsEvent = z.infer<typeof statsEvent>;

/**
 * A player's id of a batch: its time (9 base36 characters of ms, as message ids) and 16 to 43
 * random base64url characters. A batch sent again with the same id counts once.
 */
const BATCH_ID = /^[0-9a-z]{9}[A-Za-z0-9_-]{16,43}$/;
const batchIdDescription =
  "The player's id of this batch, kept when it sends the batch again (network error, 5xx, 429): the service then counts its events once. 9 base-36 characters of the batch's time in ms, then 16 to 43 base64url characters. Only within 24 hours back and 5 minutes ahead of the service's clock; otherwise a batch sent twice counts twice.";

/** The envelope, checked before the events one by one (each event is judged on its own). */
export const eventBatchEnvelope = z.strictObject(
  {
    events: z
      .array(z.unknown(), required("an array of events"))
      .max(EVENTS_MAX, `at most ${EVENTS_MAX} events per batch`),
    token: z.string("must be a string").max(200).optional(),
    batch: z
      .string("must be a string")
      .regex(BATCH_ID, "must be 9 base-36 characters of time then 16 to 43 base64url characters")
      .optional(),
  },
  {
    error: (i) =>
      typeof i.input === "object" && i.input !== null && !Array.isArray(i.input)
        ? undefined
        : "the body must be a JSON object {events: [...]}",
  },
);

/** What a valid batch looks like (OpenAPI document). */
export const eventBatch = z
  .object({
    events: z.array(statsEvent).max(EVENTS_MAX),
    token: z.string().max(200).optional().openapi({
      description:
        "A signed player token (or the X-Service-Player-Token header); required when the organization turned them on",
    }),
    batch: z
      .string()
      .regex(BATCH_ID)
      .optional()
      .openapi({ description: batchIdDescription, example: "0mwyt8hs0kQx3v9_aZ-0Lh2pW7sY" }),
  })
  .openapi("EventBatch", {
    description: "application/json, or text/plain carrying the same JSON (navigator.sendBeacon)",
  });

export const eventBatchResult = z
  .object({
    status: z.literal("ok"),
    accepted: z.number().openapi({
      description:
        "Events queued for counting. The queue consumer then checks each content key (a video of the organization or its network) and the daily cardinality caps; what it refuses shows in GET /v2/ingestion.",
    }),
    rejected: z
      .array(
        z.object({
          index: z.number().openapi({ description: "Position in events" }),
          reason: z.string(),
        }),
      )
      .openapi({
        description:
          "Events refused by the request's checks (shape, time window, player token), with why",
      }),
  })
  .openapi("EventBatchResult");

export const eventsQuery = z.object({
  sync: z.string().max(128).optional().openapi({
    description:
      "The organization's sync code, when the X-Service-Sync-Code header cannot be sent (sendBeacon)",
  }),
});

// Ecommerce items and viewer erasure (write credentials)

const ecommerceKey = z
  .string(required("a string"))
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits, '.', '-' or '_'")
  .refine((k) => k !== "none", "none is reserved (statistics rows of the bar)");

export const ecommerceItemBody = z
  .strictObject({
    ecommerceKey,
    ecommerceLink: z
      .url({
        protocol: /^https?$/,
        error: (i) => (i.input === undefined ? "is required" : "must be an http(s) URL"),
      })
      .max(2000),
    ecommerceName: text(500),
    imageUrl: z
      .url({ protocol: /^https$/, error: "must be an https URL" })
      .max(2000, "must be at most 2000 characters")
      .nullable()
      .default(null)
      .openapi({ description: "The product's image, shown by the player (https; null: none)" }),
    priceText: z
      .string({ error: "must be a string or null" })
      .min(1, "must not be empty (null: none)")
      .max(100, "must be at most 100 characters")
      .nullable()
      .default(null)
      .openapi({ description: 'The price as the player shows it, e.g. "€19.90" (null: none)' }),
  })
  .openapi("EcommerceItemInput");

export const ecommerceKeyQuery = z.object({ ecommerceKey });
export { ecommerceKey as ecommerceKeySchema };

export const ecommerceItem = z
  .object({
    ecommerceKey: z.string(),
    ecommerceLink: z.string(),
    ecommerceName: z.string(),
    imageUrl: z.string().nullable(),
    priceText: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("EcommerceItem");

export const viewerErasureQuery = z.object({
  fingerprint: text(256)
    .optional()
    .openapi({ description: "Erase this device fingerprint's rows" }),
  tput: text(512).optional().openapi({ description: "Erase this third party user token's rows" }),
});

// Ingestion status (write credentials) and the dead letters (operator)

export const INGESTION_DAYS_MAX = 90;

export const ingestionQuery = z.object({
  days: z.coerce
    .number("must be an integer")
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(INGESTION_DAYS_MAX, `must be at most ${INGESTION_DAYS_MAX}`)
    .default(7)
    .openapi({
      type: "integer",
      description: `UTC days back from today, 1 to ${INGESTION_DAYS_MAX} (default 7)`,
    }),
});

export const ingestionDay = z
  .object({
    date: z.string().openapi({
      description: "UTC day the consumer counted on (of processing, not of the events)",
    }),
    messages: z
      .number()
      .openapi({ description: "Queue messages (one per beacon, or per 100 KB of events) counted" }),
    eventsCounted: z.number(),
    eventsRejected: z.number().openapi({
      description: "Refused by the consumer: a content key not of the organization or its network",
    }),
    valuesFolded: z.number().openapi({
      description:
        "Dimension values counted as other: the daily cap (DIMENSION_VALUES_PER_DAY per organization, VIEWER_IDS_PER_IP_PER_DAY per client) was reached",
    }),
    viewersFolded: z.number().openapi({
      description:
        "New viewers (ip + fingerprint + tput) counted as other: the organization's daily viewer ceiling was reached",
    }),
    eventsRefused: z.number().openapi({
      description:
        "Events POST /v2/events answered 429 for: the organization's events-per-minute ceiling was reached",
    }),
    eventsRefusedPerAddress: z.number().openapi({
      description:
        "Events POST /v2/events answered 429 for: one client (an IPv4 address, an IPv6 /64) passed EVENTS_PER_IP_PER_MINUTE",
    }),
    lastRejection: z.string().nullable(),
    lastRejectionAt: z.string().nullable(),
    lastCountedAt: z
      .string()
      .nullable()
      .openapi({ description: "When the day's last batch was counted" }),
    maxLagMs: z.number().openapi({
      description:
        "Longest wait of the day between queuing a message and counting it, in ms (the queue's lag)",
    }),
  })
  .openapi("IngestionDay");

export const ingestionStatus = z
  .object({
    ceilings: z
      .object({
        eventsPerMinute: z.number().openapi({
          description:
            "Events accepted per minute for the organization, whatever the addresses (by plan)",
        }),
        newViewersPerDay: z.number().openapi({
          description:
            "New viewers per UTC day on viewer rows; past it they count as other (by plan)",
        }),
        newViewersToday: z.number().openapi({ description: "New viewers counted today (UTC)" }),
      })
      .openapi({
        description: "The organization's ingestion ceilings (docs/statistics.md) and today's use",
      }),
    days: z
      .array(ingestionDay)
      .openapi({ description: "Days with counted messages, newest first" }),
    deadLetters: z.object({ count: z.number(), oldest: z.string().nullable() }).openapi({
      description:
        "Messages of the organization the queue gave up on, parked until the operator replays them",
    }),
  })
  .openapi("IngestionStatus");

export const deadLetterStatus = z
  .object({ count: z.number(), oldest: z.string().nullable() })
  .openapi("DeadLetterStatus");

export const replayQuery = z.object({
  limit: z.coerce
    .number("must be an integer")
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000")
    .default(1000)
    .openapi({
      type: "integer",
      description: "Parked messages to put back on the event queue, oldest first (1 to 1000)",
    }),
});

export const replayResult = z
  .object({
    replayed: z.number(),
    unreadable: z
      .number()
      .openapi({ description: "Parked messages that cannot be read: they stay parked" }),
    remaining: z.number().openapi({ description: "Messages still parked" }),
  })
  .openapi("DeadLetterReplay");
