// Data layer of the catalog read paths: the listing order, counters, name lookups, and the
// SQL building blocks every read composes (scope, names, custom fields, text).
import { and, desc, eq, getTableColumns, or, sql, type SQL } from "drizzle-orm";
import { inList, type Db } from "./client";
import { contentsFts } from "./fts";
import { contentCustomFields, contentLabels, contents, labels, listingCounts, organizations, type Content, type LabelKind } from "./schema";

/**
 * Listable = published and not removed. Written with literals, not bound parameters, so SQLite
 * can prove it implies the partial indexes' WHERE clause and use them.
 */
export const LISTABLE: SQL = sql`${contents.status} = 'available' and ${contents.removed} = 0`;

export const NEWEST_FIRST = [desc(contents.publishedAt), desc(contents.id)];

/** Matches nothing. */
export const NOTHING: SQL = sql`0`;

export interface Page {
  limit: number;
  offset: number;
}

/** Whose content: an organization, or one of its sub-organizations. */
export interface ContentScope {
  organizationId: number;
  /** When set, only this sub-organization's content. */
  subOrganizationId: number | null;
}

export function inScope(scope: ContentScope): SQL {
  return and(
    eq(contents.organizationId, scope.organizationId),
    scope.subOrganizationId === null ? undefined : eq(contents.subOrganizationId, scope.subOrganizationId),
  )!;
}

