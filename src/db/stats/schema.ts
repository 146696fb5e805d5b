// D1 schema of the statistics database (binding STATS_DB, database video-catalog-stats;
// Drizzle, migrations in migrations-stats/ generated with drizzle-stats.config.ts). It lives
// apart from the catalog database so that event writes never queue ahead of catalog reads and
// writes, and each database stays far from D1's size cap. Nothing here references a catalog
// table: organizations and content are named by their id and key, and the code that reads both
// databases joins them one page at a time (src/db/stats/catalog-keys.ts).
//
// Daily rollups: one row per organization, UTC day ('YYYY-MM-DD'), content key and the row's
// dimensions, one INTEGER column per counter of spec 2.5. The queue consumer adds to the
// counters with INSERT ... ON CONFLICT (<the key>) DO UPDATE SET c = c + excluded.c, so every
// dimension is NOT NULL and a missing one is stored as 'none' (the spec's value for "not set").
//
// Totals: the same counters summed over the dimensions, per content key and day, per content key
// and month, and per organization and day, written by the consumer in the transaction that
// writes the rollups, so they always equal the sums of the daily rows. Rankings and summaries
// over long ranges read them instead of every daily row.
//
// content_key has no foreign key: statistics outlive deleted content (docs/design.md). Deleting an
// organization erases its statistics explicitly (src/domain/stats/erasure.ts).
//
// Access paths: the rollups' UNIQUE key starts with (organization_id, date, content_key) and
// serves every report over a date range; (organization_id, content_key, date) serves the
// reports for one content key; the viewer rows add (organization_id, fingerprint, date) and
// (organization_id, tput_hash, date) for E10's fingerprint_list and tput modes, erasure and E6
// watchedByTput.
import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import {
  AD_COUNTERS,
  ECOMMERCE_COUNTERS,
  VIDEO_COUNTERS,
  VIEWER_COUNTERS,
} from "../../shared/counters";
import { QOE_COUNTERS } from "../../shared/qoe";

const counter = () => integer().notNull().default(0);
/** One NOT NULL DEFAULT 0 INTEGER column per counter, named as the spec names it. */
function counters<const N extends readonly string[]>(names: N) {
  return Object.fromEntries(names.map((name) => [name, counter()])) as {
    [K in N[number]]: ReturnType<typeof counter>;
  };
}
const dim = (name: string) => text(name).notNull().default("none");

export const videoStats = sqliteTable(
  "video_stats",
  {
    organizationId: integer("organization_id").notNull(),
    /** UTC day, 'YYYY-MM-DD'. */
    date: text("date").notNull(),
    contentKey: text("content_key").notNull(),
    /** ISO 3166-1 alpha-3, or 'none'. */
    country: dim("country"),
    videoDeviceType: dim("video_device_type"),
    videoPlayerId: dim("video_player_id"),
    ...counters(VIDEO_COUNTERS),
  },
  (t) => [
    uniqueIndex("video_stats_key_idx").on(
      t.organizationId,
      t.date,
      t.contentKey,
      t.country,
      t.videoDeviceType,
      t.videoPlayerId,
    ),
    index("video_stats_content_idx").on(t.organizationId, t.contentKey, t.date),
  ],
);

export const adStats = sqliteTable(
  "ad_stats",
  {
    organizationId: integer("organization_id").notNull(),
    date: text("date").notNull(),
    contentKey: text("content_key").notNull(),
    /** ISO 3166-1 alpha-2, or 'none'. */
    adCountry: dim("ad_country"),
    adCreative: dim("ad_creative"),
    adDeviceType: dim("ad_device_type"),
    adPlayerId: dim("ad_player_id"),
    adPosition: dim("ad_position"),
    adSystem: dim("ad_system"),
    ...counters(AD_COUNTERS),
  },
  (t) => [
    uniqueIndex("ad_stats_key_idx").on(
      t.organizationId,
      t.date,
      t.contentKey,
      t.adCountry,
      t.adCreative,
      t.adDeviceType,
      t.adPlayerId,
      t.adPosition,
      t.adSystem,
    ),
    index("ad_stats_content_idx").on(t.organizationId, t.contentKey, t.date),
  ],
);

