// Caption tracks, automatic-caption jobs and the organizations' caption settings (all SQL of
// captions but the spoken-word index: ./transcripts.ts). Every change of a video's tracks
// rewrites, in the same batch, the list its row shows (contents.captions) and moves its
// revision (updated_at): the edge-cached playlists, manifest and player answer are keyed by it.
import { and, asc, desc, eq, inArray, ne, type SQL, sql } from "drizzle-orm";
import type { CaptionKind } from "../shared/captions";
import type { Db } from "./client";
import { contents } from "./schema";
import {
  type CaptionJobRow,
  type CaptionTrack,
  captionJobs,
  captionSettings,
  captionTracks,
} from "./schema-captions";

export type { CaptionJobRow, CaptionTrack };

/** The video's tracks, by language. */
export function tracksOf(db: Db, contentId: number): Promise<CaptionTrack[]> {
  return db
    .select()
    .from(captionTracks)
    .where(eq(captionTracks.contentId, contentId))
    .orderBy(asc(captionTracks.language));
}

export async function findTrack(
  db: Db,
  contentId: number,
  language: string,
): Promise<CaptionTrack | null> {
  const [row] = await db
    .select()
    .from(captionTracks)
    .where(and(eq(captionTracks.contentId, contentId), eq(captionTracks.language, language)))
    .limit(1);
  return row ?? null;
}

/** contents.captions rewritten from the tracks (one statement), the row's revision moved. */
function refreshRowCaptions(db: Db, contentId: number, now: string) {
  return db
    .update(contents)
    .set({
      captions: sql`(select coalesce(json_group_array(json_object('language', t.language, 'label', t.label, 'kind', t.kind, 'default', json(case when t.is_default then 'true' else 'false' end), 'automatic', json(case when t.automatic then 'true' else 'false' end), 'version', t.version)), '[]') from (select * from ${captionTracks} where content_id = ${contentId} order by is_default desc, language) t)`,
      updatedAt: now,
    })
    .where(eq(contents.id, contentId));
}

/** The tracks' settings besides their text. */
export interface TrackSettings {
  label: string;
  kind: CaptionKind;
  isDefault: boolean;
}

export interface SavedText {
  automatic: boolean;
  engine: string | null;
  cues: number;
  bytes: number;
}

/**
 * Saves version `version` of the video's track in `language` (its text stored before, under a
 * key naming the version), if the track is still at `version - 1` (0: none): another save
 * meanwhile makes this one answer false. The default track is one per video.
 */
export async function saveTrack(
  db: Db,
  contentId: number,
  language: string,
  version: number,
  settings: TrackSettings,
  text: SavedText,
  now: string,
): Promise<boolean> {
  const values = {
    label: settings.label,
    kind: settings.kind,
    isDefault: settings.isDefault,
    automatic: text.automatic,
    engine: text.engine,
    version,
    cues: text.cues,
    bytes: text.bytes,
    updatedAt: now,
  };
  const write =
    version === 1
      ? db
          .insert(captionTracks)
          .values({ contentId, language, createdAt: now, ...values })
          .onConflictDoNothing()
          .returning({ id: captionTracks.id })
      : db
          .update(captionTracks)
          .set(values)
          .where(
            and(
              eq(captionTracks.contentId, contentId),
              eq(captionTracks.language, language),
              eq(captionTracks.version, version - 1),
            ),
          )
          .returning({ id: captionTracks.id });
  // One batch: the write, the other tracks' default off (only if this version is the one in
  // place), the row's list.
  const [written] = await db.batch([
    write,
    ...(settings.isDefault
      ? [
          otherDefaultsOff(
            db,
            contentId,
            language,
            sql`exists (select 1 from ${captionTracks} where content_id = ${contentId} and language = ${language} and version = ${version})`,
          ),
        ]
      : []),
    refreshRowCaptions(db, contentId, now),
  ]);
  return written.length > 0;
}

const otherDefaultsOff = (db: Db, contentId: number, language: string, when?: SQL) =>
  db
    .update(captionTracks)
    .set({ isDefault: false })
    .where(and(eq(captionTracks.contentId, contentId), ne(captionTracks.language, language), when));

