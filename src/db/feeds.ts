// Data layer: feed definitions and their publishing state.
import { and, asc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "./client";
import { feeds, type Feed } from "./schema";

export async function listFeeds(db: Db, organizationId: number): Promise<Feed[]> {
  return db.select().from(feeds).where(eq(feeds.organizationId, organizationId)).orderBy(asc(feeds.id));
}

export async function findOwnFeed(db: Db, organizationId: number, feedId: string): Promise<Feed | null> {
  const [row] = await db
    .select()
    .from(feeds)
    .where(and(eq(feeds.feedId, feedId), eq(feeds.organizationId, organizationId)))
    .limit(1);
  return row ?? null;
}

export type FeedValues = Pick<Feed, "name" | "categories" | "tags" | "events">;

export async function insertFeed(db: Db, organizationId: number, feedId: string, v: FeedValues, now: string): Promise<Feed> {
  const [row] = await db
    .insert(feeds)
    .values({ feedId, organizationId, ...v, createdAt: now, updatedAt: now, dirtySince: now })
    .returning();
  return row!;
}

export async function updateFeed(db: Db, id: number, v: FeedValues, now: string): Promise<Feed> {
  const [row] = await db.update(feeds).set({ ...v, updatedAt: now, dirtySince: now }).where(eq(feeds.id, id)).returning();
  return row!;
}

export async function deleteFeed(db: Db, id: number): Promise<void> {
  await db.delete(feeds).where(eq(feeds.id, id));
}

/** Marks feeds as needing a rebuild (keeps the earliest mark so no change is missed). */
export async function markFeedsDirty(db: Db, ids: number[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(feeds)
    .set({ dirtySince: sql`coalesce(${feeds.dirtySince}, ${now})` })
    .where(inArray(feeds.id, ids));
}

export async function dirtyFeeds(db: Db, limit: number): Promise<Feed[]> {
  return db.select().from(feeds).where(isNotNull(feeds.dirtySince)).orderBy(asc(feeds.dirtySince)).limit(limit);
}
