// D1 schema of the service's own player (issue 38; drizzle-kit generates the migration with the
// catalog's): the organization's named player configurations, and the copy of its ecommerce
// items that the player shows (the items themselves live in the statistics database beside the
// rows that count them; the copy here lets GET /v2/player read one database).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { PLAYER_AUTOPLAY } from "../shared/vocabulary";
import { feeds, organizations } from "./schema";

export type { PlayerAutoplay } from "../shared/vocabulary";

export const playerConfigurations = sqliteTable(
  "player_configurations",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Public id (10 letters or digits): the player reports it as video_player_id / ad_player_id. */
    configId: text("config_id").notNull().unique(),
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    autoplay: text("autoplay", { enum: PLAYER_AUTOPLAY }).notNull().default("off"),
    adsEnabled: integer("ads_enabled", { mode: "boolean" }).notNull().default(false),
    adTagUrl: text("ad_tag_url"),
    /** Midroll cue points (seconds) for a VAST tag; a VMAP tag carries its own. */
    midrolls: text("midrolls", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
    docking: integer("docking", { mode: "boolean" }).notNull().default(false),
    accentColor: text("accent_color").notNull(),
    logoUrl: text("logo_url"),
    /** The feed whose videos the player offers as related (null: none; a deleted feed: none). */
    relatedFeedId: integer("related_feed_id").references(() => feeds.id, { onDelete: "set null" }),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("player_configurations_org_idx").on(t.organizationId, t.id)],
);

export type PlayerConfigurationRow = typeof playerConfigurations.$inferSelect;

/** What the player shows of an ecommerce item, copied from the statistics database on each write. */
export const playerItems = sqliteTable(
  "player_items",
  {
    organizationId: integer("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    ecommerceKey: text("ecommerce_key").notNull(),
    name: text("name").notNull(),
    link: text("link").notNull(),
    imageUrl: text("image_url"),
    priceText: text("price_text"),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.ecommerceKey] })],
);

export type PlayerItemRow = typeof playerItems.$inferSelect;
