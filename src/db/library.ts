// Data layer of the console's library: every content of an organization whatever its status
// (E6 lists only published videos), newest first or by title, duration or publication, paged by
// keys rather than offsets so page 1,000 costs what page 1 does (contents_library_*_idx).
import { and, asc, desc, eq, isNotNull, or, type SQL, sql } from "drizzle-orm";
import type { LibrarySort, LiveState } from "../shared/vocabulary";
import { type ContentScope, carriesAnyLabel, inScope, LISTABLE } from "./catalog";
import { type Db, inList } from "./client";
import { ftsIds, prefixQuery, scopedExpression } from "./fts";
import {
  type Content,
  type ContentStatus,
  contentLabels,
  contents,
  type LabelKind,
  labels,
} from "./schema";
import { spokenContentIds } from "./transcripts";

/**
 * The library's orders, each on an index of its own (schema.ts, contents_library_*_idx) and with
 * the id as tie-breaker, so that any page reads only its own rows. Content without a duration
 * or a publication (uploading, rejected) sorts as -1 / "" rather than NULL, which a row-value
 * comparison could not page past.
 */
export const LIBRARY_ORDERS: Record<LibrarySort, SQL> = {
  created: sql`${contents.createdAt}`,
  title: sql`lower(${contents.title})`,
  duration: sql`coalesce(${contents.duration}, -1)`,
  published: sql`coalesce(${contents.publishedAt}, '')`,
};

/** Where a page starts: after the row with this sort value and id. */
export interface LibraryKey {
  value: string | number;
  id: number;
}

export interface LibraryQuery {
  contentKey?: string;
  status?: ContentStatus;
  /** Live streams only (any state, or one): their partial indexes (contents_live_*idx). */
  live?: LiveState | "any";
  /** Words of the title or description (the last one a prefix), or a content key. */
  search?: string;
  /** The search finds words said in the videos too (their caption tracks' passages). */
  spoken?: boolean;
  /**
   * For each group, the content carries one of its label ids (one group per name filter).
   * `walk`: check each row met while walking the listing index (a name most content carries,
   * so a page is found after a few rows); otherwise read the name's rows first (a rare name).
   */
  labelGroups?: { ids: number[]; walk: boolean }[];
  sort: LibrarySort;
  descending: boolean;
  after?: LibraryKey;
  limit: number;
}

/** The content carries one of the labels: one probe of content_labels' key per content row. */
function carriesAnyLabelProbe(labelIds: number[]): SQL {
  return sql`exists (select 1 from ${contentLabels} where ${contentLabels.contentId} = ${contents.id} and ${inList(contentLabels.labelId, labelIds)})`;
}

/**
 * The search of the library: a content key, or words of the title or description (the last a
 * prefix). The text index holds listable videos only (what E6, E13 and E14 search), so content
 * that is not listable (uploading, rejected, expired, removed) is matched on its title instead.
 */
function matchesSearch(scope: ContentScope, term: string, spoken: boolean): SQL {
  const byKey = eq(contents.contentKey, term);
  const unlisted = sql`not (${LISTABLE}) and instr(lower(${contents.title}), ${term.toLowerCase()}) > 0`;
  const query = prefixQuery(term);
  if (!query) return or(byKey, unlisted)!;
  return or(
    sql`${contents.id} in (${ftsIds(scopedExpression(scope, query))})`,
    spoken ? sql`${contents.id} in (${spokenContentIds(scope, query)})` : undefined,
    byKey,
    unlisted,
  )!;
}

/** A page of the library: each content with its sort value (the next page's cursor). */
export async function listLibrary(
  db: Db,
  scope: ContentScope,
  q: LibraryQuery,
): Promise<{ content: Content; sortValue: string | number }[]> {
  const order = LIBRARY_ORDERS[q.sort];
  const conditions: (SQL | undefined)[] = [
    inScope(scope),
    q.contentKey ? eq(contents.contentKey, q.contentKey) : undefined,
    q.status ? eq(contents.status, q.status) : undefined,
    q.live === "any" ? isNotNull(contents.liveState) : undefined,
    q.live && q.live !== "any" ? eq(contents.liveState, q.live) : undefined,
    q.search ? matchesSearch(scope, q.search, q.spoken ?? false) : undefined,
    ...(q.labelGroups ?? []).map((g) =>
      g.walk ? carriesAnyLabelProbe(g.ids) : carriesAnyLabel(g.ids),
    ),
    // A row value comparison: SQLite turns it into a range of the index.
    q.after
      ? sql`(${order}, ${contents.id}) ${sql.raw(q.descending ? "<" : ">")} (${q.after.value}, ${q.after.id})`
      : undefined,
  ];
  const direction = q.descending ? desc : asc;
  return db
    .select({ content: contents, sortValue: sql<string | number>`${order}`.as("sort_value") })
    .from(contents)
    .where(and(...conditions))
    .orderBy(direction(order), direction(contents.id))
    .limit(q.limit);
}

/** The organization's category, tag and event names with their published videos, by kind and name. */
/**
 * The names a scope uses and how many of its listable videos carry each: the organization's from
 * the labels' own counters; a sub-organization's from its videos' links (names only the parent
 * or another sub-organization uses are not its own).
 */
export async function listLabelNames(
  db: Db,
  scope: ContentScope,
): Promise<{ kind: LabelKind; name: string; videos: number }[]> {
  if (scope.subOrganizationId === null) {
    return db
      .select({ kind: labels.kind, name: labels.name, videos: labels.videos })
      .from(labels)
      .where(eq(labels.organizationId, scope.organizationId))
      .orderBy(asc(labels.kind), asc(labels.name));
  }
  return db
    .select({
      kind: labels.kind,
      name: labels.name,
      videos: sql<number>`count(*) filter (where ${contentLabels.listable})`.mapWith(Number),
    })
    .from(contents)
    .innerJoin(contentLabels, eq(contentLabels.contentId, contents.id))
    .innerJoin(labels, eq(labels.id, contentLabels.labelId))
    .where(inScope(scope))
    .groupBy(labels.id)
    .orderBy(asc(labels.kind), asc(labels.name));
}
