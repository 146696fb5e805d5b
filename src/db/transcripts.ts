// The spoken-word index (migrations/0046_transcript_index.sql, hand-written): the passages of
// every caption track the service keeps, in an FTS5 index of their own beside contents_fts
// (./fts.ts, title and description), which they leave as it is. A passage is tagged with its
// video's scope (`o<org> m<sub>`, as contents_fts), and every query is scoped the same way;
// whether a video is listable is its row's (LISTABLE), read in the same query.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { LISTABLE } from "./catalog";
import { type Db, inList, runBatch } from "./client";
import { scopeToken, type TextScope } from "./fts";
import type { FilterBase, ListingFilter } from "./listing-filters";
import { contents } from "./schema";
import { type TranscriptPassage, transcriptPassages } from "./schema-captions";

export type { TranscriptPassage };

export const transcriptFts = sqliteTable("transcript_fts", {
  /** transcript_passages.id */
  rowid: integer("rowid").notNull(),
  text: text("text"),
  scope: text("scope"),
  /** bm25 relevance of the text: lower is better. */
  rank: real("rank"),
});

/** A passage to index: its text, its times, and where each of its cues starts in it. */
export interface Passage {
  startMs: number;
  endMs: number;
  text: string;
  /** [character offset in `text`, start ms, end ms]: the cue that starts there. */
  cueTimes: [number, number, number][];
}

/** The scope column's value for a video (both tokens: its organization's and its sub-organization's). */
export const passageScope = (c: { organizationId: number; subOrganizationId: number | null }) =>
  `${scopeToken({ organizationId: c.organizationId, subOrganizationId: null })} ${scopeToken({ organizationId: c.organizationId, subOrganizationId: c.subOrganizationId ?? 0 })}`;

/** An FTS5 expression matching `query` in the passages of one scope. */
export const spokenExpression = (scope: TextScope, query: string) =>
  `scope:${scopeToken(scope)} AND {text}: (${query})`;

/** About 100 KB of passages per statement: D1 binds strings of up to 2 MB, a statement's text is kept short. */
const PASSAGES_PER_STATEMENT = 200;

/** The video's transcript in `language` replaced by these passages (none: removed), in one batch. */
export async function replaceTranscript(
  db: Db,
  content: { id: number; organizationId: number; subOrganizationId: number | null },
  language: string,
  passages: readonly Passage[],
): Promise<void> {
  const scope = passageScope(content);
  const inserts = [];
  for (let i = 0; i < passages.length; i += PASSAGES_PER_STATEMENT) {
    const rows = JSON.stringify(
      passages
        .slice(i, i + PASSAGES_PER_STATEMENT)
        .map((p) => [p.startMs, p.endMs, p.text, JSON.stringify(p.cueTimes)]),
    );
    // (Drizzle's insert-select lists every column in table order: the SELECT does too.)
    inserts.push(
      db
        .insert(transcriptPassages)
        .select(
          sql`select null, ${content.id}, ${language}, value ->> 0, value ->> 1, value ->> 2, value ->> 3, ${scope} from json_each(${rows}) where true`,
        ),
    );
  }
  await runBatch(db, [
    db
      .delete(transcriptPassages)
      .where(
        and(
          eq(transcriptPassages.contentId, content.id),
          eq(transcriptPassages.language, language),
        ),
      ),
    ...inserts,
  ]);
}

/**
 * The scope's listable videos whose passages match `query` (an FTS5 query of words), the best
 * match first (bm25 of their best passage), then newest; `where` narrows them (a feed's
 * membership). At most `limit`.
 */
export async function spokenMatchIds(
  db: Db,
  scope: TextScope,
  query: string,
  where: SQL | undefined,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .select({ id: transcriptPassages.contentId, rank: sql<number>`min(${transcriptFts.rank})` })
    .from(transcriptFts)
    .innerJoin(transcriptPassages, eq(transcriptPassages.id, transcriptFts.rowid))
    .innerJoin(contents, eq(contents.id, transcriptPassages.contentId))
    .where(and(sql`${transcriptFts} match ${spokenExpression(scope, query)}`, LISTABLE, where))
    .groupBy(transcriptPassages.contentId)
    .orderBy(sql`2`, sql`${contents.publishedAt} desc`)
    .limit(limit);
  return rows.map((r) => r.id);
}

/** For each of these videos whose transcript matches `query`, its earliest matching passage. */
export async function firstSpokenPassages(
  db: Db,
  scope: TextScope,
  query: string,
  contentIds: readonly number[],
): Promise<Map<number, TranscriptPassage>> {
  const found = new Map<number, TranscriptPassage>();
  if (contentIds.length === 0) return found;
  const rows = await db
    .select({ passage: transcriptPassages })
    .from(transcriptFts)
    .innerJoin(transcriptPassages, eq(transcriptPassages.id, transcriptFts.rowid))
    .where(
      and(
        sql`${transcriptFts} match ${spokenExpression(scope, query)}`,
        inList(transcriptPassages.contentId, contentIds),
      ),
    )
    .orderBy(transcriptPassages.contentId, transcriptPassages.startMs);
  for (const { passage } of rows)
    if (!found.has(passage.contentId)) found.set(passage.contentId, passage);
  return found;
}

/** The ids of the scope's videos whose passages match `query` (any status: the console's library). */
export function spokenContentIds(scope: TextScope, query: string): SQL {
  return sql`select ${transcriptPassages.contentId} from ${transcriptPassages} where ${transcriptPassages.id} in (select ${transcriptFts.rowid} from ${transcriptFts} where ${transcriptFts} match ${spokenExpression(scope, query)})`;
}

/**
 * E13's titleString in transcripts: videos whose passages match `expression` (terms already
 * written as an FTS5 query) in any of the base's scopes. One index query as the source; a walk
 * checks a row with one seek of the passages of its video.
 */
export function spokenFilter(base: FilterBase, expression: string): ListingFilter {
  const scoped = base.textScopes.map((s) => `(${spokenExpression(s, expression)})`).join(" OR ");
  const matching = sql`select ${transcriptFts.rowid} from ${transcriptFts} where ${transcriptFts} match ${scoped}`;
  return {
    kind: "other",
    label: `spoken ${expression}`,
    probe: sql`exists (select 1 from ${transcriptPassages} where ${transcriptPassages.contentId} = ${contents.id} and ${transcriptPassages.id} in (${matching}))`,
    source: sql`select ${transcriptPassages.contentId} from ${transcriptPassages} where ${transcriptPassages.id} in (${matching})`,
    // Spoken matches are few beside the catalog's: a source, not a walk.
    estimate: Math.max(1, Math.round(base.size / 100)),
  };
}
