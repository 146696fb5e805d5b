// Search queries: E13's metadata criteria and FTS5-ranked text search (E14, E15).
import { and, eq, getTableColumns, or, sql, type SQL } from "drizzle-orm";
import { findLabelIds, ftsMatch, ftsPhraseQuery, inScope, LISTABLE, namesCondition, NEWEST_FIRST, NOTHING, type ContentScope, type NameGroups, type Page } from "./catalog";
import type { Db } from "./client";
import { contentsFts } from "./fts";
import { contents, type Content } from "./schema";

/** One criterion of E13: names (all groups), words or phrases in title/description (all or any), or "has any tag". */
export type MetadataCriterion =
  | { kind: "names"; groups: NameGroups }
  | { kind: "titles"; terms: string[]; all: boolean }
  | { kind: "tagged" };

export interface MetadataQuery extends ContentScope {
  criteria: MetadataCriterion[];
  /** all: intersection of the criteria; any: their union. */
  combine: "all" | "any";
}

export async function metadataCondition(db: Db, q: MetadataQuery): Promise<SQL> {
  const names = q.criteria.flatMap((c) => (c.kind === "names" ? c.groups.flat() : []));
  const ids = await findLabelIds(db, [q.organizationId], names);
  const conditions = q.criteria.map((c): SQL => {
    if (c.kind === "tagged") return sql`${contents.tags} <> '[]'`;
    if (c.kind === "names") return namesCondition(c.groups, ids) ?? NOTHING;
    const phrases = c.terms.map(ftsPhraseQuery).filter((p): p is string => p !== null);
    if (phrases.length === 0) return NOTHING;
    // One FTS5 expression, one bound parameter, however many phrases.
    return ftsMatch(phrases.join(c.all ? " AND " : " OR "));
  });
  const matched = conditions.length === 0 ? NOTHING : q.combine === "all" ? and(...conditions)! : or(...conditions)!;
  return and(LISTABLE, inScope(q), matched)!;
}

/** Text search ranked by relevance (bm25), then newest; `where` narrows the videos. */
export async function searchVideos(db: Db, ftsQuery: string, where: SQL, page: Page): Promise<Content[]> {
  return db
    .select(getTableColumns(contents))
    .from(contentsFts)
    .innerJoin(contents, eq(contents.id, contentsFts.rowid))
    .where(and(sql`${contentsFts} match ${ftsQuery}`, where))
    .orderBy(contentsFts.rank, ...NEWEST_FIRST)
    .limit(page.limit)
    .offset(page.offset);
}
