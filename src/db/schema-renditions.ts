// D1 schema of the rendition ladder (Drizzle; drizzle-kit generates its migration with the
// catalog's): each video's transcoded rungs and their state, and the ladders organizations
// chose (docs/renditions.md).
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { contents, organizations } from "./schema";

export const RENDITION_STATUSES = ["pending", "ready", "failed"] as const;
export type RenditionStatus = (typeof RENDITION_STATUSES)[number];

/** A rung of a video (its row: a content key created again is another row, other renditions). */
export const renditions = sqliteTable(
  "renditions",
  {
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    /** `r360`: the rung's name in stream URLs (media/renditions/ladder.ts). */
    name: text("name").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    /** The target video bit rate, bit/s. */
    bitrate: integer("bitrate").notNull(),
    /** How many chunk jobs make the rung. */
    chunks: integer("chunks").notNull(),
    status: text("status", { enum: RENDITION_STATUSES }).notNull().default("pending"),
    /** Why it failed (failed only). */
    reason: text("reason"),
    /** Measured over the segments once ready: BANDWIDTH and AVERAGE-BANDWIDTH, bit/s. */
    peakBitrate: integer("peak_bitrate"),
    averageBitrate: integer("average_bitrate"),
    /** RFC 6381 codecs of the variant (video, audio), once ready. */
    codecs: text("codecs"),
    /** Set on every rung of the video by the one request that found the ladder complete. */
    ladderNotified: integer("ladder_notified", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.contentId, t.name] }),
    index("renditions_status_idx").on(t.status),
  ],
);

export type Rendition = typeof renditions.$inferSelect;

/** An organization's own ladder: its rungs (height, bit rate), an empty list for none. */
export const renditionLadders = sqliteTable("rendition_ladders", {
  organizationId: integer("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  rungs: text("rungs", { mode: "json" }).$type<{ height: number; bitrate: number }[]>().notNull(),
  updatedAt: text("updated_at").notNull(),
});