/** Changes a track's label, kind or default (its text stays); null when it does not exist. */
export async function updateTrackSettings(
  db: Db,
  contentId: number,
  language: string,
  settings: TrackSettings,
  now: string,
): Promise<boolean> {
  const [updated] = await db.batch([
    db
      .update(captionTracks)
      .set({ ...settings, updatedAt: now })
      .where(and(eq(captionTracks.contentId, contentId), eq(captionTracks.language, language)))
      .returning({ id: captionTracks.id }),
    ...(settings.isDefault ? [otherDefaultsOff(db, contentId, language)] : []),
    refreshRowCaptions(db, contentId, now),
  ]);
  return updated.length > 0;
}

/** Removes the track; false when there was none. */
export async function deleteTrack(
  db: Db,
  contentId: number,
  language: string,
  now: string,
): Promise<boolean> {
  const [deleted] = await db.batch([
    db
      .delete(captionTracks)
      .where(and(eq(captionTracks.contentId, contentId), eq(captionTracks.language, language)))
      .returning({ id: captionTracks.id }),
    refreshRowCaptions(db, contentId, now),
  ]);
  return deleted.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Automatic captions

export interface NewCaptionJob {
  contentId: number;
  language: string | null;
  chunks: number;
  chunkSeconds: number;
  engine: string;
  trigger: "request" | "auto";
}

/** Records a job, unless one of the video is under way: its id, or null. */
export async function insertCaptionJob(
  db: Db,
  job: NewCaptionJob,
  now: string,
): Promise<number | null> {
  const rows = await db.all<{ id: number }>(
    sql`insert into ${captionJobs} (content_id, language, status, chunks, chunk_seconds, engine, "trigger", requested_at)
      select ${job.contentId}, ${job.language}, 'pending', ${job.chunks}, ${job.chunkSeconds}, ${job.engine}, ${job.trigger}, ${now}
      where not exists (select 1 from ${captionJobs} where content_id = ${job.contentId} and status in ('pending', 'assembling'))
      returning id`,
  );
  return rows[0]?.id ?? null;
}

export async function findCaptionJob(db: Db, id: number): Promise<CaptionJobRow | null> {
  const [row] = await db.select().from(captionJobs).where(eq(captionJobs.id, id)).limit(1);
  return row ?? null;
}

/** The video's latest job (what the track list says of automatic captions), or null. */
export async function latestCaptionJob(db: Db, contentId: number): Promise<CaptionJobRow | null> {
  const [row] = await db
    .select()
    .from(captionJobs)
    .where(eq(captionJobs.contentId, contentId))
    .orderBy(desc(captionJobs.id))
    .limit(1);
  return row ?? null;
}

/** The one job that finds every chunk stored assembles the track: this claims it. */
export async function claimCaptionAssembly(db: Db, id: number): Promise<boolean> {
  const claimed = await db
    .update(captionJobs)
    .set({ status: "assembling" })
    .where(and(eq(captionJobs.id, id), eq(captionJobs.status, "pending")))
    .returning({ id: captionJobs.id });
  return claimed.length > 0;
}

/** Ends a job under way (ready or failed); false when it had ended already. */
export async function finishCaptionJob(
  db: Db,
  id: number,
  end:
    | { status: "ready"; trackLanguage: string; audioSeconds: number }
    | { status: "failed"; reason: string; audioSeconds?: number },
  now: string,
): Promise<boolean> {
  const done = await db
    .update(captionJobs)
    .set({ ...end, finishedAt: now })
    .where(and(eq(captionJobs.id, id), inArray(captionJobs.status, ["pending", "assembling"])))
    .returning({ id: captionJobs.id });
  return done.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Settings

export interface CaptionSettings {
  autoCaptions: boolean;
  autoLanguage: string | null;
  transcriptSearch: boolean;
}

export const CAPTION_SETTINGS_OFF: CaptionSettings = {
  autoCaptions: false,
  autoLanguage: null,
  transcriptSearch: false,
};

export async function captionSettingsOf(db: Db, organizationId: number): Promise<CaptionSettings> {
  const [row] = await db
    .select({
      autoCaptions: captionSettings.autoCaptions,
      autoLanguage: captionSettings.autoLanguage,
      transcriptSearch: captionSettings.transcriptSearch,
    })
    .from(captionSettings)
    .where(eq(captionSettings.organizationId, organizationId))
    .limit(1);
  return row ?? CAPTION_SETTINGS_OFF;
}

export async function setCaptionSettings(
  db: Db,
  organizationId: number,
  settings: CaptionSettings,
  now: string,
): Promise<void> {
  await db
    .insert(captionSettings)
    .values({ organizationId, ...settings, updatedAt: now })
    .onConflictDoUpdate({
      target: captionSettings.organizationId,
      set: { ...settings, updatedAt: now },
    });
}
