// Data layer of the feed publisher's shared pass (domain/feeds/publisher.ts): one walk of an
// organization's published videos with just the names membership is judged by, then each
// needed record fetched once by id, however many feeds list it.
import { and, desc, eq, sql } from "drizzle-orm";
import { LISTABLE } from "./catalog";
import { type Db, inList } from "./client";
import { type Content, contents } from "./schema";
import { publishedByWindows } from "./syndications";
import { selectRows } from "./table-rows";

/** A published video as feed membership sees it, plus its place in the newest-first order. */
export type VideoNamesRow = Pick<
  Content,
  "id" | "publishedAt" | "subOrganizationId" | "categories" | "tags" | "events"
>;

/**
 * The organization's videos a feed may publish at `now` (listable, no syndication window or
 * one open then), newest first, after `after` (keyset paging on the listing index).
 */
export async function publishedVideoNames(
  db: Db,
  organizationId: number,
  now: string,
  after: Pick<Content, "id" | "publishedAt"> | null,
  limit: number,
): Promise<VideoNamesRow[]> {
  // Listable videos always have published_at (set when they become available). The `<=` is
  // the index range: with the OR alone and bound values, SQLite scans from the newest video on
  // every page (37,926 rows read for a page of 2,000 at 100k videos, not 2,000).
  const keyset =
    after === null || after.publishedAt === null
      ? undefined
      : sql`${contents.publishedAt} <= ${after.publishedAt} and (${contents.publishedAt} < ${after.publishedAt} or ${contents.id} < ${after.id})`;
  return db
    .select({
      id: contents.id,
      publishedAt: contents.publishedAt,
      subOrganizationId: contents.subOrganizationId,
      categories: contents.categories,
      tags: contents.tags,
      events: contents.events,
    })
    .from(contents)
    .where(
      and(LISTABLE, eq(contents.organizationId, organizationId), keyset, publishedByWindows(now)),
    )
    .orderBy(desc(contents.publishedAt), desc(contents.id))
    .limit(limit);
}

/**
 * These videos' records, still listable (in no particular order); with `publishable`, only
 * those a feed of that organization may publish at that time (no syndication window, or one
 * open then).
 */
export async function listableContentsByIds(
  db: Db,
  ids: number[],
  publishable?: { organizationId: number; now: string },
): Promise<Content[]> {
  if (ids.length === 0) return [];
  return selectRows(
    db,
    contents,
    db
      .select()
      .from(contents)
      .where(
        and(
          LISTABLE,
          inList(contents.id, ids),
          publishable && eq(contents.organizationId, publishable.organizationId),
          publishable && publishedByWindows(publishable.now),
        ),
      ),
  );
}
