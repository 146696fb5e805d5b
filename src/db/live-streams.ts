// Data layer of the worker's side of live streams (schema-live.ts): the key hash ingest checks
// before it reads a body, the count of an organization's running streams, and the recording's
// remux state.
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { contents } from "./schema";
import { liveStreams, type RecordingStatus } from "./schema-live";

export type { RecordingStatus };

export async function insertLiveStream(
  db: Db,
  row: { contentId: number; keyHash: string; createdAt: string },
): Promise<void> {
  await db.insert(liveStreams).values(row);
}

export async function setLiveKeyHash(db: Db, contentId: number, keyHash: string): Promise<void> {
  await db.update(liveStreams).set({ keyHash }).where(eq(liveStreams.contentId, contentId));
}

/** What ingest decides on, by content key (its unique index, then the primary key): null when no live stream is there. */
export interface IngestTarget {
  contentId: number;
  keyHash: string | null;
}

export async function ingestTarget(db: Db, contentKey: string): Promise<IngestTarget | null> {
  const [row] = await db
    .select({ contentId: liveStreams.contentId, keyHash: liveStreams.keyHash })
    .from(contents)
    .innerJoin(liveStreams, eq(liveStreams.contentId, contents.id))
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row ?? null;
}

/** The organization's streams that are not over (idle or live), on contents_live_state_idx. */
export async function runningLiveStreams(db: Db, organizationId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(contents)
    .where(
      and(
        eq(contents.organizationId, organizationId),
        inArray(contents.liveState, ["idle", "live"]),
        sql`live_state is not null`,
      ),
    );
  return Number(row?.n ?? 0);
}

export interface RecordingState {
  status: RecordingStatus;
  reason: string | null;
}

export async function recordingStateOf(db: Db, contentId: number): Promise<RecordingState | null> {
  const [row] = await db
    .select({ status: liveStreams.recordingStatus, reason: liveStreams.recordingReason })
    .from(liveStreams)
    .where(eq(liveStreams.contentId, contentId))
    .limit(1);
  return row?.status ? { status: row.status, reason: row.reason } : null;
}

/**
 * Sets the recording's remux state; `from`: only when it is one of these now (null: never asked).
 * Whether the row changed (one statement decides between two deliveries or a retry and the cron).
 */
export async function setRecordingState(
  db: Db,
  contentId: number,
  state: RecordingState,
  now: string,
  from?: (RecordingStatus | null)[],
): Promise<boolean> {
  const statuses = from?.filter((s): s is RecordingStatus => s !== null) ?? [];
  const guard =
    from === undefined
      ? undefined
      : from.includes(null)
        ? sql`(${liveStreams.recordingStatus} is null or ${liveStreams.recordingStatus} in (${sql.join(
            statuses.map((s) => sql`${s}`),
            sql`, `,
          )}))`
        : inArray(liveStreams.recordingStatus, statuses);
  const changed = await db
    .update(liveStreams)
    .set({ recordingStatus: state.status, recordingReason: state.reason, recordingUpdatedAt: now })
    .where(and(eq(liveStreams.contentId, contentId), guard))
    .returning({ contentId: liveStreams.contentId });
  return changed.length > 0;
}

/** A pending remux made progress (a delivery started): the cron's bound starts again. */
export async function touchRecording(db: Db, contentId: number, now: string): Promise<void> {
  await db
    .update(liveStreams)
    .set({ recordingUpdatedAt: now })
    .where(and(eq(liveStreams.contentId, contentId), eq(liveStreams.recordingStatus, "pending")));
}

/** Remuxes pending since before `before` (the partial index), oldest first. */
export async function stalledRecordings(
  db: Db,
  before: string,
  limit: number,
): Promise<{ contentId: number; contentKey: string }[]> {
  return db
    .select({ contentId: liveStreams.contentId, contentKey: contents.contentKey })
    .from(liveStreams)
    .innerJoin(contents, eq(contents.id, liveStreams.contentId))
    .where(
      and(eq(liveStreams.recordingStatus, "pending"), lt(liveStreams.recordingUpdatedAt, before)),
    )
    .orderBy(asc(liveStreams.recordingUpdatedAt))
    .limit(limit);
}
