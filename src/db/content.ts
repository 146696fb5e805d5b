// Data layer: content rows, their names (content_labels) and custom fields (content_custom_fields).
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type ContentScope, inScope } from "./catalog";
import { type Db, inList } from "./client";
import {
  type Content,
  type CustomField,
  contentCustomFields,
  contentLabels,
  contents,
  type LabelKind,
  labels,
  organizations,
  type UploadPart,
  uploadParts,
} from "./schema";
import { replaceWindowsStatements, type WindowInput } from "./syndications";

export type { ContentScope };

export async function findContent(
  db: Db,
  scope: ContentScope,
  contentKey: string,
): Promise<Content | null> {
  const [row] = await db
    .select()
    .from(contents)
    .where(and(eq(contents.contentKey, contentKey), inScope(scope)))
    .limit(1);
  return row ?? null;
}

/** Any organization's content with this key (content keys are global: they name R2 objects). */
export async function findContentByKeyAnyOrg(db: Db, contentKey: string): Promise<Content | null> {
  const [row] = await db
    .select()
    .from(contents)
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row ?? null;
}

/**
 * The row id of the content whose media and thumbnail may be served under this key (published
 * and not removed), else null: one indexed row.
 */
/** The row served under a key (published, not removed) and when its record last changed; else null. */
/** What serving a video's files depends on: its row, and its organization's playback rights. */
export interface ListableContent {
  id: number;
  updatedAt: string;
  thumbnailVersion: number;
  /** The video's setting, else its organization's. */
  enforcePlaybackWindows: boolean;
  allowedSites: string[];
  referrerRequired: boolean;
}

/** Who may play a video: its organization, and whether a token is needed (its setting, else the organization's). */
export interface PlaybackRule {
  organizationId: number;
  signed: boolean;
}

/**
 * Everything the media gates ask of a video, in one query: whether it is served (null: not
 * published, removed) and its signed-playback rule (for any row); null when no row has the key.
 */
export async function playbackGates(
  db: Db,
  contentKey: string,
): Promise<{ servable: ListableContent | null; rule: PlaybackRule } | null> {
  const [row] = await db
    .select({
      id: contents.id,
      organizationId: contents.organizationId,
      ownSigned: contents.signedPlayback,
      orgSigned: sql<number>`${organizations.signedPlayback}`
        .mapWith(Number)
        .as("org_signed_playback"),
      status: contents.status,
      removed: contents.removed,
      updatedAt: contents.updatedAt,
      thumbnailVersion: contents.thumbnailVersion,
      // Aliased: both tables have the column, and the metered driver keys raw rows by name.
      enforceWindows:
        sql<number>`coalesce(${contents.enforcePlaybackWindows}, ${organizations.enforcePlaybackWindows})`
          .mapWith(Number)
          .as("enforce_windows"),
      allowedSites: organizations.allowedSites,
      referrerRequired: organizations.referrerRequired,
    })
    .from(contents)
    .innerJoin(organizations, eq(organizations.id, contents.organizationId))
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  if (row === undefined) return null;
  const rule = { organizationId: row.organizationId, signed: row.ownSigned ?? row.orgSigned === 1 };
  const servable =
    row.status === "available" && !row.removed
      ? {
          id: row.id,
          updatedAt: row.updatedAt,
          thumbnailVersion: row.thumbnailVersion,
          enforcePlaybackWindows: row.enforceWindows === 1,
          allowedSites: row.allowedSites,
          referrerRequired: row.referrerRequired,
        }
      : null;
  return { servable, rule };
}

export async function contentKeyExists(db: Db, contentKey: string): Promise<boolean> {
  const [row] = await db
    .select({ id: contents.id })
    .from(contents)
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row !== undefined;
}

export type LabelNames = Record<LabelKind, string[]>;

export function labelNamesOf(c: Pick<Content, "categories" | "tags" | "events">): LabelNames {
  return { category: c.categories, tag: c.tags, event: c.events };
}

