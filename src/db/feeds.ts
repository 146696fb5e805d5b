// Data layer: feed definitions and their publishing state.
import { and, asc, eq, isNotNull, sql } from "drizzle-orm";
import type { ContentScope } from "./catalog";
import { type Db, inList } from "./client";
import type { LabelKind } from "./schema";
import { type Feed, feeds } from "./schema";
import { type FeedLayout, feedLayouts, feedNames } from "./schema-feeds";

export async function listFeeds(db: Db, organizationId: number): Promise<Feed[]> {
  return db
    .select()
    .from(feeds)
    .where(eq(feeds.organizationId, organizationId))
    .orderBy(asc(feeds.id));
}

/**
 * The organization's feeds that list any of these names, and those that list none (they hold
 * every video): found on feed_names by the names, reading the rows of those feeds only.
 */
export async function feedsNaming(
  db: Db,
  organizationId: number,
  names: { kind: LabelKind; name: string }[],
): Promise<Feed[]> {
  const pairs = JSON.stringify(names.map((n) => [n.kind, n.name]));
  const named = sql`select ${feedNames.feedId} from ${feedNames} where ${feedNames.organizationId} = ${organizationId} and ${feedNames.kind} = '*'
    union select ${feedNames.feedId} from ${feedNames} where ${feedNames.organizationId} = ${organizationId}
      and (${feedNames.kind}, ${feedNames.name}) in (select value ->> 0, value ->> 1 from json_each(${pairs}))`;
  return db.select().from(feeds).where(sql`${feeds.id} in (${named})`).orderBy(asc(feeds.id));
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
    // Another definition: the files are rebuilt (a patch keeps the members the layout has).
    .set({
      ...v,
      updatedAt: now,
      dirtySince: now,
      version: sql`${feeds.version} + 1`,
      patchIds: null,
      waitingSince: null,
    })
    .where(eq(feeds.id, id))
    .returning();
  return row!;
}

export async function deleteFeed(db: Db, id: number): Promise<void> {
  await db.delete(feeds).where(eq(feeds.id, id));
}

/**
 * Marks feeds as needing a rebuild of their files from their query, and moves their version on
 * (their public reads change). The mark is the time of the latest change: a rebuild clears it
 * only if it is still the mark it started from, so a change made during a rebuild is not lost.
 */
