// Search queries: E13's metadata criteria (a listing without a total, ./listing-plan.ts) and
// relevance-ranked text search (E14, E15) in the text index of the organization's documents.
import { and, eq, type SQL, sql } from "drizzle-orm";
import {
  type ContentScope,
  findLabelsLookup,
  LISTABLE,
  listableCountLookup,
  type NameGroups,
  type Page,
} from "./catalog";
import { allOf, type Db, known, lookUpAll, someOf } from "./client";
import {
  contentsFts,
  indexedDocumentsLookup,
  phraseQuery,
  prefixQuery,
  scopedByColumn,
  scopedExpression,
  type TextScope,
  termStats,
  termStatsLookup,
} from "./fts";
import {
  expandedTerm,
  type FilterBase,
  type ListingFilter,
  namesFilter,
  rowFilter,
  type TextTerm,
  termDocs,
  termWords,
  textFilter,
} from "./listing-filters";
import { listBase, ownBase } from "./listing-plan";
import { type Content, contents } from "./schema";
import { spokenFilter } from "./transcripts";

/** One criterion of E13: names (all groups), words or phrases in title/description (all or any), or "has any tag". */
export type MetadataCriterion =
  | { kind: "names"; groups: NameGroups }
  | { kind: "titles"; terms: string[]; all: boolean; spoken?: boolean }
  | { kind: "tagged" };

export interface MetadataQuery extends ContentScope {
  criteria: MetadataCriterion[];
  /** all: intersection of the criteria; any: their union. */
  combine: "all" | "any";
}

/** Any of several conjunctions of filters: checked together, started from each one's smallest index. */
function anyOf(conjunctions: ListingFilter[][], base: FilterBase): ListingFilter {
  const leaders = conjunctions.map(
    (c) => c.filter((f) => f.source !== null).sort((a, b) => a.estimate - b.estimate)[0],
  );
  const sources = leaders.every((l) => l !== undefined) ? leaders.map((l) => l!.source!) : null;
  return {
    kind: "other",
    label: `any of ${conjunctions.length}`,
    probe: someOf(conjunctions.map((c) => allOf(c.map((f) => f.probe))))!,
    slowProbe: conjunctions.some((c) => c.some((f) => f.slowProbe)),
    source: sources ? sql.join(sources, sql` union `) : null,
    estimate: Math.min(
      base.size,
      conjunctions.reduce((n, c) => n + Math.min(...c.map((f) => f.estimate)), 0),
    ),
  };
}

/** E13's titleString terms as one FTS5 query of the spoken-word index (null: no word). */
function spokenTerms(terms: readonly string[], all: boolean): string | null {
  const queries = terms.map(phraseQuery).filter((q): q is string => q !== null);
  return queries.length ? queries.map((q) => `(${q})`).join(all ? " AND " : " OR ") : null;
}

/** E13's criteria planned: the lookups they need read in one round trip; null: nothing matches. */
async function metadataPlan(db: Db, q: MetadataQuery) {
  if (q.criteria.length === 0) return null;
  const names = q.criteria.flatMap((c) => (c.kind === "names" ? c.groups.flat() : []));
  const terms: TextTerm[] = q.criteria.flatMap((c) =>
    c.kind === "titles" ? c.terms.map((text) => ({ text, phrase: true })) : [],
  );
  const [size, found, stats, indexed] = await lookUpAll(db, [
    listableCountLookup(db, q),
    findLabelsLookup(db, [q.organizationId], names),
    termStatsLookup(db, termWords(terms)),
    terms.length ? indexedDocumentsLookup(db) : known(0),
  ] as const);
  const base: FilterBase = { organizationIds: [q.organizationId], textScopes: [q], size };
  const conjunctions = q.criteria.map((c): ListingFilter[] => {
    if (c.kind === "tagged") return [rowFilter("tagged", sql`${contents.tags} <> '[]'`, 0.9, base)];
    if (c.kind === "names") return c.groups.map((group) => namesFilter(base, group, found));
    const phrases = c.terms.map((text) => ({ text, phrase: true }));
    const text = textFilter(base, phrases, [], stats, indexed, c.all ? "all" : "any");
    // Spoken words too (./transcripts.ts): in the title or description, or in a transcript.
    const spoken = c.spoken ? spokenTerms(c.terms, c.all) : null;
    return spoken ? [anyOf([[text], [spokenFilter(base, spoken)]], base)] : [text];
  });
  const filters =
    q.combine === "all" || conjunctions.length === 1
      ? conjunctions.flat()
      : [anyOf(conjunctions, base)];
  return { base: ownBase(q, size), filters };
}

/** E13: the ids of the first `upTo` videos the criteria select, newest first (records: recordsInOrder). */
export async function searchMetadataIds(db: Db, q: MetadataQuery, upTo: number): Promise<number[]> {
  const plan = await metadataPlan(db, q);
  if (!plan) return [];
  return (
    await listBase(db, plan.base, plan.filters, { limit: upTo, offset: 0 }, false, "order")
  ).rows.map((r) => r.id);
}