export async function listVideos(db: Db, where: SQL, page: Page): Promise<Content[]> {
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
export async function listVideosWithTotal(db: Db, where: SQL, page: Page) {
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
export async function listableCount(db: Db, scope: ContentScope): Promise<number> {
  const [row] = await db
    .select({ videos: listingCounts.videos })
    .from(listingCounts)
    .where(and(eq(listingCounts.organizationId, scope.organizationId), eq(listingCounts.subOrganizationId, scope.subOrganizationId ?? 0)));
  return row?.videos ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Names (categories, tags, events)

export interface NameRef {
  kind: LabelKind;
  name: string;
}

/** Every group must hold; within a group, any of its names. */
export type NameGroups = NameRef[][];

export const labelKey = (kind: LabelKind, name: string) => `${kind}\u0000${name}`;

/** Label ids by kind and name across the given organizations (names are per organization), one query. */
export async function findLabelIds(db: Db, organizationIds: number[], names: NameRef[]): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  const wanted = [...new Map(names.map((n) => [labelKey(n.kind, n.name), n])).values()];
  if (wanted.length === 0) return found;
  // (kind, name) pairs as one JSON parameter: any number of names in one statement.
  const pairs = JSON.stringify(wanted.map((n) => [n.kind, n.name]));
  const rows = await db
    .select({ id: labels.id, kind: labels.kind, name: labels.name })
    .from(labels)
    .where(
      and(
        inList(labels.organizationId, organizationIds),
        sql`(${labels.kind}, ${labels.name}) in (select value ->> 0, value ->> 1 from json_each(${pairs}))`,
      ),
    );
  for (const r of rows) {
    const key = labelKey(r.kind, r.name);
    found.set(key, [...(found.get(key) ?? []), r.id]);
  }
  return found;
}

/** Listable videos carrying the label (labels.videos, kept by triggers). */
export async function labelVideoCount(db: Db, labelId: number): Promise<number> {
  const [row] = await db.select({ videos: labels.videos }).from(labels).where(eq(labels.id, labelId));
  return row?.videos ?? 0;
}

/** The video carries one of these labels: an index lookup by label id. */
export function carriesAnyLabel(labelIds: number[]): SQL {
  if (labelIds.length === 0) return NOTHING;
  return sql`${contents.id} in (select ${contentLabels.contentId} from ${contentLabels} where ${inList(contentLabels.labelId, labelIds)})`;
}

/**
 * The video carries a name of every group (any name within a group), with ids from
 * findLabelIds. One statement and two bound parameters however many names and groups: the
 * (label id, group) pairs travel as one JSON array, and a video qualifies when its labels hit
 * every group.
 */
export function namesCondition(groups: NameGroups, ids: Map<string, number[]>): SQL | undefined {
  if (groups.length === 0) return undefined;
  const pairs = groups.map((group) => [...new Set(group.flatMap((n) => ids.get(labelKey(n.kind, n.name)) ?? []))]);
  // A group no name of which exists matches nothing.
  if (pairs.some((labelIds) => labelIds.length === 0)) return NOTHING;
  if (pairs.length === 1) return carriesAnyLabel(pairs[0]!);
  const json = JSON.stringify(pairs.flatMap((labelIds, group) => labelIds.map((id) => [id, group])));
  return sql`${contents.id} in (select ${contentLabels.contentId} from json_each(${json}) j
    join ${contentLabels} on ${contentLabels.labelId} = j.value ->> 0
    group by ${contentLabels.contentId} having count(distinct j.value ->> 1) = ${pairs.length})`;
}

// ---------------------------------------------------------------------------------------------
// Custom fields and text

export interface CustomFieldFilter {
  name: string;
  /** Every group must hold; within a group, any value (values compared as strings). */
  values: string[][];
}

/**
 * Every filter must hold (all its groups; any value within a group). Like namesCondition, one
 * statement with the (name, value, group) triples as one JSON parameter.
 */
export function customFieldsCondition(organizationIds: number[], filters: CustomFieldFilter[]): SQL | undefined {
  const groups = filters.flatMap((f) => f.values.map((values) => ({ name: f.name, values })));
  if (groups.length === 0) return undefined;
  const json = JSON.stringify(groups.flatMap((g, i) => g.values.map((v) => [g.name, v, i])));
  return sql`${contents.id} in (select ${contentCustomFields.contentId} from json_each(${json}) j
    join ${contentCustomFields} on ${inList(contentCustomFields.organizationId, organizationIds)}
      and ${contentCustomFields.name} = j.value ->> 0 and ${contentCustomFields.value} = j.value ->> 1
    group by ${contentCustomFields.contentId} having count(distinct j.value ->> 2) = ${groups.length})`;
}

/** Rows of an FTS5 match, as a condition on contents.id. */
export function ftsMatch(query: string): SQL {
  return sql`${contents.id} in (select rowid from ${contentsFts} where ${contentsFts} match ${query})`;
}

const words = (term: string) => term.match(/[\p{L}\p{N}]+/gu);

/** FTS5 query for one search term: every word must appear, the last one as a prefix. */
export function ftsPrefixQuery(term: string): string | null {
  const w = words(term);
  return w ? w.map((word, i) => `"${word}"${i === w.length - 1 ? "*" : ""}`).join(" ") : null;
}

/** FTS5 phrase query for a whole word or phrase (no prefix). */
export function ftsPhraseQuery(term: string): string | null {
  const w = words(term);
  return w ? `"${w.join(" ")}"` : null;
}

/**
 * E6 searchString: every group must match; a term matches title/description words (prefix) or
 * the content key. Each group is one FTS5 expression (its terms ORed) and one key list: two
 * bound parameters per group.
 */
export function textCondition(groups: string[][]): SQL | undefined {
  if (groups.length === 0) return undefined;
  return and(
    ...groups.map((group) => {
      const fts = group.map(ftsPrefixQuery).filter((q): q is string => q !== null);
      const byKey = inList(contents.contentKey, group);
      return fts.length ? or(ftsMatch(fts.map((q) => `(${q})`).join(" OR ")), byKey)! : byKey;
    }),
  )!;
}

// ---------------------------------------------------------------------------------------------

/** Ids of the other organizations of a network. */
export async function networkPeers(db: Db, networkId: number, exceptOrganizationId: number): Promise<number[]> {
  const rows = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.networkId, networkId), sql`${organizations.id} <> ${exceptOrganizationId}`));
  return rows.map((r) => r.id);
}

/** Organization keys by id (json-feed's creator_code). */
export async function organizationKeys(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: organizations.id, key: organizations.organizationKey }).from(organizations).where(inList(organizations.id, ids));
  return new Map(rows.map((r) => [r.id, r.key]));
}
