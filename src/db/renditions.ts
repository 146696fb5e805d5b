// Data layer of the rendition ladder: each video's rungs and their state, and the ladders
// organizations chose (domain/renditions.ts decides; docs/renditions.md).
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { contents } from "./schema";
import {
  type Rendition,
  type RenditionStatus,
  renditionLadders,
  renditions,
} from "./schema-renditions";

export type { Rendition, RenditionStatus };

/** The video's rungs, highest first. */
export async function renditionsOf(db: Db, contentId: number): Promise<Rendition[]> {
  return db
    .select()
    .from(renditions)
    .where(eq(renditions.contentId, contentId))
    .orderBy(sql`${renditions.height} DESC`);
}

export async function findRendition(
  db: Db,
  contentId: number,
  name: string,
): Promise<Rendition | null> {
  const [row] = await db
    .select()
    .from(renditions)
    .where(and(eq(renditions.contentId, contentId), eq(renditions.name, name)))
    .limit(1);
  return row ?? null;
}

/**
 * Records the planned rungs as pending; rungs already recorded are kept as they are. The names
 * of the rungs recorded now (a second planning records none, so queues no job twice).
 */
export async function insertPendingRenditions(
  db: Db,
  rows: Omit<
    Rendition,
    | "status"
    | "reason"
    | "peakBitrate"
    | "averageBitrate"
    | "codecs"
    | "ladderNotified"
    | "updatedAt"
  >[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insert(renditions)
    .values(rows.map((r) => ({ ...r, updatedAt: r.createdAt })))
    .onConflictDoNothing()
    .returning({ name: renditions.name });
  return inserted.map((r) => r.name);
}

/** Forgets pending rungs whose jobs were not queued, so that the next planning queues them. */
export async function deletePendingRenditions(
  db: Db,
  contentId: number,
  names: string[],
): Promise<void> {
  if (names.length === 0) return;
  await db
    .delete(renditions)
    .where(
      and(
        eq(renditions.contentId, contentId),
        inArray(renditions.name, names),
        eq(renditions.status, "pending"),
      ),
    );
}

/**
 * Marks a pending rung ready (with its measured bit rates) or failed (with the reason); the row
 * as it is now, or null when it was not pending (another job finished it first).
 */
export async function finishRendition(
  db: Db,
  contentId: number,
  name: string,
  outcome:
    | { status: "ready"; peakBitrate: number; averageBitrate: number; codecs: string }
    | { status: "failed"; reason: string },
  now: string,
): Promise<Rendition | null> {
  const [row] = await db
    .update(renditions)
    .set({ ...outcome, updatedAt: now })
    .where(
      and(
        eq(renditions.contentId, contentId),
        eq(renditions.name, name),
        eq(renditions.status, "pending"),
      ),
    )
    .returning();
  return row ?? null;
}

/** A job of the pending rung started or stored its chunk: the cron's bound starts again. */
export async function touchRendition(
  db: Db,
  contentId: number,
  name: string,
  now: string,
): Promise<void> {
  await db
    .update(renditions)
    .set({ updatedAt: now })
    .where(
      and(
        eq(renditions.contentId, contentId),
        eq(renditions.name, name),
        eq(renditions.status, "pending"),
      ),
    );
}

/**
 * Pending rungs no job of which started or finished since `before` (renditions_status_idx),
 * oldest first, with their video's key.
 */
export async function stalledRenditions(
  db: Db,
  before: string,
  limit: number,
): Promise<{ contentId: number; contentKey: string; name: string }[]> {
  return db
    .select({
      contentId: renditions.contentId,
      contentKey: contents.contentKey,
      name: renditions.name,
    })
    .from(renditions)
    .innerJoin(contents, eq(contents.id, renditions.contentId))
    .where(and(eq(renditions.status, "pending"), lt(renditions.updatedAt, before)))
    .orderBy(asc(renditions.updatedAt))
    .limit(limit);
}

/**
 * Whether this caller is the one to announce the video's ladder complete: true once, when no
 * rung is pending any more (one statement, so two jobs finishing together cannot both see it).
 */
export async function claimLadderComplete(db: Db, contentId: number): Promise<boolean> {
  const claimed = await db
    .update(renditions)
    .set({ ladderNotified: true })
    .where(
      and(
        eq(renditions.contentId, contentId),
        eq(renditions.ladderNotified, false),
        sql`NOT EXISTS (SELECT 1 FROM ${renditions} r WHERE r.content_id = ${contentId} AND r.status = 'pending')`,
      ),
    )
    .returning({ name: renditions.name });
  return claimed.length > 0;
}

/**
 * The video's record changed what its stream answers (a variant appeared): its revision moves,
 * and with it the edge-cache keys of its master playlist and manifest (middleware/cache-policies.ts).
 */
export async function touchContent(db: Db, contentId: number, now: string): Promise<void> {
  await db.update(contents).set({ updatedAt: now }).where(eq(contents.id, contentId));
}

/** The organization's ladder, or null for the service's default. */
export async function ladderOf(
  db: Db,
  organizationId: number,
): Promise<{ height: number; bitrate: number }[] | null> {
  const [row] = await db
    .select({ rungs: renditionLadders.rungs })
    .from(renditionLadders)
    .where(eq(renditionLadders.organizationId, organizationId))
    .limit(1);
  return row?.rungs ?? null;
}

/** Sets the organization's ladder; null goes back to the default. */
export async function setLadder(
  db: Db,
  organizationId: number,
  rungs: { height: number; bitrate: number }[] | null,
  now: string,
): Promise<void> {
  if (rungs === null) {
    await db.delete(renditionLadders).where(eq(renditionLadders.organizationId, organizationId));
    return;
  }
  await db
    .insert(renditionLadders)
    .values({ organizationId, rungs, updatedAt: now })
    .onConflictDoUpdate({
      target: renditionLadders.organizationId,
      set: { rungs, updatedAt: now },
    });
}

/**
 * A failed rung pending again, as the ladder plans it now (size, bit rate, chunks); the row, or
 * null when it was not failed (another retry took it first): one statement decides.
 */
export async function retryFailedRendition(
  db: Db,
  contentId: number,
  name: string,
  plan: { width: number; height: number; bitrate: number; chunks: number },
  now: string,
): Promise<Rendition | null> {
  const [row] = await db
    .update(renditions)
    .set({
      ...plan,
      status: "pending",
      reason: null,
      peakBitrate: null,
      averageBitrate: null,
      codecs: null,
      updatedAt: now,
    })
    .where(
      and(
        eq(renditions.contentId, contentId),
        eq(renditions.name, name),
        eq(renditions.status, "failed"),
      ),
    )
    .returning();
  return row ?? null;
}

/** The ladder's completion is announced again once the retried rungs finish. */
export async function rearmLadderComplete(db: Db, contentId: number): Promise<void> {
  await db
    .update(renditions)
    .set({ ladderNotified: false })
    .where(eq(renditions.contentId, contentId));
}
