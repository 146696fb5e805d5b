// D1 schema of the statistics (Drizzle; migrations/0003_stats.sql is generated from it).
//
// Daily rollups: one row per organization, UTC day ('YYYY-MM-DD'), content key and the row's
// dimensions, one INTEGER column per counter of spec 2.5. Ingestion adds to the counters with
// INSERT ... ON CONFLICT (<the key>) DO UPDATE SET c = c + excluded.c, so every dimension is NOT
// NULL and a missing one is stored as 'none' (the spec's value for "not set").
//
// content_key has no foreign key: statistics outlive deleted content (DESIGN.md). Nor has
// organization_id: a foreign key would cost a parent lookup per inserted row, and a migration
// that rebuilt `organizations` would cascade into these tables; deleting an organization erases
// its statistics explicitly instead.
//
// Access paths: the UNIQUE key starts with (organization_id, date, content_key) and serves
// every report over a date range; (organization_id, content_key, date) serves the reports for
// one content key; the viewer rows add (organization_id, fingerprint, date) and
// (organization_id, tput_hash, date) for E10's fingerprint_list and tput modes, erasure and
// E6 watchedByTput.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { AD_COUNTERS, ECOMMERCE_COUNTERS, VIDEO_COUNTERS, VIEWER_COUNTERS } from "../shared/counters";
import { organizations } from "./schema";

const counter = () => integer().notNull().default(0);
/** One NOT NULL DEFAULT 0 INTEGER column per counter, named as the spec names it. */
function counters<const N extends readonly string[]>(names: N) {
  return Object.fromEntries(names.map((name) => [name, counter()])) as { [K in N[number]]: ReturnType<typeof counter> };
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
    uniqueIndex("video_stats_key_idx").on(t.organizationId, t.date, t.contentKey, t.country, t.videoDeviceType, t.videoPlayerId),
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

/** Viewer-level rows: only for events with consent from organizations with viewer analytics. */
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
    uniqueIndex("ecommerce_stats_key_idx").on(t.organizationId, t.date, t.contentKey, t.ecommerceKey, t.deviceType),
    index("ecommerce_stats_content_idx").on(t.organizationId, t.contentKey, t.date),
  ],
);

/** Ecommerce items (E12 ecommerce_info), managed with POST/PUT/DELETE /v2/ecommerce. */
export const ecommerceItems = sqliteTable(
  "ecommerce_items",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    ecommerceKey: text("ecommerce_key").notNull(),
    ecommerceLink: text("ecommerce_link").notNull(),
    ecommerceName: text("ecommerce_name").notNull(),
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
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.dimension] }), index("dimension_counts_day_idx").on(t.day)],
);
