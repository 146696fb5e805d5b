// The catalog side of the statistics: reports read rows from the statistics database and the
// catalog by content key, one query per page of keys (keys in, keys or records out), never a
// query per row and never a join across the two databases.
import { and, eq } from "drizzle-orm";
import { type ContentScope, inScope } from "../catalog";
import { type Db, inList } from "../client";
import { contents } from "../schema";
import { type VideoQuery, videoQueryCondition } from "../video-query";

/**
 * Keys per bound JSON list: D1 caps a bound value at 1 MB and a content key takes at most 11
 * bytes of JSON (`"abcdefgh",`). Longer lists are cut into parts, or (where a query must see
 * the whole list at once) filtered by the caller instead.
 */
export const KEYS_PER_PARAMETER = 50_000;

/** Runs `query` on parts of at most KEYS_PER_PARAMETER keys and concatenates what they return. */
export async function byKeyParts<T>(
  keys: readonly string[],
  query: (part: readonly string[]) => Promise<T[]>,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_PARAMETER)
    out.push(...(await query(keys.slice(i, i + KEYS_PER_PARAMETER))));
  return out;
}

/** Of these content keys, the ones of an organization's or sub-organization's content (X-Service-MMI-Key). */
export async function keysInScopeAmong(
  db: Db,
  scope: ContentScope,
  keys: readonly string[],
): Promise<Set<string>> {
  const rows = await byKeyParts(keys, (part) =>
    db
      .select({ contentKey: contents.contentKey })
      .from(contents)
      .where(and(inScope(scope), inList(contents.contentKey, part))),
  );
  return new Set(rows.map((r) => r.contentKey));
}

/** The videos whose statistics an E7 request counts: an E6 query, or every live video of an organization. */
export type ContentSelection = { query: VideoQuery } | { liveOf: number };

/** Of these content keys (those with statistics), the ones the selection takes. */
export async function selectContentKeys(
  db: Db,
  selection: ContentSelection,
  keys: readonly string[],
): Promise<Set<string>> {
  const rows = await byKeyParts(keys, async (part) => {
    const where =
      "liveOf" in selection
        ? and(
            eq(contents.organizationId, selection.liveOf),
            eq(contents.isLive, true),
            inList(contents.contentKey, part),
          )!
        : await videoQueryCondition(db, { ...selection.query, contentKeys: [...part] });
    return db.select({ contentKey: contents.contentKey }).from(contents).where(where);
  });
  return new Set(rows.map((r) => r.contentKey));
}
