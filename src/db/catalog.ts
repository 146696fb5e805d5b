// Data layer of the catalog read paths: the listing order, counters, name lookups, and the
// SQL building blocks every read composes (scope, names, custom fields, text).
import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import { type Db, inList, known, type Lookup, lookUp } from "./client";
import {
  type Content,
  contentCustomFields,
  contentLabels,
  contents,
  type LabelKind,
  labels,
  listingCounts,
  organizations,
} from "./schema";
import { selectRows, selectRowsWithTotal } from "./table-rows";

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
    scope.subOrganizationId === null
      ? undefined
      : eq(contents.subOrganizationId, scope.subOrganizationId),
  )!;
}

export async function listVideos(db: Db, where: SQL, page: Page): Promise<Content[]> {
  return selectRows(
    db,
    contents,
    db
      .select()
      .from(contents)
      .where(where)
      .orderBy(...NEWEST_FIRST)
      .limit(page.limit)
      .offset(page.offset),
  );
}

/**
 * A page and the total number of matches in one pass (`count(*) over ()`): when the page query
 * has to read every match anyway (to sort it), a separate count would read them all again.
 * The total is null when the page is empty (past the end), where it cannot be read off a row.
 */
export async function listVideosWithTotal(db: Db, where: SQL, page: Page) {
  const query = db
    .select({ ...getTableColumns(contents), total: sql<number>`count(*) over ()`.as("total") })
    .from(contents)
    .where(where)
    .orderBy(...NEWEST_FIRST)
    .limit(page.limit)
    .offset(page.offset);
  return selectRowsWithTotal(db, contents, query);
}