/** The content's id, addressed by key, so statements can run in the batch that inserts it. */
const idOfKey = (contentKey: string) =>
  sql<number>`(select ${contents.id} from ${contents} where ${contents.contentKey} = ${contentKey})`;

/**
 * Statements that make the content's names exactly `names`: create names new to the
 * organization, then link them. The (kind, name) pairs travel as one JSON parameter, so any
 * number of names is two statements.
 */
function labelStatements(
  db: Db,
  organizationId: number,
  contentKey: string,
  names: LabelNames,
): BatchItem<"sqlite">[] {
  const pairs = JSON.stringify(
    (Object.keys(names) as LabelKind[]).flatMap((kind) =>
      [...new Set(names[kind])].map((name) => [kind, name]),
    ),
  );
  const contentId = idOfKey(contentKey);
  return [
    db.delete(contentLabels).where(eq(contentLabels.contentId, contentId)),
    // (Drizzle's insert-select lists every column in table order: the SELECTs do too.)
    db
      .insert(labels)
      .select(
        sql`select null, ${organizationId}, value ->> 0, value ->> 1, 0 from json_each(${pairs}) where true`,
      )
      .onConflictDoNothing(),
    db.insert(contentLabels).select(
      // listable: 0 here, set by the insert trigger when the video is listable; published_at
      // the video's (a label's listing order: migrations/0037_label_listing_order.sql).
      sql`select ${labels.id}, ${contentId}, 0, (select ${contents.publishedAt} from ${contents} where ${contents.id} = ${contentId}) from ${labels}
        where ${labels.organizationId} = ${organizationId} and (${labels.kind}, ${labels.name}) in (select value ->> 0, value ->> 1 from json_each(${pairs}))`,
    ),
  ];
}

/** Statements that make the content's custom field rows exactly `fields` (values as strings: 3 and "3" match alike). */
function customFieldStatements(
  db: Db,
  organizationId: number,
  contentKey: string,
  fields: CustomField[],
): BatchItem<"sqlite">[] {
  const rows = JSON.stringify(
    fields.flatMap((f) => Object.entries(f).map(([name, value]) => [name, String(value)])),
  );
  const contentId = idOfKey(contentKey);
  return [
    db.delete(contentCustomFields).where(eq(contentCustomFields.contentId, contentId)),
    db
      .insert(contentCustomFields)
      .select(
        sql`select ${contentId}, ${organizationId}, value ->> 0, value ->> 1 from json_each(${rows})`,
      ),
  ];
}

export async function insertContent(db: Db, row: typeof contents.$inferInsert): Promise<void> {
  const names = { category: row.categories ?? [], tag: row.tags ?? [], event: row.events ?? [] };
  await db.batch([
    db.insert(contents).values(row),
    ...labelStatements(db, row.organizationId, row.contentKey, names),
    ...customFieldStatements(db, row.organizationId, row.contentKey, row.customFields ?? []),
  ]);
}

export type ContentChanges = Partial<
  Omit<typeof contents.$inferInsert, "id" | "organizationId" | "contentKey">
>;

/** Updates the row (and its names, custom fields and windows when they change) in one batch. */
export async function updateContent(
  db: Db,
  content: Content,
  changes: ContentChanges,
  windows?: WindowInput[],
): Promise<Content> {
  const namesChanged = changes.categories || changes.tags || changes.events;
  const merged = { ...content, ...changes } as Content;
  const [updated] = await db.batch([
    db.update(contents).set(changes).where(eq(contents.id, content.id)).returning(),
    ...(namesChanged
      ? labelStatements(db, content.organizationId, content.contentKey, labelNamesOf(merged))
      : []),
    ...(changes.customFields
      ? customFieldStatements(db, content.organizationId, content.contentKey, merged.customFields)
      : []),
    ...(windows ? replaceWindowsStatements(db, content.id, windows) : []),
  ]);
  return updated[0]!;
}

