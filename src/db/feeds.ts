// Data layer: feed definitions and their publishing state.
import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import type { ContentScope } from "./catalog";
import { inList, type Db } from "./client";
import { feeds, type Feed } from "./schema";

export async function listFeeds(db: Db, organizationId: number): Promise<Feed[]> {
  return db
    .select()
    .from(feeds)
    .where(eq(feeds.organizationId, organizationId))
    .orderBy(asc(feeds.id));
}

export async function findFeedByFeedId(db: Db, feedId: string): Promise<Feed | null> {
  const [row] = await db.select().from(feeds).where(eq(feeds.feedId, feedId)).limit(1);
  return row ?? null;
}

/**
 * The feeds a caller manages, as content is scoped (catalog.ts#inScope): the organization's
 * credentials all of them, a sub-organization's only its own.
 */
function managedBy(scope: ContentScope) {
  return and(
    eq(feeds.organizationId, scope.organizationId),
    scope.subOrganizationId === null
      ? undefined
      : eq(feeds.subOrganizationId, scope.subOrganizationId),
  );
}

export async function feedsIn(db: Db, scope: ContentScope): Promise<Feed[]> {
  return db.select().from(feeds).where(managedBy(scope)).orderBy(asc(feeds.id));
}

export async function findFeedIn(
  db: Db,
  scope: ContentScope,
  feedId: string,
): Promise<Feed | null> {
  const [row] = await db
    .select()
    .from(feeds)
    .where(and(eq(feeds.feedId, feedId), managedBy(scope)))
    .limit(1);
  return row ?? null;
}

export type FeedValues = Pick<Feed, "name" | "categories" | "tags" | "events">;

/** A feed of the scope: created with a sub-organization's credentials, it is that sub-organization's. */
export async function insertFeed(
  db: Db,
  scope: ContentScope,
  feedId: string,
  v: FeedValues,
  now: string,
): Promise<Feed> {
  const [row] = await db
    .insert(feeds)
    .values({
      feedId,
      organizationId: scope.organizationId,
      subOrganizationId: scope.subOrganizationId,
      ...v,
      createdAt: now,
      updatedAt: now,
      dirtySince: now,
    })
    .returning();
  return row!;
}

export async function updateFeed(db: Db, id: number, v: FeedValues, now: string): Promise<Feed> {
  const [row] = await db
    .update(feeds)
    .set({ ...v, updatedAt: now, dirtySince: now, version: sql`${feeds.version} + 1` })
    .where(eq(feeds.id, id))
    .returning();
  return row!;
}

export async function deleteFeed(db: Db, id: number): Promise<void> {
  await db.delete(feeds).where(eq(feeds.id, id));
}

/**
 * Marks feeds as needing a rebuild, and moves their version on (their public reads change). The
 * mark is the time of the latest change: a rebuild clears it only if it is still the mark it
 * started from, so a change made during a rebuild is not lost.
 */
export async function markFeedsDirty(db: Db, ids: number[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(feeds)
    .set({ dirtySince: now, version: sql`${feeds.version} + 1` })
    .where(inList(feeds.id, ids));
}

/** Records a finished rebuild; clears the dirty mark unless a newer change marked it again, and the lease. */
export async function recordFeedBuild(
  db: Db,
  feed: Feed,
  files: Feed["files"],
  builtAt: string,
): Promise<void> {
  await db
    .update(feeds)
    .set({
      files,
      builtAt,
      buildingUntil: null,
      dirtySince:
        feed.dirtySince === null
          ? null
          : sql`case when ${feeds.dirtySince} = ${feed.dirtySince} then null else ${feeds.dirtySince} end`,
    })
    .where(eq(feeds.id, feed.id));
}

/** Feeds in id order after `afterId` (the cron's reconcile cursor). */
export async function feedsAfter(db: Db, afterId: number, limit: number): Promise<Feed[]> {
  return db
    .select()
    .from(feeds)
    .where(sql`${feeds.id} > ${afterId}`)
    .orderBy(asc(feeds.id))
    .limit(limit);
}

const unleased = (now: string) =>
  sql`(${feeds.buildingUntil} is null or ${feeds.buildingUntil} <= ${now})`;

/** Ids of dirty feeds no rebuild holds, oldest mark first (optionally one organization's). */
export async function dirtyFeedIds(
  db: Db,
  limit: number,
  now: string,
  organizationId?: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: feeds.id })
    .from(feeds)
    .where(
      and(
        isNotNull(feeds.dirtySince),
        unleased(now),
        organizationId === undefined ? undefined : eq(feeds.organizationId, organizationId),
      ),
    )
    .orderBy(asc(feeds.dirtySince))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Organizations with dirty feeds no rebuild holds, the one with the oldest mark first. */
export async function organizationsWithDirtyFeeds(
  db: Db,
  now: string,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .select({ organizationId: feeds.organizationId })
    .from(feeds)
    .where(and(isNotNull(feeds.dirtySince), unleased(now)))
    .groupBy(feeds.organizationId)
    .orderBy(sql`min(${feeds.dirtySince})`)
    .limit(limit);
  return rows.map((r) => r.organizationId);
}

/** Gives back the lease on feeds a rebuild took but did not build (only its own lease). */
export async function releaseFeeds(db: Db, ids: number[], leaseUntil: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(feeds)
    .set({ buildingUntil: null })
    .where(and(inList(feeds.id, ids), eq(feeds.buildingUntil, leaseUntil)));
}

/**
 * Takes a lease on the feeds (until `leaseUntil`) that no other rebuild holds, atomically, and
 * returns them in id order: of two overlapping runs, each feed is rebuilt by one.
 */
export async function claimFeeds(
  db: Db,
  ids: number[],
  now: string,
  leaseUntil: string,
): Promise<Feed[]> {
  if (ids.length === 0) return [];
  const claimed = await db
    .update(feeds)
    .set({ buildingUntil: leaseUntil })
    .where(and(inList(feeds.id, ids), unleased(now)))
    .returning();
  return claimed.sort((a, b) => a.id - b.id);
}
