// The text index (migrations/0010_cold_read_indexes.sql, hand-written: drizzle-kit cannot
// create virtual tables, so this file is outside the schema glob). A contentless FTS5 index of
// listable videos' title and description, each row tagged with its scope ("all o<org>
// m<sub>") and stored under rowid -contents.id (so rank ties and rowid order are newest first);
// its vocabulary (contents_fts_terms) gives each word's document count.
//
// Every query is scoped: `scope:o5 AND (...)` reads only organization 5's matches.
import { type SQL, sql } from "drizzle-orm";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { type Db, known, type Lookup, lookUp } from "./client";
import { contents } from "./schema";

export const contentsFts = sqliteTable("contents_fts", {
  /** -contents.id */
  rowid: integer("rowid").notNull(),
  title: text("title"),
  description: text("description"),
  scope: text("scope"),
  /** bm25 relevance: lower is better. */
  rank: real("rank"),
});

export const contentsFtsTerms = sqliteTable("contents_fts_terms", {
  term: text("term").notNull(),
  /** Documents (listable videos, every organization) containing the term. */
  doc: integer("doc").notNull(),
});

/** Whose documents a search reads: an organization's, or one sub-organization's. */
export interface TextScope {
  organizationId: number;
  subOrganizationId: number | null;
}

export const scopeToken = (s: TextScope) =>
  s.subOrganizationId === null ? `o${s.organizationId}` : `m${s.subOrganizationId}`;

/**
 * A search expression over title and description only: the scope column holds "all" and the
 * scope tokens, which a search for "all" must not find.
 */
export const inText = (expression: string) => `{title description}: (${expression})`;

/** A search expression limited to the scope's documents. */
export function scopedExpression(s: TextScope, expression: string): string {
  return inScopes([s], expression);
}

/** The scope's documents whose titles match (`titles`), or that match in their descriptions only (`descriptions only`). */
export function scopedByColumn(
  s: TextScope,
  expression: string,
  where: "titles" | "descriptions only",
): string {
  const titles = `{title}: (${expression})`;
  return `${anyScope([s])} AND ${where === "titles" ? titles : `(${inText(expression)} NOT ${titles})`}`;
}

/** A search expression limited to the documents of any of these scopes. */
export function inScopes(scopes: readonly TextScope[], expression: string): string {
  return `${anyScope(scopes)} AND ${inText(expression)}`;
}

/** The documents of any of these scopes, as an FTS5 expression. */
function anyScope(scopes: readonly TextScope[]): string {
  const tokens = scopes.map((s) => `scope:${scopeToken(s)}`);
  return tokens.length === 1 ? tokens[0]! : `(${tokens.join(" OR ")})`;
}

/** contents.id of the index's rows matching `expression` (an FTS5 query; scope it first). */
export function ftsIds(expression: string): SQL {
  return sql`select -rowid from ${contentsFts} where ${contentsFts} match ${expression}`;
}

/**
 * The row of `contents` being read matches the search expression (one index seek by rowid).
 * Cheap for whole words; a prefix re-expands at every row, so callers expand it first.
 */
export function ftsRowMatches(expression: string): SQL {
  return sql`exists (select 1 from ${contentsFts} where ${contentsFts} match ${inText(expression)} and rowid = -${contents.id})`;
}

/** Matching documents, counted in the index (one row read per match). */
export async function ftsCount(db: Db, expression: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(contentsFts)
    .where(sql`${contentsFts} match ${expression}`);
  return Number(row?.n ?? 0);
}

// ---------------------------------------------------------------------------------------------
// Words and terms

/** Words of a search term as the index sees them (letters and digits; the tokenizer folds case and accents). */
export const wordsOf = (term: string): string[] => term.match(/[\p{L}\p{N}]+/gu) ?? [];

const quoted = (word: string) => `"${word.replace(/"/g, '""')}"`;

/** One term as an FTS5 query: every word must appear, the last one as a prefix. */
export function prefixQuery(term: string): string | null {
  const w = wordsOf(term);
  return w.length
    ? w.map((word, i) => `${quoted(word)}${i === w.length - 1 ? "*" : ""}`).join(" ")
    : null;
}