export async function countVideos(db: Db, where: SQL): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)` }).from(contents).where(where);
  return Number(row?.n ?? 0);
}

/** Listable videos of an organization (or one sub-organization), from the trigger-kept counter. */
export function listableCountLookup(db: Db, scope: ContentScope): Lookup<number> {
  return {
    queries: [
      db
        .select({ videos: listingCounts.videos })
        .from(listingCounts)
        .where(
          and(
            eq(listingCounts.organizationId, scope.organizationId),
            eq(listingCounts.subOrganizationId, scope.subOrganizationId ?? 0),
          ),
        ),
    ],
    parse: ([rows]) => (rows as { videos: number }[])[0]?.videos ?? 0,
  };
}

export function listableCount(db: Db, scope: ContentScope): Promise<number> {
  return lookUp(db, listableCountLookup(db, scope));
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

/** A name's label in one organization, with its listable videos (labels.videos, kept by triggers). */
export interface LabelHit {
  id: number;
  organizationId: number;
  videos: number;
}

/** Labels by kind and name across the given organizations (names are per organization), one query. */
export function findLabelsLookup(
  db: Db,
  organizationIds: number[],
  names: NameRef[],
): Lookup<Map<string, LabelHit[]>> {
  const wanted = [...new Map(names.map((n) => [labelKey(n.kind, n.name), n])).values()];
  if (wanted.length === 0) return known(new Map());
  // (kind, name) pairs as one JSON parameter: any number of names in one statement.
  const pairs = JSON.stringify(wanted.map((n) => [n.kind, n.name]));
  const query = db
    .select({
      id: labels.id,
      organizationId: labels.organizationId,
      videos: labels.videos,
      kind: labels.kind,
      name: labels.name,
    })
    .from(labels)
    .where(
      and(
        inList(labels.organizationId, organizationIds),
        sql`(${labels.kind}, ${labels.name}) in (select value ->> 0, value ->> 1 from json_each(${pairs}))`,
      ),
    );
  return {
    queries: [query],
    parse: ([rows]) => {
      const found = new Map<string, LabelHit[]>();
      for (const r of rows as Awaited<typeof query>) {
        const key = labelKey(r.kind, r.name);
        found.set(key, [
          ...(found.get(key) ?? []),
          { id: r.id, organizationId: r.organizationId, videos: r.videos },
        ]);
      }
      return found;
    },
  };
}

export function findLabels(
  db: Db,
  organizationIds: number[],
  names: NameRef[],
): Promise<Map<string, LabelHit[]>> {
  return lookUp(db, findLabelsLookup(db, organizationIds, names));
}

/** The labels of these names (any organization). */
export const labelsOf = (names: readonly NameRef[], found: Map<string, LabelHit[]>): LabelHit[] => [
  ...new Map(
    names.flatMap((n) => found.get(labelKey(n.kind, n.name)) ?? []).map((l) => [l.id, l]),
  ).values(),
];

/** The video carries one of these labels: an index lookup by label id. */
export function carriesAnyLabel(labelIds: number[]): SQL {
  if (labelIds.length === 0) return NOTHING;
  return sql`${contents.id} in (select ${contentLabels.contentId} from ${contentLabels} where ${inList(contentLabels.labelId, labelIds)})`;
}

/** Listable videos' links to these labels (the partial index of listable links). */
export function listableLinks(labelIds: number[]): SQL {
  return sql`${contentLabels.listable} = 1 and ${inList(contentLabels.labelId, labelIds)}`;
}

const NAME_COLUMNS = { category: "categories", tag: "tags", event: "events" } as const;

/** `value` as an SQL string literal (SQLite has no backslash escapes: quotes are doubled). */
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Past this many names a row check reads the video's links instead (SQLite's expression depth). */
export const ROW_NAME_TESTS_MAX = 24;

/**
 * The row being read carries one of these names, judged from its own JSON columns (the same
 * names content_labels holds): no index read, so a walk of the listing index checks each video
 * for free. An element of a compact JSON array starts after `[` or `,`, and neither can precede
 * an unescaped quote inside a string, so `,"news"` matches the element "news" exactly.
 * The patterns are literals, not parameters (D1 allows 100 per statement), in one flat CASE
 * (a chain of ORs would hit SQLite's expression depth limit). Null past ROW_NAME_TESTS_MAX.
 */
export function carriesAnyName(names: readonly NameRef[]): SQL | null {
  if (names.length === 0) return NOTHING;
  if (names.length > ROW_NAME_TESTS_MAX) return null;
  const tests = names.flatMap((n) => {
    const element = JSON.stringify(n.name);
    const column = `"contents"."${NAME_COLUMNS[n.kind]}"`;
    return [
      `when instr(${column}, ${literal(`[${element}`)}) > 0 then 1`,
      `when instr(${column}, ${literal(`,${element}`)}) > 0 then 1`,
    ];
  });
  return sql.raw(`(case ${tests.join(" ")} else 0 end) = 1`);
}

/** The row being read is linked to one of these labels (an index seek into its links). */
export function linkedToAny(labelIds: readonly number[]): SQL {
  if (labelIds.length === 0) return NOTHING;
  return sql`exists (select 1 from ${contentLabels} where ${contentLabels.contentId} = ${contents.id} and ${inList(contentLabels.labelId, labelIds)})`;
}

// ---------------------------------------------------------------------------------------------
// Custom fields and text

export interface CustomFieldFilter {
  name: string;
  /** Every group must hold; within a group, any value (values compared as strings). */
  values: string[][];
}

/** The row being read has the field with one of these values (an index seek per video). */
export function hasFieldValue(name: string, values: readonly string[]): SQL {
  return sql`exists (select 1 from ${contentCustomFields} where ${contentCustomFields.contentId} = ${contents.id}
    and ${contentCustomFields.name} = ${name} and ${inList(contentCustomFields.value, values)})`;
}

/** Videos of these organizations with the field at one of these values (the lookup index). */
export function withFieldValue(
  organizationIds: number[],
  name: string,
  values: readonly string[],
): SQL {
  return sql`select ${contentCustomFields.contentId} from ${contentCustomFields}
    where ${inList(contentCustomFields.organizationId, organizationIds)} and ${contentCustomFields.name} = ${name}
    and ${inList(contentCustomFields.value, values)}`;
}

/** How many videos (any status) have the field at one of these values, counted up to `cap` (reads at most `cap` rows). */
export async function fieldValueCount(
  db: Db,
  organizationIds: number[],
  name: string,
  values: readonly string[],
  cap: number,
): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(sql`(${withFieldValue(organizationIds, name, values)} limit ${cap})`);
  return Number(row?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------

/** Ids of the other organizations of a network. */
export async function networkPeers(
  db: Db,
  networkId: number,
  exceptOrganizationId: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(
      and(
        eq(organizations.networkId, networkId),
        sql`${organizations.id} <> ${exceptOrganizationId}`,
      ),
    );
  return rows.map((r) => r.id);
}

/** Organization keys by id (json-feed's creator_code). */
export async function organizationKeys(db: Db, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: organizations.id, key: organizations.organizationKey })
    .from(organizations)
    .where(inList(organizations.id, ids));
  return new Map(rows.map((r) => [r.id, r.key]));
}
