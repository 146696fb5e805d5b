// The filters of a listing (E6, E7's content filter, E13, E16, feeds) as the planner sees them
// (./listing-plan.ts). Each says three things about itself:
//   probe    - how a walk of the listing index checks one video as it reads it (from the row's
//              own columns, or one index seek that reads a row only when it matches);
//   source   - how to start from an index instead: the ids of the videos that may match;
//   estimate - how many of the base's videos it is expected to match (from counters kept by
//              triggers, the text index's vocabulary, or a count capped at a few rows).
import { type SQL, sql } from "drizzle-orm";
import {
  carriesAnyName,
  fieldValueCount,
  hasFieldValue,
  type LabelHit,
  labelsOf,
  linkedToAny,
  type NameRef,
  NOTHING,
  withFieldValue,
} from "./catalog";
import { type Db, inList } from "./client";
import {
  ftsIds,
  ftsRowMatches,
  inScopes,
  phraseQuery,
  prefixQuery,
  statsKey,
  type TermStats,
  type TextScope,
  termStats,
  wordsOf,
} from "./fts";
import { contentLabels, contents } from "./schema";

interface FilterCommon {
  /** What it is (logs, tests). */
  label: string;
  probe: SQL;
  /** The probe re-expands a prefix at every row (slow in time, not in rows): walks avoid it. */
  slowProbe?: boolean;
  /** A select of the contents ids that may match; null: no index to start from. */
  source: SQL | null;
  estimate: number;
}

export type ListingFilter =
  | (FilterCommon & { kind: "names"; labels: LabelHit[] })
  | (FilterCommon & {
      kind: "text";
      /** The scoped index query (counts, sources). */
      expression: string;
      /** The same terms unscoped (the per-row check of the content keys' videos). */
      terms: string;
      keys: string[];
    })
  | (FilterCommon & { kind: "other" });

/** Whose videos the filters are compiled for: the organization's own, or its network peers'. */
export interface FilterBase {
  organizationIds: number[];
  textScopes: TextScope[];
  /** Listable videos in the base: the denominator of every estimate. */
  size: number;
}

const nothing = (label: string): ListingFilter => ({
  kind: "other",
  label,
  probe: NOTHING,
  source: sql`select 0 where 0`,
  estimate: 0,
});

/** Any of these names (a group of E6's names, E13's names, a feed's membership). */
export function namesFilter(
  base: FilterBase,
  refs: readonly NameRef[],
  found: Map<string, LabelHit[]>,
): ListingFilter {
  const labels = labelsOf(refs, found).filter((l) =>
    base.organizationIds.includes(l.organizationId),
  );
  if (labels.length === 0) return nothing(`names ${refs.map((r) => r.name).join("|")} (unknown)`);
  return {
    kind: "names",
    label: `names ${refs.map((r) => r.name).join("|")}`,
    labels,
    probe: carriesAnyName(refs) ?? linkedToAny(labels.map((l) => l.id)),
    source: sql`select ${contentLabels.contentId} from ${contentLabels} where ${inList(
      contentLabels.labelId,
      labels.map((l) => l.id),
    )}`,
    estimate: Math.min(
      base.size,
      labels.reduce((n, l) => n + l.videos, 0),
    ),
  };
}

/** One field at any of these values. */
export async function fieldFilter(
  db: Db,
  base: FilterBase,
  name: string,
  values: readonly string[],
  cap: number,
): Promise<ListingFilter> {
  const found = await fieldValueCount(db, base.organizationIds, name, values, cap);
  return {
    kind: "other",
    label: `field ${name}`,
    probe: hasFieldValue(name, values),
    source: withFieldValue(base.organizationIds, name, values),
    // Past the cap the field is common: expect a walk to find it often.
    estimate: found < cap ? found : base.size,
  };
}

export function keysFilter(keys: readonly string[]): ListingFilter {
  if (keys.length === 0) return nothing("content keys (none)");
  return {
    kind: "other",
    label: "content keys",
    probe: inList(contents.contentKey, keys),
    source: sql`select ${contents.id} from ${contents} where ${inList(contents.contentKey, keys)}`,
    estimate: keys.length,
  };
}

/** A condition on the row alone (live videos, feed windows): walks check it, nothing starts from it. */
export function rowFilter(
  label: string,
  probe: SQL,
  share: number,
  base: FilterBase,
): ListingFilter {
  return {
    kind: "other",
    label,
    probe,
    source: null,
    estimate: Math.max(1, Math.round(base.size * share)),
  };
}

// ---------------------------------------------------------------------------------------------
// Text

/** A search term: its words, all of which must appear; the last one a prefix unless a phrase. */
export interface TextTerm {
  text: string;
  /** A phrase (E13 titleString: whole words in order); otherwise words with the last as prefix (E6, E14). */
  phrase: boolean;
}

const termQuery = (t: TextTerm) => (t.phrase ? phraseQuery(t.text) : prefixQuery(t.text));

/** The vocabulary lookups a set of terms needs (for textFilter), in one batch. */
export function termWords(terms: readonly TextTerm[]): { word: string; prefix: boolean }[] {
  return terms.flatMap((t) => {
    const w = wordsOf(t.text);
    return w.map((word, i) => ({ word, prefix: !t.phrase && i === w.length - 1 }));
  });
}

export { termStats };

const quoted = (word: string) => `"${word.replace(/"/g, '""')}"`;

/**
 * A term as a probe expression: a prefix is replaced by the words it stands for, so each row
 * costs one seek per word; null when a prefix stands for too many words to expand.
 */