/**
 * Moves an open upload to a final state; only one caller wins (the row must still carry the
 * upload id), so completing twice cannot publish twice.
 */
export async function finishUpload(
  db: Db,
  content: Content,
  changes: ContentChanges,
): Promise<Content | null> {
  const [row] = await db
    .update(contents)
    .set({ ...changes, uploadId: null })
    .where(
      and(
        eq(contents.id, content.id),
        eq(contents.uploadId, content.uploadId ?? ""),
        eq(contents.status, "uploading"),
      ),
    )
    .returning();
  // The upload is over (published, rejected or expired): its part list has nothing left to tell.
  if (row) await db.delete(uploadParts).where(eq(uploadParts.contentId, content.id));
  return row ?? null;
}

/**
 * Ends a processing video's wait (its transcoded stream is ready, or could not be made); only
 * one caller wins, so it is published or rejected once.
 */
export async function finishProcessing(
  db: Db,
  content: Content,
  changes: ContentChanges,
): Promise<Content | null> {
  const [row] = await db
    .update(contents)
    .set(changes)
    .where(and(eq(contents.id, content.id), eq(contents.status, "processing")))
    .returning();
  return row ?? null;
}

/**
 * A video rejected because its transcoded stream could not be made, waiting again (a retry of
 * its rungs): only one caller wins.
 */
export async function reopenProcessing(
  db: Db,
  content: Content,
  now: string,
): Promise<Content | null> {
  const [row] = await db
    .update(contents)
    .set({ status: "processing", rejectionReason: null, updatedAt: now })
    .where(and(eq(contents.id, content.id), eq(contents.status, "rejected")))
    .returning();
  return row ?? null;
}

/** Records why a content's file has no HLS stream (found when it was first packaged). */
export async function setStreamError(
  db: Db,
  content: Content,
  reason: string,
  now: Date,
): Promise<Content> {
  const changes = { streamError: reason, updatedAt: now.toISOString() };
  await db.update(contents).set(changes).where(eq(contents.id, content.id));
  return { ...content, ...changes };
}

/** Records a part the worker stored; a part stored again replaces the earlier one (as in R2). */
export async function recordPart(db: Db, part: UploadPart): Promise<void> {
  await db
    .insert(uploadParts)
    .values(part)
    .onConflictDoUpdate({
      target: [uploadParts.contentId, uploadParts.partNumber],
      set: { size: part.size, etag: part.etag, uploadedAt: part.uploadedAt },
    });
}

/** The parts stored so far into a content's open upload, by part number. */
export async function storedParts(db: Db, contentId: number): Promise<UploadPart[]> {
  return db
    .select()
    .from(uploadParts)
    .where(eq(uploadParts.contentId, contentId))
    .orderBy(uploadParts.partNumber);
}

/** Records when E2 was first asked to complete the upload (null: forget it). */
/** The resume endpoint signed fresh part URLs: the upload lives until they expire. */
export async function markUploadSigned(db: Db, contentId: number, at: string): Promise<void> {
  await db.update(contents).set({ uploadSignedAt: at }).where(eq(contents.id, contentId));
}

export async function markCompleteRequested(
  db: Db,
  contentId: number,
  at: string | null,
): Promise<void> {
  await db.update(contents).set({ completeRequestedAt: at }).where(eq(contents.id, contentId));
}

/**
 * Unfinished uploads the cron must look at, oldest first: those E2 was asked to complete before
 * `stuckBefore` (a crash may have left them completed in R2 only), and those whose part URLs
 * were last signed (E1 or a resume) before `expiredBefore` (abandoned: their URLs expired). Read through the partial index of
 * open uploads.
 */
