// D1 schema of the worker's side of live streams (docs/live.md): beside each live stream's
// content row, what the worker needs to answer its encoder without reading a body or waking the
// stream's Durable Object (the stream key's hash), and the state of its recording's remux (a
// queue job that must end: pending, then published, kept as recorded, or failed and retryable).

import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { contents } from "./schema";

export const RECORDING_STATUSES = ["pending", "published", "kept", "failed"] as const;
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

export const liveStreams = sqliteTable(
  "live_streams",
  {
    contentId: integer("content_id")
      .primaryKey()
      .references(() => contents.id, { onDelete: "cascade" }),
    /** SHA-256 (hex) of the stream key; null for a stream created before it was kept here. */
    keyHash: text("key_hash"),
    /** The recording's remux (null: not asked yet). */
    recordingStatus: text("recording_status", { enum: RECORDING_STATUSES }),
    /** Why it was kept as recorded or failed. */
    recordingReason: text("recording_reason"),
    /** When the remux was queued or last made progress: the cron fails one stalled past its bound. */
    recordingUpdatedAt: text("recording_updated_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    index("live_streams_recording_pending_idx")
      .on(t.recordingUpdatedAt)
      .where(sql`recording_status = 'pending'`),
  ],
);

export type LiveStreamRow = typeof liveStreams.$inferSelect;