/** One term as an FTS5 phrase (whole words in this order). */
export function phraseQuery(term: string): string | null {
  const w = wordsOf(term);
  return w.length ? quoted(w.join(" ")) : null;
}

/** Past this many words a prefix is not expanded (its probe would be slow): the search must start from the index. */
export const MAX_PREFIX_EXPANSION = 16;

export interface TermStats {
  /** The index's words a prefix stands for (null: more than MAX_PREFIX_EXPANSION). */
  expansion: string[] | null;
  /** Documents containing the word or any expansion (every organization): an upper bound. */
  docs: number;
}

/**
 * What the vocabulary says of each word (exact) or prefix: its document count, and for a prefix
 * the words it stands for. One statement per word, in one batch; each reads the terms it returns.
 */
export function termStatsLookup(
  db: Db,
  words: { word: string; prefix: boolean }[],
): Lookup<Map<string, TermStats>> {
  const unique = [
    ...new Map(words.map((w) => [`${w.prefix ? "p" : "w"}:${w.word.toLowerCase()}`, w])).values(),
  ];
  if (unique.length === 0) return known(new Map());
  const queries = unique.map(({ word, prefix }) => {
    const term = word.toLowerCase();
    // The tokenizer removes accents too; the vocabulary lookup folds them the same way.
    const folded = term.normalize("NFD").replace(/\p{M}/gu, "");
    const where = prefix
      ? sql`term >= ${folded} and term < ${`${folded}\u{10FFFF}`}`
      : sql`term = ${folded}`;
    return db
      .select({ term: contentsFtsTerms.term, doc: contentsFtsTerms.doc })
      .from(contentsFtsTerms)
      .where(where)
      .limit(MAX_PREFIX_EXPANSION + 1);
  });
  return {
    queries,
    parse: (results) => {
      const out = new Map<string, TermStats>();
      unique.forEach(({ word, prefix }, i) => {
        const rows = results[i] as { term: string; doc: number }[];
        out.set(`${prefix ? "p" : "w"}:${word.toLowerCase()}`, {
          expansion: rows.length > MAX_PREFIX_EXPANSION ? null : rows.map((r) => r.term),
          docs:
            rows.length > MAX_PREFIX_EXPANSION
              ? Number.MAX_SAFE_INTEGER
              : rows.reduce((n, r) => n + r.doc, 0),
        });
      });
      return out;
    },
  };
}

export function termStats(
  db: Db,
  words: { word: string; prefix: boolean }[],
): Promise<Map<string, TermStats>> {
  return lookUp(db, termStatsLookup(db, words));
}

export const statsKey = (word: string, prefix: boolean) =>
  `${prefix ? "p" : "w"}:${word.toLowerCase()}`;

/** Documents in the index (every organization): the denominator of a word's share. */
export function indexedDocumentsLookup(db: Db): Lookup<number> {
  return {
    queries: [
      db.select({ doc: contentsFtsTerms.doc }).from(contentsFtsTerms).where(sql`term = 'all'`),
    ],
    parse: ([rows]) => (rows as { doc: number }[])[0]?.doc ?? 0,
  };
}

export function indexedDocuments(db: Db): Promise<number> {
  return lookUp(db, indexedDocumentsLookup(db));
}

/**
 * One bounded step of merging the text index's segments into one (FTS5's 'merge' with a negative
 * page count: at most `pages` pages written). Every write of a video adds a small segment and
 * FTS5's automerge leaves a few per level; a query reads every segment, so on the bulk catalog
 * a search that checks rows one at a time ran in 9 ms on a merged index against 81 ms. Answers
 * whether the step merged anything (with nothing left to merge FTS5 only rewrites its structure
 * record).
 */
export async function mergeTextIndexStep(db: Db, pages: number): Promise<boolean> {
  const result = await db.run(
    sql`insert into ${contentsFts} (${sql.identifier("contents_fts")}, rank) values ('merge', ${-Math.abs(pages)})`,
  );
  // D1 counts the command as one row written; `changes` counts FTS5's own writes too.
  return (result.meta.changes ?? 0) > 1;
}