/**
 * Viewer-level rows: only for events with consent from organizations with viewer analytics;
 * kept VIEWER_ROWS_RETENTION_MONTHS (default 13) and then purged by the cron.
 */
export const viewerStats = sqliteTable(
  "viewer_stats",
  {
    organizationId: integer("organization_id").notNull(),
    date: text("date").notNull(),
    contentKey: text("content_key").notNull(),
    /** ISO 3166-1 alpha-3, or 'none'. */
    country: dim("country"),
    deviceType: dim("device_type"),
    ip: dim("ip"),
    fingerprint: dim("fingerprint"),
    /** hashTput(organization id, tput) (src/domain/stats/viewers.ts), or 'none'. Never the token itself. */
    tputHash: dim("tput_hash"),
    adPosition: dim("ad_position"),
    ...counters(VIEWER_COUNTERS),
  },
  (t) => [
    uniqueIndex("viewer_stats_key_idx").on(
      t.organizationId,
      t.date,
      t.contentKey,
      t.country,
      t.deviceType,
      t.ip,
      t.fingerprint,
      t.tputHash,
      t.adPosition,
    ),
    index("viewer_stats_content_idx").on(t.organizationId, t.contentKey, t.date),
    index("viewer_stats_fingerprint_idx").on(t.organizationId, t.fingerprint, t.date),
    index("viewer_stats_tput_idx").on(t.organizationId, t.tputHash, t.date),
  ],
);

export const ecommerceStats = sqliteTable(
  "ecommerce_stats",
  {
    organizationId: integer("organization_id").notNull(),
    date: text("date").notNull(),
    contentKey: text("content_key").notNull(),
    /** 'none' for rows counting only the bar. */
    ecommerceKey: dim("ecommerce_key"),
    deviceType: dim("device_type"),
    ...counters(ECOMMERCE_COUNTERS),
  },
  (t) => [
    uniqueIndex("ecommerce_stats_key_idx").on(
      t.organizationId,
      t.date,
      t.contentKey,
      t.ecommerceKey,
      t.deviceType,
    ),
    index("ecommerce_stats_content_idx").on(t.organizationId, t.contentKey, t.date),
  ],
);

// ---------------------------------------------------------------------------------------------
// Totals of each rollup: per content key and day, per content key and month ('YYYY-MM'), per
// organization and day, and running per content key (with the keys and the days they span). No dimensions, hence no personal data: viewer totals stay when viewer
// rows are purged or erased.

function dayTotals<const N extends readonly string[]>(name: string, names: N) {
  return sqliteTable(
    `${name}_day_totals`,
    {
      organizationId: integer("organization_id").notNull(),
      date: text("date").notNull(),
      contentKey: text("content_key").notNull(),
      ...counters(names),
    },
    (t) => [
      primaryKey({
        name: `${name}_day_totals_pk`,
        columns: [t.organizationId, t.date, t.contentKey],
      }),
      index(`${name}_day_totals_content_idx`).on(t.organizationId, t.contentKey, t.date),
    ],
  );
}

function monthTotals<const N extends readonly string[]>(name: string, names: N) {
  return sqliteTable(
    `${name}_month_totals`,
    {
      organizationId: integer("organization_id").notNull(),
      /** UTC month, 'YYYY-MM'. */
      month: text("month").notNull(),
      contentKey: text("content_key").notNull(),
      ...counters(names),
    },
    (t) => [
      primaryKey({
        name: `${name}_month_totals_pk`,
        columns: [t.organizationId, t.month, t.contentKey],
      }),
      index(`${name}_month_totals_content_idx`).on(t.organizationId, t.contentKey, t.month),
    ],
  );
}

