// D1 schema beside the feeds table (schema.ts): where each entry of a feed's published files is,
// so a change of one video patches its entry (domain/feeds/patches.ts) instead of rebuilding the
// files from the feed's query. Written with the files by every build, full or patched.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { feeds, type LabelKind } from "./schema";

/**
 * A feed's files as their last build wrote them. The entries are the same in both video files
 * (`<feed_id>-feed.json` and `v2/feeds/<feed_id>/videos.json`), in file order.
 */
export interface FeedLayout {
  /** The layout's format: another one is rebuilt, not patched. */
  format: 1;
  /** FEED_MAX_VIDEOS of the build. */
  max: number;
  /** The feed had no more members than its entries (none lies beyond the last one). */
  complete: boolean;
  /** The origins the records' URLs were written with (origins.baseUrl, origins.staticUrl). */
  origins: string;
  /** SHA-256 of each video file's content as written (feeds.files has the same). */
  hashes: { legacy: string; videos: string };
  /** The service categories of the entries, with how many entries carry each (the legacy head). */
  serviceCategories: Record<string, number>;
  /** Per entry: content id, published_at, length of its JSON text in the legacy and the v2 file. */
  entries: [id: number, publishedAt: string, legacyLength: number, v2Length: number][];
}

export const feedLayouts = sqliteTable("feed_layouts", {
  feedId: integer("feed_id")
    .primaryKey()
    .references(() => feeds.id, { onDelete: "cascade" }),
  layout: text("layout", { mode: "json" }).$type<FeedLayout>().notNull(),
});

/**
 * Each feed's names (one row per name of its categories, tags and events; kind '*' for a feed
 * with none, which holds every video), kept by triggers on feeds (migrations/0036_feed_names.sql):
 * the feeds a video belongs to are found by its names, not by reading every feed.
 */
export const feedNames = sqliteTable(
  "feed_names",
  {
    organizationId: integer("organization_id").notNull(),
    kind: text("kind").$type<LabelKind | "*">().notNull(),
    name: text("name").notNull(),
    feedId: integer("feed_id")
      .notNull()
      .references(() => feeds.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.kind, t.name, t.feedId] }),
    index("feed_names_feed_idx").on(t.feedId),
  ],
);