export async function openUploadsToSweep(
  db: Db,
  stuckBefore: string,
  expiredBefore: string,
  limit: number,
): Promise<Content[]> {
  return db
    .select()
    .from(contents)
    .where(
      and(
        sql`${contents.status} = 'uploading'`,
        // A live stream waiting for its encoder has no upload to finish or expire.
        sql`${contents.liveState} is null`,
        sql`(coalesce(${contents.uploadSignedAt}, ${contents.createdAt}) < ${expiredBefore} or (${contents.completeRequestedAt} is not null and ${contents.completeRequestedAt} < ${stuckBefore}))`,
      ),
    )
    .orderBy(contents.createdAt)
    .limit(limit);
}

/**
 * Videos left processing with no rung planned, oldest first: E2 made the video processing and
 * its isolate ended before the ladder was recorded (contents_processing_idx, migration 0058; the literal status
 * lets SQLite use that partial index).
 */
export async function processingWithoutRungs(
  db: Db,
  before: string,
  limit: number,
): Promise<Content[]> {
  return db
    .select()
    .from(contents)
    .where(
      and(
        sql`${contents.status} = 'processing'`,
        sql`${contents.updatedAt} < ${before}`,
        // A clip being made has no file yet (db/clips.ts): its own sweep ends it.
        sql`${contents.contentSize} > 0`,
        sql`not exists (select 1 from renditions r where r.content_id = ${contents.id})`,
      ),
    )
    .orderBy(contents.updatedAt)
    .limit(limit);
}

export async function deleteContentRow(db: Db, contentId: number): Promise<void> {
  await db.delete(contents).where(eq(contents.id, contentId));
}

/**
 * A thumbnail was stored: its version moves on (the URL changes) to the time in milliseconds, or
 * one past the last version if that is later. Versions never repeat for a content key, even
 * after E5 frees it and another row takes it (a count from 1 would name the deleted video's
 * thumbnail again, which caches keep for good). Returns the content as it is now.
 */
export async function markThumbnailUploaded(
  db: Db,
  contentId: number,
  now: string,
): Promise<Content> {
  const [row] = await db
    .update(contents)
    .set({
      thumbnailUploaded: true,
      thumbnailVersion: sql`max(${contents.thumbnailVersion} + 1, ${Date.parse(now)})`,
      updatedAt: now,
    })
    .where(eq(contents.id, contentId))
    .returning();
  return row!;
}

/** The organization's content rows of these keys (deleted content is simply absent). */
export async function contentsByKey(
  db: Db,
  organizationId: number,
  keys: readonly string[],
): Promise<Map<string, Content>> {
  if (keys.length === 0) return new Map();
  const rows = await db
    .select()
    .from(contents)
    .where(and(eq(contents.organizationId, organizationId), inList(contents.contentKey, keys)));
  return new Map(rows.map((row) => [row.contentKey, row]));
}

/**
 * Which of these content keys belong to the organization or, with a network, to another
 * organization of it (one query whatever their number).
 */
export async function playableContentKeys(
  db: Db,
  organizationId: number,
  networkId: number | null,
  keys: readonly string[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const owners =
    networkId === null
      ? eq(contents.organizationId, organizationId)
      : sql`${contents.organizationId} in (select ${organizations.id} from ${organizations} where ${organizations.networkId} = ${networkId} or ${organizations.id} = ${organizationId})`;
  const rows = await db
    .select({ contentKey: contents.contentKey })
    .from(contents)
    .where(and(inList(contents.contentKey, keys), owners));
  return new Set(rows.map((r) => r.contentKey));
}

/** Content keys of a sub-organization (reports scoped by X-Service-MMI-Key). */
export function subOrganizationKeys(scope: ContentScope): SQL {
  return sql`(select ${contents.contentKey} from ${contents} where ${inScope(scope)})`;
}

/** R2 keys and upload ids of every content of an organization (for deleting it). */
export async function organizationObjects(db: Db, organizationId: number) {
  return db
    .select({
      id: contents.id,
      contentKey: contents.contentKey,
      mediaKey: contents.mediaKey,
      uploadId: contents.uploadId,
    })
    .from(contents)
    .where(eq(contents.organizationId, organizationId));
}