/**
 * Running totals per content key: a row for each day the key has day totals, holding the sums of
 * its day totals up to and including that day. Any range's totals of a key are then two rows
 * (the last row on or before its end minus the last row before its start), where the day and
 * month totals take a row per month and per day of the partial months. An event of an earlier
 * day adds to every later row of its key: at most EVENTS_MAX_AGE_DAYS rows.
 */
function runningTotals<const N extends readonly string[]>(name: string, names: N) {
  return sqliteTable(
    `${name}_running_totals`,
    {
      organizationId: integer("organization_id").notNull(),
      contentKey: text("content_key").notNull(),
      date: text("date").notNull(),
      ...counters(names),
    },
    (t) => [
      primaryKey({
        name: `${name}_running_totals_pk`,
        columns: [t.organizationId, t.contentKey, t.date],
      }),
    ],
  );
}

/**
 * Each content key with totals, and the first and last day it has them: a summary walks the keys
 * in order here, one row per key (the running totals have a row per key and day), and skips the
 * keys that have nothing in the range and the seek for what came before a key's first day.
 */
function totalsKeys(name: string) {
  return sqliteTable(
    `${name}_totals_keys`,
    {
      organizationId: integer("organization_id").notNull(),
      contentKey: text("content_key").notNull(),
      firstDate: text("first_date").notNull(),
      lastDate: text("last_date").notNull(),
    },
    (t) => [
      primaryKey({ name: `${name}_totals_keys_pk`, columns: [t.organizationId, t.contentKey] }),
    ],
  );
}

function organizationDayTotals<const N extends readonly string[]>(name: string, names: N) {
  return sqliteTable(
    `${name}_org_day_totals`,
    {
      organizationId: integer("organization_id").notNull(),
      date: text("date").notNull(),
      ...counters(names),
    },
    (t) => [primaryKey({ name: `${name}_org_day_totals_pk`, columns: [t.organizationId, t.date] })],
  );
}

export const videoDayTotals = dayTotals("video", VIDEO_COUNTERS);
export const videoMonthTotals = monthTotals("video", VIDEO_COUNTERS);
export const videoOrgDayTotals = organizationDayTotals("video", VIDEO_COUNTERS);
export const videoTotalsKeys = totalsKeys("video");
export const videoRunningTotals = runningTotals("video", VIDEO_COUNTERS);
export const adDayTotals = dayTotals("ad", AD_COUNTERS);
export const adMonthTotals = monthTotals("ad", AD_COUNTERS);
export const adOrgDayTotals = organizationDayTotals("ad", AD_COUNTERS);
export const adTotalsKeys = totalsKeys("ad");
export const adRunningTotals = runningTotals("ad", AD_COUNTERS);
export const viewerDayTotals = dayTotals("viewer", VIEWER_COUNTERS);
export const viewerMonthTotals = monthTotals("viewer", VIEWER_COUNTERS);
export const viewerOrgDayTotals = organizationDayTotals("viewer", VIEWER_COUNTERS);
export const viewerTotalsKeys = totalsKeys("viewer");
export const viewerRunningTotals = runningTotals("viewer", VIEWER_COUNTERS);
export const ecommerceDayTotals = dayTotals("ecommerce", ECOMMERCE_COUNTERS);
export const ecommerceMonthTotals = monthTotals("ecommerce", ECOMMERCE_COUNTERS);
export const ecommerceOrgDayTotals = organizationDayTotals("ecommerce", ECOMMERCE_COUNTERS);
export const ecommerceTotalsKeys = totalsKeys("ecommerce");
export const ecommerceRunningTotals = runningTotals("ecommerce", ECOMMERCE_COUNTERS);

/**
 * Each content key's totals over all its days, as of when the cron last ranked it, with an
 * index per counter in descending order (only keys with a positive total): E9's top N walks a
 * counter's index, highest first. A key's total over any range is at most its lifetime total
 * (counters only grow, and erasure only lowers them), so once the N-th best range total found
 * beats the next lifetime total of the walk, no key further down can enter the top N. Keys
 * counted since their row was written are in the changed keys below and read exactly.
 */