/**
 * E13's first `limit` videos with their records, in the read that finds them where the plan can
 * (a name's listing index: one round trip after the lookups, where ids then records took two).
 */
export async function searchMetadataFirstPage(
  db: Db,
  q: MetadataQuery,
  limit: number,
): Promise<Content[]> {
  const plan = await metadataPlan(db, q);
  if (!plan) return [];
  return (await listBase(db, plan.base, plan.filters, { limit, offset: 0 }, false)).rows;
}

/** A search string (E14, E15) as an FTS5 query, and the most documents it can match (every organization). */
export interface TextQuery {
  query: string;
  docs: number;
}

/**
 * The words of a search string, all of which must appear, the last one as a prefix: the prefix
 * is written as the index's words it stands for (the vocabulary's), since FTS5 reads the
 * doclists of every word a `"goal"*` stands for in full before the first row, whatever the
 * LIMIT (bulk1: 12 ms against 2 ms for `goal`). Null: no word of the index can match.
 */
export async function searchTextQuery(db: Db, text: string): Promise<TextQuery | null> {
  const term: TextTerm = { text, phrase: false };
  const stats = await termStats(db, termWords([term]));
  const expanded = expandedTerm(term, stats);
  if (expanded === undefined) return null;
  // A prefix that stands for too many words stays a prefix query.
  return { query: expanded ?? prefixQuery(text)!, docs: termDocs(term, stats) };
}

/** One read of a text search: which rows, in which order, how many from where. */
interface SearchStep {
  where: SQL | undefined;
  order: SQL | typeof contentsFts.rank | typeof contentsFts.rowid;
  limit: number;
  offset: number;
}

/**
 * Text search (E14, E15), read as ids (their records: recordsInOrder). Up to `candidates` matches are ranked by relevance (bm25 within the
 * scope's documents; equal relevance: newest first, the index's rowid order). More than that
 * (a common word) are not ranked, because FTS5's bm25 reads every match of each phrase of the
 * query to weigh it (the scope token's and the word's), whatever the bound on the rows ranked:
 * the titles that match come first, newest first, then the videos that match in their
 * descriptions only, newest first. `where` (feed membership) is checked on the rows read.
 * `read` runs each step (one, or two where the titles end within the page).
 */
async function searchSteps<T>(
  db: Db,
  scope: TextScope,
  text: TextQuery,
  where: SQL | undefined,
  page: Page,
  candidates: number,
  read: (step: SearchStep) => Promise<T[]>,
): Promise<T[]> {
  const ftsQuery = text.query;
  const matching = (expression: string) => sql`${contentsFts} match ${expression}`;
  const matches = matching(scopedExpression(scope, ftsQuery));
  // Whether the scope has more than `candidates` matches: not when the whole index has no more
  // (the vocabulary says), else walking the index in rowid order (which ranks nothing) tells.
  const over =
    text.docs > candidates &&
    (
      await db
        .select({ rowid: contentsFts.rowid })
        .from(contentsFts)
        .where(matches)
        .orderBy(contentsFts.rowid)
        .limit(1)
        .offset(candidates)
    ).length > 0;
  if (!over)
    return read({ where: and(matches, LISTABLE, where), order: contentsFts.rank, ...page });

  const inTitles = and(matching(scopedByColumn(scope, ftsQuery, "titles")), LISTABLE, where);
  const rows = await read({ where: inTitles, order: contentsFts.rowid, ...page });
  if (rows.length === page.limit) return rows;
  // The title matches end on this page (or before it): the description-only ones continue after them.
  const titled =
    rows.length > 0 || page.offset === 0
      ? page.offset + rows.length
      : await countWhere(db, inTitles);
  const descriptionsOnly = and(
    matching(scopedByColumn(scope, ftsQuery, "descriptions only")),
    LISTABLE,
    where,
  );
  const rest = await read({
    where: descriptionsOnly,
    order: contentsFts.rowid,
    limit: page.limit - rows.length,
    offset: Math.max(0, page.offset - titled),
  });
  return [...rows, ...rest];
}

const joined = <T extends Parameters<Db["select"]>[0]>(db: Db, fields: T) =>
  db
    .select(fields)
    .from(contentsFts)
    .innerJoin(contents, eq(contents.id, sql`-${contentsFts.rowid}`));

/** The ids of a text search's first `upTo` matches, in its order (records: recordsInOrder). */
export function searchIds(
  db: Db,
  scope: TextScope,
  text: TextQuery,
  where: SQL | undefined,
  upTo: number,
  candidates: number,
): Promise<number[]> {
  return searchSteps(db, scope, text, where, { limit: upTo, offset: 0 }, candidates, async (s) =>
    (
      await joined(db, { id: contents.id })
        .where(s.where)
        .orderBy(s.order)
        .limit(s.limit)
        .offset(s.offset)
    ).map((r) => r.id),
  );
}

async function countWhere(db: Db, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(contentsFts)
    .innerJoin(contents, eq(contents.id, sql`-${contentsFts.rowid}`))
    .where(where);
  return row?.n ?? 0;
}
