// Search by what is said (docs/captions.md): the transcripts of the caption tracks the service
// keeps, in their own text index (db/transcripts.ts), joined to E13–E15 and the console's
// library when the organization turns it on (./settings.ts). A result found there says where in
// the video the words are heard: the start of the cue that holds the first of them, a time to
// start the player at.
import type { SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { phraseQuery, prefixQuery, type TextScope, wordsOf } from "../../db/fts";
import { firstSpokenPassages, spokenMatchIds } from "../../db/transcripts";
import { spokenAt } from "../../media/captions/transcript";

/** Where a search's words are spoken in a video. */
export interface Spoken {
  /** Seconds into the video: the start of the cue that holds the first of the words. */
  start: number;
  language: string;
  /** The words around them. */
  text: string;
}

/**
 * The scope's listable videos whose transcripts hold the words of `search` (the last one as a
 * prefix, as E14's text search), best match first; `where` narrows them (a feed's membership).
 */
export async function spokenMatches(
  db: Db,
  scope: TextScope,
  search: string,
  where: SQL | undefined,
  limit: number,
): Promise<number[]> {
  const query = prefixQuery(search);
  return query ? spokenMatchIds(db, scope, query, where, limit) : [];
}

/**
 * Where the words of `search` are first heard in each of these videos (those whose transcripts
 * hold them); `phrase`: the search is a phrase of whole words (E13's titleString).
 */
export async function spokenPlaces(
  db: Db,
  scope: TextScope,
  search: string,
  contentIds: readonly number[],
  phrase = false,
): Promise<Map<number, Spoken>> {
  const query = phrase ? phraseQuery(search) : prefixQuery(search);
  const places = new Map<number, Spoken>();
  if (!query || contentIds.length === 0) return places;
  const words = wordsOf(search);
  for (const [id, passage] of await firstSpokenPassages(db, scope, query, contentIds)) {
    const at = spokenAt(passage, words);
    places.set(id, { start: at.start, language: passage.language, text: at.excerpt });
  }
  return places;
}