function lifetimeTotals<const N extends readonly string[]>(name: string, names: N) {
  return sqliteTable(
    `${name}_lifetime_totals`,
    {
      organizationId: integer("organization_id").notNull(),
      contentKey: text("content_key").notNull(),
      ...counters(names),
    },
    (t) => [
      primaryKey({ name: `${name}_lifetime_totals_pk`, columns: [t.organizationId, t.contentKey] }),
      ...names.map((c) => {
        const column = (t as unknown as Record<string, ReturnType<typeof counter>>)[c]!;
        return index(`${name}_lifetime_totals_${c}_idx`)
          .on(t.organizationId, sql`${column} desc`, t.contentKey)
          .where(sql`${column} > 0`);
      }),
    ],
  );
}

/**
 * The content keys counted since their lifetime totals were written (the consumer marks them in
 * the transaction that counts them; the cron's ranking takes them out): their lifetime row may
 * be short, so a ranking reads their totals over the range exactly.
 */
function lifetimeChanged(name: string) {
  return sqliteTable(
    `${name}_lifetime_changed`,
    {
      organizationId: integer("organization_id").notNull(),
      contentKey: text("content_key").notNull(),
      /** The UTC day it was first counted since its lifetime row was written. */
      since: text("since").notNull(),
    },
    (t) => [
      primaryKey({
        name: `${name}_lifetime_changed_pk`,
        columns: [t.organizationId, t.contentKey],
      }),
      index(`${name}_lifetime_changed_since_idx`).on(t.since),
    ],
  );
}

export const videoLifetimeTotals = lifetimeTotals("video", VIDEO_COUNTERS);
export const videoLifetimeChanged = lifetimeChanged("video");

// ---------------------------------------------------------------------------------------------

/** Ecommerce items (E12 ecommerce_info), managed with POST/PUT/DELETE /v2/ecommerce. */
export const ecommerceItems = sqliteTable(
  "ecommerce_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id").notNull(),
    ecommerceKey: text("ecommerce_key").notNull(),
    ecommerceLink: text("ecommerce_link").notNull(),
    ecommerceName: text("ecommerce_name").notNull(),
    /** What the player shows (issue 38): the product's image (https) and its price as text. */
    imageUrl: text("image_url"),
    priceText: text("price_text"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("ecommerce_items_org_key_idx").on(t.organizationId, t.ecommerceKey)],
);

export type EcommerceItem = typeof ecommerceItems.$inferSelect;

/**
 * Distinct values of the free-form dimensions seen per organization and UTC day (player ids, ad
 * creatives and systems, ecommerce keys; viewer identities per client IP), for the cardinality
 * caps: past the cap a new value is counted under `other`. `dimension_counts` keeps how many
 * values each (day, dimension) has, so a batch reads a few counters instead of the values.
 * Rows older than the oldest accepted event day are purged by the cron.
 */
export const dimensionValues = sqliteTable(
  "dimension_values",
  {
    organizationId: integer("organization_id").notNull(),
    day: text("day").notNull(),
    dimension: text("dimension").notNull(),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.dimension, t.value] })],
);

export const dimensionCounts = sqliteTable(
  "dimension_counts",
  {
    organizationId: integer("organization_id").notNull(),
    day: text("day").notNull(),
    dimension: text("dimension").notNull(),
    values: integer("values").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.day, t.dimension] }),
    index("dimension_counts_day_idx").on(t.day),
  ],
);

// ---------------------------------------------------------------------------------------------
// Ingestion bookkeeping (the queue consumer, src/domain/stats/consume.ts).

/**
 * Ids of the queued event messages already counted (exactly-once on an at-least-once queue).
 * The id is assigned by the producer (src/domain/stats/queued-events.ts), starts with the time
 * it was queued, and survives redelivery, the dead-letter queue and a replay. The consumer
 * inserts the ids of a batch with a plain INSERT in the transaction that counts it: a second
 * delivery of any of them fails that transaction, so nothing counts twice. Purged by the cron
 * once no delivery can come any more (MESSAGE_IDS_KEPT_DAYS).
 */
