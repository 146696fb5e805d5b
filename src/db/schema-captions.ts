// D1 schema of captions (Drizzle; the migrations are hand-written, 0045_captions.sql and
// 0046_transcript_index.sql, since contents gains a column there): the tracks the service keeps,
// the requests for automatic ones, the organizations' settings, and the transcripts' passages
// the spoken-word index reads (docs/captions.md). The index itself, an FTS5 table, is in
// db/transcripts.ts (drizzle-kit cannot create virtual tables).
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CAPTION_KINDS } from "../shared/captions";
import { contents, organizations } from "./schema";

/** A caption track of a video: one per language; its text is in R2 (storage/layout.ts captionKey). */
export const captionTracks = sqliteTable(
  "caption_tracks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    language: text("language").notNull(),
    label: text("label").notNull(),
    kind: text("kind", { enum: CAPTION_KINDS }).notNull(),
    /** The one track players show unless the viewer chooses (HLS DEFAULT=YES, <track default>). */
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    /** Made from the audio by a speech engine, not yet edited by the publisher. */
    automatic: integer("automatic", { mode: "boolean" }).notNull().default(false),
    /** The engine that made it (automatic only). */
    engine: text("engine"),
    /** Moves on at each save; the text of each version is kept under its own key. */
    version: integer("version").notNull(),
    cues: integer("cues").notNull(),
    bytes: integer("bytes").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("caption_tracks_content_language_idx").on(t.contentId, t.language)],
);

export type CaptionTrack = typeof captionTracks.$inferSelect;

export const CAPTION_JOB_STATUSES = ["pending", "assembling", "ready", "failed"] as const;
export type CaptionJobStatus = (typeof CAPTION_JOB_STATUSES)[number];
export const CAPTION_JOB_TRIGGERS = ["request", "auto"] as const;

/**
 * A request for automatic captions: its audio transcribed chunk by chunk on the renditions
 * queue (domain/captions/generate.ts), each chunk's words in R2 until the last one assembles
 * the track.
 */
export const captionJobs = sqliteTable(
  "caption_jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    /** The language asked for; null: the engine detects it. */
    language: text("language"),
    status: text("status", { enum: CAPTION_JOB_STATUSES }).notNull().default("pending"),
    reason: text("reason"),
    chunks: integer("chunks").notNull(),
    /** The chunk length the plan used (the chunks are cut again from it). */
    chunkSeconds: integer("chunk_seconds").notNull(),
    engine: text("engine").notNull(),
    /** request: POST .../generate; auto: the organization's setting, at publishing. */
    trigger: text("trigger", { enum: CAPTION_JOB_TRIGGERS }).notNull(),
    /** The track it made (its language), once ready. */
    trackLanguage: text("track_language"),
    /** Seconds of audio the engine was given (what Workers AI bills). */
    audioSeconds: real("audio_seconds"),
    requestedAt: text("requested_at").notNull(),
    finishedAt: text("finished_at"),
  },
  (t) => [index("caption_jobs_content_idx").on(t.contentId, t.id)],
);

export type CaptionJobRow = typeof captionJobs.$inferSelect;

/** An organization's caption settings (none: everything off). */
export const captionSettings = sqliteTable("caption_settings", {
  organizationId: integer("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  /** Every video published from now on gets automatic captions. */
  autoCaptions: integer("auto_captions", { mode: "boolean" }).notNull().default(false),
  /** Their language; null: detected from the audio. */
  autoLanguage: text("auto_language"),
  /** Searches (E13–E15, the console's library) find videos by what is said in them. */
  transcriptSearch: integer("transcript_search", { mode: "boolean" }).notNull().default(false),
  updatedAt: text("updated_at").notNull(),
});

/**
 * A passage of a track's text (about 30 s of cues) in the spoken-word index: its text, where it
 * starts and ends, each of its cues (`[[character offset, start ms, end ms]]`), and the scope
 * token of its video's owner (`o<org> m<sub>`, as contents_fts has).
 */
export const transcriptPassages = sqliteTable(
  "transcript_passages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    contentId: integer("content_id")
      .notNull()
      .references(() => contents.id, { onDelete: "cascade" }),
    language: text("language").notNull(),
    startMs: integer("start_ms").notNull(),
    endMs: integer("end_ms").notNull(),
    text: text("text").notNull(),
    cueTimes: text("cue_times", { mode: "json" }).$type<[number, number, number][]>().notNull(),
    scope: text("scope").notNull(),
  },
  (t) => [index("transcript_passages_content_idx").on(t.contentId, t.language, t.startMs)],
);

export type TranscriptPassage = typeof transcriptPassages.$inferSelect;