export async function markFeedsDirty(db: Db, ids: number[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(feeds)
    .set({
      dirtySince: now,
      version: sql`${feeds.version} + 1`,
      patchIds: null,
      waitingSince: null,
    })
    .where(inList(feeds.id, ids));
}

/** Past this many videos waiting in one feed, its next build rebuilds it rather than patch each. */
export const PATCH_IDS_MAX = 100;

/**
 * Marks feeds as needing these videos' entries patched (domain/feeds/patches.ts), and moves their
 * version on, as markFeedsDirty does. A clean feed starts its list (and its wait); a feed already
 * waiting for patches adds the videos to it; a feed waiting for a rebuild stays so, as does one
 * whose list would pass PATCH_IDS_MAX. (SQLite reads the row's values before the update in
 * every SET expression.) Returns how many feeds started waiting with this mark.
 */
export async function markFeedsForPatch(
  db: Db,
  ids: number[],
  contentIds: number[],
  now: string,
): Promise<number> {
  if (ids.length === 0) return 0;
  const list = JSON.stringify([...new Set(contentIds)]);
  const marked = await db
    .update(feeds)
    .set({
      dirtySince: now,
      version: sql`${feeds.version} + 1`,
      patchIds: sql`case
        when ${feeds.dirtySince} is null then json(${list})
        when ${feeds.patchIds} is null then null
        else (select case when count(*) > ${PATCH_IDS_MAX} then null else json_group_array(value) end
              from (select value from json_each(${feeds.patchIds}) union select value from json_each(${list})))
      end`,
      waitingSince: sql`case when ${feeds.dirtySince} is null then ${now} else ${feeds.waitingSince} end`,
    })
    .where(inList(feeds.id, ids))
    .returning({ waitingSince: feeds.waitingSince });
  // Feeds whose wait this mark started (another mark in the same millisecond may count too).
  return marked.filter((f) => f.waitingSince === now).length;
}

/**
 * Records a finished build (full or patched) and the layout of the files it wrote. Clears the
 * dirty mark and the videos waiting unless a newer change marked the feed again; then a feed
 * waiting for patches waits again from now, one waiting for a rebuild does not wait. Ends the
 * lease.
 */
export async function recordFeedBuild(
  db: Db,
  feed: Feed,
  files: Feed["files"],
  builtAt: string,
  layout: FeedLayout,
): Promise<void> {
  const unchanged = sql`${feeds.dirtySince} = ${feed.dirtySince}`;
  await db.batch([
    db
      .update(feeds)
      .set({
        files,
        builtAt,
        buildingUntil: null,
        dirtySince: sql`case when ${unchanged} then null else ${feeds.dirtySince} end`,
        patchIds: sql`case when ${unchanged} then null else ${feeds.patchIds} end`,
        waitingSince: sql`case when ${unchanged} or ${feeds.patchIds} is null then null else ${builtAt} end`,
      })
      .where(eq(feeds.id, feed.id)),
    db
      .insert(feedLayouts)
      .values({ feedId: feed.id, layout })
      .onConflictDoUpdate({ target: feedLayouts.feedId, set: { layout } }),
  ]);
}

/** The layouts of these feeds' files (a feed never built has none). */
export async function feedLayoutsOf(db: Db, ids: number[]): Promise<Map<number, FeedLayout>> {
  const found = new Map<number, FeedLayout>();
  // A layout is up to ~50 KB (1,000 entries): a bounded number per answer.
  for (let i = 0; i < ids.length; i += 50) {
    const rows = await db
      .select()
      .from(feedLayouts)
      .where(inList(feedLayouts.feedId, ids.slice(i, i + 50)));
    for (const r of rows) found.set(r.feedId, r.layout);
  }
  return found;
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

/** Dirty, and not waiting for more patches: a feed waiting for patches since `readyBy` or earlier is due. */
const due = (readyBy: string) =>
  sql`${feeds.dirtySince} is not null and (${feeds.waitingSince} is null or ${feeds.waitingSince} <= ${readyBy})`;

/**
 * Ids of due dirty feeds no rebuild holds, oldest mark first (optionally one organization's).
 * `readyBy`: feeds waiting for patches since then or earlier are due (default: all).
 */
export async function dirtyFeedIds(
  db: Db,
  limit: number,
  now: string,
  organizationId?: number,
  readyBy: string = now,
): Promise<number[]> {
  const rows = await db
    .select({ id: feeds.id })
    .from(feeds)
    .where(
      and(
        due(readyBy),
        unleased(now),
        organizationId === undefined ? undefined : eq(feeds.organizationId, organizationId),
      ),
    )
    .orderBy(asc(feeds.dirtySince))
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * When the organization's next dirty feed no rebuild holds becomes due: the earliest first
 * patch mark among those still waiting (null: none is waiting).
 */
export async function nextPatchWait(
  db: Db,
  now: string,
  organizationId: number,
): Promise<string | null> {
  const [row] = await db
    .select({ first: sql<string | null>`min(${feeds.waitingSince})` })
    .from(feeds)
    .where(
      and(
        isNotNull(feeds.dirtySince),
        isNotNull(feeds.waitingSince),
        unleased(now),
        eq(feeds.organizationId, organizationId),
      ),
    );
  return row?.first ?? null;
}

/** Organizations with due dirty feeds no rebuild holds, the one with the oldest mark first. */
export async function organizationsWithDirtyFeeds(
  db: Db,
  now: string,
  limit: number,
  readyBy: string = now,
): Promise<number[]> {
  const rows = await db
    .select({ organizationId: feeds.organizationId })
    .from(feeds)
    .where(and(due(readyBy), unleased(now)))
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