export const ingestedMessages = sqliteTable("ingested_messages", {
  id: text("id").primaryKey(),
  /**
   * Whose events the message carried (null for ids recorded before shards). A trigger
   * (migrations-stats/0002_shards.sql) refuses the insert while the organization is in
   * closed_organizations: the fence of a move between shards.
   */
  organizationId: integer("organization_id"),
});

/**
 * Organizations this statistics database no longer counts for: set when an organization's
 * statistics start moving to another shard (the catch-up), and kept after. A transaction that
 * records a message id of such an organization fails (the trigger on ingested_messages), so a
 * batch that chose this shard before the move cannot add rows the move has already copied.
 */
export const closedOrganizations = sqliteTable("closed_organizations", {
  organizationId: integer("organization_id").primaryKey(),
  closedAt: text("closed_at").notNull(),
});

/**
 * What the consumer did per organization and UTC day (of processing): events counted, events
 * rejected by the checks that need the database (content keys), values folded into `other` by
 * the cardinality caps, and the last rejection. GET /v2/ingestion shows it.
 */
export const ingestionDays = sqliteTable(
  "ingestion_days",
  {
    organizationId: integer("organization_id").notNull(),
    day: text("day").notNull(),
    messages: integer("messages").notNull().default(0),
    eventsCounted: integer("events_counted").notNull().default(0),
    eventsRejected: integer("events_rejected").notNull().default(0),
    valuesFolded: integer("values_folded").notNull().default(0),
    /** New viewers counted as `other`: the organization's daily ceiling was reached. */
    viewersFolded: integer("viewers_folded").notNull().default(0),
    /** Events the requests refused: past the organization's per-minute ceiling, past a client's per-address limit. */
    eventsRefused: integer("events_refused").notNull().default(0),
    eventsRefusedPerAddress: integer("events_refused_per_address").notNull().default(0),
    lastRejection: text("last_rejection"),
    lastRejectionAt: text("last_rejection_at"),
    /** When the day's last batch was counted. */
    lastCountedAt: text("last_counted_at"),
    /** Longest wait of the day between queuing a message and counting it (the queue's lag). */
    maxLagMs: integer("max_lag_ms").notNull().default(0),
  },
  // By day: the operator's figures per shard (GET /admin/statistics/shards).
  (t) => [
    primaryKey({ columns: [t.organizationId, t.day] }),
    index("ingestion_days_day_idx").on(t.day),
  ],
);

/**
 * Event messages the queue gave up on (after max_retries, through the dead-letter queue) or
 * that cannot be read: kept here until an operator replays them
 * (POST /admin/events/dead-letters/replay, `npm run admin -- events replay-dlq`).
 */
export const deadLetters = sqliteTable(
  "dead_letters",
  {
    id: text("id").primaryKey(),
    /** null when the body could not be read. */
    organizationId: integer("organization_id"),
    body: text("body").notNull(),
    reason: text("reason").notNull(),
    parkedAt: text("parked_at").notNull(),
  },
  (t) => [
    index("dead_letters_parked_idx").on(t.parkedAt),
    index("dead_letters_org_idx").on(t.organizationId),
  ],
);

// ---------------------------------------------------------------------------------------------
// Quality of experience from CMCD reports (docs/qoe.md; src/domain/stats/qoe/). The consumer
// keeps each session's events of the UTC day, replays a view (session and content key) from them
// whenever new ones arrive, and adds the difference of the view's contribution to the daily rows.

/**
 * A session's CMCD events of one UTC day (the raw events: the cron deletes a day's rows once it
 * is over). Reports that change nothing a view uses (response timings repeating the state, the
 * rendition and the content) are not kept. `content_key` is the key the report named and the
 * organization plays (its cid, its stream URL or the collector URL's), 'none' otherwise: the
 * replay gives such an event the key in effect at its time.
 */