export function expandedTerm(
  t: TextTerm,
  stats: Map<string, TermStats>,
): string | null | undefined {
  if (t.phrase) return phraseQuery(t.text);
  const w = wordsOf(t.text);
  if (w.length === 0) return undefined;
  const last = stats.get(statsKey(w.at(-1)!, true));
  if (!last || last.expansion === null) return null;
  if (last.expansion.length === 0) return undefined; // no word has this prefix: the term matches nothing
  const prefix = `(${last.expansion.map(quoted).join(" OR ")})`;
  // FTS5 takes `"a" "b"` as a AND b, but not `"a" ("b" OR "c")`: a group needs an explicit AND.
  return [...w.slice(0, -1).map(quoted), prefix].join(" AND ");
}

/** The most documents a term can match (every organization), from the vocabulary. */
export function termDocs(t: TextTerm, stats: Map<string, TermStats>): number {
  const w = wordsOf(t.text);
  return Math.min(
    ...w.map((word, i) => stats.get(statsKey(word, !t.phrase && i === w.length - 1))?.docs ?? 0),
  );
}

/**
 * Any (or all, E13's titleAnd) of these terms in title or description (or, for E6, a content
 * key equal to one of `keys`). `indexed` is the number of documents in the text index
 * (fts.indexedDocuments): a word's share of them, times the base's size, estimates its matches.
 * All of the terms make one index query, not one filter each (one bound parameter, however many).
 */
export function textFilter(
  base: FilterBase,
  terms: readonly TextTerm[],
  keys: readonly string[],
  stats: Map<string, TermStats>,
  indexed: number,
  combine: "any" | "all" = "any",
): ListingFilter {
  const queries = terms.map(termQuery);
  const label = `text ${terms.map((t) => t.text).join(combine === "all" ? "&" : "|")}`;
  // A term without words matches nothing: all of them then match nothing, any of them the rest.
  if (combine === "all" && queries.some((q) => q === null)) return nothing(label);
  const present = queries.filter((q): q is string => q !== null);
  if (present.length === 0) return keys.length ? keysFilter(keys) : nothing(label);
  const joiner = combine === "all" ? " AND " : " OR ";
  const anyTerm = present.map((q) => `(${q})`).join(joiner);
  const expression = inScopes(base.textScopes, anyTerm);

  const expanded = terms.map((t) => expandedTerm(t, stats));
  const slowProbe = expanded.some((e) => e === null);
  if (combine === "all" && expanded.some((e) => e === undefined)) return nothing(label);
  const probeTerms = terms
    .map((t, i) => (expanded[i] === null ? termQuery(t) : expanded[i]))
    .filter((q): q is string => typeof q === "string");
  const textProbe = probeTerms.length
    ? ftsRowMatches(probeTerms.map((q) => `(${q})`).join(joiner))
    : NOTHING;
  const probe = keys.length
    ? sql`(${textProbe} or ${inList(contents.contentKey, keys)})`
    : textProbe;

  const source = keys.length
    ? sql`${ftsIds(expression)} union select ${contents.id} from ${contents} where ${inList(contents.contentKey, keys)}`
    : ftsIds(expression);

  const docs =
    combine === "all"
      ? Math.min(...terms.map((t) => termDocs(t, stats)))
      : terms.reduce((n, t) => n + termDocs(t, stats), 0);
  const estimate = Math.min(
    base.size,
    Math.ceil(indexed > 0 ? (docs * base.size) / indexed : docs) + keys.length,
  );
  return {
    kind: "text",
    label,
    expression,
    terms: anyTerm,
    keys: [...keys],
    probe,
    slowProbe,
    source,
    estimate,
  };
}

/**
 * searchString's `,` groups (all must match; any term within a group, or a content key equal to
 * one of its terms) as ONE filter: the index intersects the groups' matches itself (one query,
 * one count of what matches them all) where a filter per group checked each candidate of one
 * against the others, a probe per row (22,000-34,000 rows for two common words on the bulk
 * catalog). Each group's own probe still decides a video found by a content key. Null when a
 * group has no indexed word (its filter alone then says what it matches).
 */
export function textGroupsFilter(
  base: FilterBase,
  groups: readonly string[][],
  stats: Map<string, TermStats>,
  indexed: number,
): ListingFilter | null {
  const filters = groups.map((group) =>
    textFilter(
      base,
      group.map((text) => ({ text, phrase: false })),
      group,
      stats,
      indexed,
    ),
  );
  if (filters.length === 1) return filters[0]!;
  const texts = filters.filter(
    (f): f is Extract<ListingFilter, { kind: "text" }> => f.kind === "text",
  );
  if (texts.length !== filters.length) return null;
  const terms = texts.map((f) => `(${f.terms})`).join(" AND ");
  const expression = inScopes(base.textScopes, terms);
  const keys = [...new Set(texts.flatMap((f) => f.keys))];
  return {
    kind: "text",
    label: texts.map((f) => f.label).join(" & "),
    expression,
    terms,
    keys,
    probe: sql.join(
      texts.map((f) => sql`(${f.probe})`),
      sql` and `,
    ),
    slowProbe: texts.some((f) => f.slowProbe),
    source: keys.length
      ? sql`${ftsIds(expression)} union select ${contents.id} from ${contents} where ${inList(contents.contentKey, keys)}`
      : ftsIds(expression),
    // The groups' words taken as independent: the share of each, multiplied.
    estimate: Math.max(
      1,
      Math.round(
        texts.reduce((n, f) => n * Math.min(1, f.estimate / Math.max(1, base.size)), base.size),
      ),
    ),
  };
}
