// Data layer for the catalog read paths (E6, E13–E16, feeds): listing, counting, name lookups.
import { and, desc, eq, getTableColumns, inArray, or, sql, type SQL } from "drizzle-orm";
import { chunkRows, inList, type Db } from "./client";
import { contentsFts } from "./fts";
import { contents, feeds, labels, listingCounts, organizations, syndications, type Content, type LabelKind, type Syndication } from "./schema";

/**
 * Listable = published and not removed. Written with literals, not bound parameters, so SQLite
 * can prove it implies the partial indexes' WHERE clause and use them.
 */
export const LISTABLE: SQL = sql`${contents.status} = 'available' and ${contents.removed} = 0`;

export const NEWEST_FIRST = [desc(contents.publishedAt), desc(contents.id)];

export async function listVideos(db: Db, where: SQL, page: { limit: number; offset: number }): Promise<Content[]> {
  return db
    .select()
    .from(contents)
    .where(where)
    .orderBy(...NEWEST_FIRST)
    .limit(page.limit)
    .offset(page.offset);
}

/**
 * A page and the total number of matches in one pass (`count(*) over ()`): when the page query
 * has to read every match anyway (to sort it), a separate count would read them all again.
 * The total is null when the page is empty (past the end), where it cannot be read off a row.
 */
export async function listVideosWithTotal(db: Db, where: SQL, page: { limit: number; offset: number }) {
  const rows = await db
    .select({ ...getTableColumns(contents), total: sql<number>`count(*) over ()`.as("total") })
    .from(contents)
    .where(where)
    .orderBy(...NEWEST_FIRST)
    .limit(page.limit)
    .offset(page.offset);
  const total = rows[0] ? Number(rows[0].total) : null;
  return { rows: rows.map(({ total: _, ...content }) => content as Content), total };
}

export async function countVideos(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(contents).where(where);
  return Number(row?.n ?? 0);
}

/** Listable videos of an organization (or one sub-organization), from the trigger-kept counter. */
export async function listableCount(db: Db, organizationId: number, subOrganizationId: number | null): Promise<number> {
  const [row] = await db
    .select({ videos: listingCounts.videos })
    .from(listingCounts)
    .where(and(eq(listingCounts.organizationId, organizationId), eq(listingCounts.subOrganizationId, subOrganizationId ?? 0)));
  return row?.videos ?? 0;
}

export interface NameQuery {
  kind: LabelKind;
  names: string[];
}

/** Label ids by kind and name, across the given organizations (names are per organization). */
export async function findLabelIds(
  db: Db,
  organizationIds: number[],
  queries: NameQuery[],
): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  const pairs = queries.flatMap((q) => [...new Set(q.names)].map((name) => ({ kind: q.kind, name })));
  if (pairs.length === 0) return found;
  for (const chunk of chunkRows(pairs, 2, 90)) {
    const byKind = new Map<LabelKind, string[]>();
    for (const p of chunk) byKind.set(p.kind, [...(byKind.get(p.kind) ?? []), p.name]);
    const rows = await db
      .select({ id: labels.id, kind: labels.kind, name: labels.name })
      .from(labels)
      .where(
        and(
          inList(labels.organizationId, organizationIds),
          or(...[...byKind].map(([kind, names]) => and(eq(labels.kind, kind), inArray(labels.name, names)))),
        ),
      );
    for (const r of rows) {
      const key = labelKey(r.kind, r.name);
      found.set(key, [...(found.get(key) ?? []), r.id]);
    }
  }
  return found;
}

/** Listable videos carrying the label (labels.videos, kept by triggers). */
export async function labelVideoCount(db: Db, labelId: number): Promise<number> {
  const [row] = await db.select({ videos: labels.videos }).from(labels).where(eq(labels.id, labelId));
  return row?.videos ?? 0;
}

export const labelKey = (kind: LabelKind, name: string) => `${kind}\u0000${name}`;

/** Ids of the other organizations of a network. */
export async function networkPeers(db: Db, networkId: number, exceptOrganizationId: number): Promise<number[]> {
  const rows = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.networkId, networkId), sql`${organizations.id} <> ${exceptOrganizationId}`));
  return rows.map((r) => r.id);
}

export async function syndicationsOf(db: Db, contentIds: number[]): Promise<Map<number, Syndication[]>> {
  const byContent = new Map<number, Syndication[]>();
  if (contentIds.length === 0) return byContent;
  const rows = await db.select().from(syndications).where(inList(syndications.contentId, contentIds)).orderBy(syndications.startTime);
  for (const r of rows) byContent.set(r.contentId, [...(byContent.get(r.contentId) ?? []), r]);
  return byContent;
}

export async function findFeedByFeedId(db: Db, feedId: string) {
  const [row] = await db.select().from(feeds).where(eq(feeds.feedId, feedId)).limit(1);
  return row ?? null;
}

/** Rows of an FTS5 match, as a condition on contents.id. */
export function ftsMatch(query: string): SQL {
  return sql`${contents.id} in (select rowid from ${contentsFts} where ${contentsFts} match ${query})`;
}

/** Text search ranked by relevance (bm25), then newest. */
export async function searchVideos(
  db: Db,
  ftsQuery: string,
  where: SQL,
  page: { limit: number; offset: number },
): Promise<Content[]> {
  return db
    .select(getTableColumns(contents))
    .from(contentsFts)
    .innerJoin(contents, eq(contents.id, contentsFts.rowid))
    .where(and(sql`${contentsFts} match ${ftsQuery}`, where))
    .orderBy(contentsFts.rank, ...NEWEST_FIRST)
    .limit(page.limit)
    .offset(page.offset);
}

/** Videos with a syndication window that opened or closed in (since, until]. */
export async function videosWithWindowChanges(db: Db, since: string, until: string) {
  const changed = sql`(${syndications.startTime} > ${since} and ${syndications.startTime} <= ${until})
    or (${syndications.stopTime} > ${since} and ${syndications.stopTime} <= ${until})`;
  return db
    .selectDistinct({
      organizationId: contents.organizationId,
      categories: contents.categories,
      tags: contents.tags,
      events: contents.events,
    })
    .from(syndications)
    .innerJoin(contents, eq(contents.id, syndications.contentId))
    .where(changed);
}