export const qoeEvents = sqliteTable(
  "qoe_events",
  {
    organizationId: integer("organization_id").notNull(),
    date: text("date").notNull(),
    sessionId: text("session_id").notNull(),
    ts: integer("ts").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind").notNull(),
    contentKey: dim("content_key"),
    state: text("state"),
    bitrate: integer("bitrate"),
    videoHeight: integer("video_height"),
    playerHeight: integer("player_height"),
    error: text("error"),
    msd: integer("msd"),
    latency: integer("latency"),
    streamType: text("stream_type"),
  },
  (t) => [
    primaryKey({
      columns: [t.organizationId, t.date, t.sessionId, t.ts, t.seq, t.kind],
    }),
  ],
);

/**
 * One view (a session and a content key on a UTC day) and its figures as last replayed, with
 * what it added to qoe_daily (its contribution), so the next replay adds the difference. A
 * trigger (migrations-stats/0005_qoe.sql) fails an update whose `revision` is not the previous
 * plus one: two batches that replayed the same view at once cannot both add their difference.
 * Kept QOE_VIEWS_KEPT_DAYS (GET /v2/analytics/qoe/views, the alerts' window).
 */
export const qoeViews = sqliteTable(
  "qoe_views",
  {
    organizationId: integer("organization_id").notNull(),
    date: text("date").notNull(),
    sessionId: text("session_id").notNull(),
    contentKey: text("content_key").notNull(),
    country: dim("country"),
    deviceType: dim("device_type"),
    playerId: dim("player_id"),
    /** First and last event (ms). */
    firstAt: integer("first_at").notNull(),
    lastAt: integer("last_at").notNull(),
    /** Asked to play, not started, not failed, not yet judged an exit: the cron's idle sweep looks here. */
    pending: integer("pending").notNull().default(0),
    /** Judged an exit before start by the idle sweep. */
    closed: integer("closed").notNull().default(0),
    figures: text("figures").notNull(),
    contribution: text("contribution").notNull(),
    revision: integer("revision").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.date, t.sessionId, t.contentKey] }),
    index("qoe_views_content_idx").on(t.organizationId, t.contentKey, t.firstAt),
    index("qoe_views_recent_idx").on(t.organizationId, t.lastAt),
    // Partial: only the views the idle sweep looks for (a replay of any other writes no entry).
    index("qoe_views_pending_idx").on(t.lastAt).where(sql`pending = 1`),
  ],
);

const qoeDimensions = {
  organizationId: integer("organization_id").notNull(),
  date: text("date").notNull(),
  contentKey: text("content_key").notNull(),
  country: dim("country"),
  deviceType: dim("device_type"),
  playerId: dim("player_id"),
  /** `720p` (the height played, where known) or `<kbps>kbps`; 'none' before any is known. */
  rendition: dim("rendition"),
};

/** The daily QoE figures: the views' contributions summed per day and dimensions. */
export const qoeDaily = sqliteTable(
  "qoe_daily",
  { ...qoeDimensions, ...counters(QOE_COUNTERS) },
  (t) => [
    uniqueIndex("qoe_daily_key_idx").on(
      t.organizationId,
      t.date,
      t.contentKey,
      t.country,
      t.deviceType,
      t.playerId,
      t.rendition,
    ),
    index("qoe_daily_content_idx").on(t.organizationId, t.contentKey, t.date),
  ],
);

/** Startup times per day and dimensions as a histogram (domain/stats/qoe/view.ts#startupBucket): the percentiles of any group. */
export const qoeStartups = sqliteTable(
  "qoe_startups",
  { ...qoeDimensions, bucket: integer("bucket").notNull(), views: counter() },
  (t) => [
    uniqueIndex("qoe_startups_key_idx").on(
      t.organizationId,
      t.date,
      t.contentKey,
      t.country,
      t.deviceType,
      t.playerId,
      t.rendition,
      t.bucket,
    ),
  ],
);
