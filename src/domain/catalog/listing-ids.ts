// Pages of a listing (E6, E16) or a text search (E14, E15: ./search.ts) from the ids this
// isolate read for an earlier page of it.
//
// The spec pages by offset (E6 `page`, E16 `start`), and an OFFSET makes SQLite read every row it
// skips: an app syncing a catalog of n videos 100 at a time (E16 start=0, 100, 200, …) read
// ~n²/200 rows in all (21,040 rows for the one page at start=5000 on the bulk catalog). And a
// page the edge cache does not hold (another page size, a parameter it does not know) planned and
// counted its listing again (E16's merged first page: six queries; E6 `tags=a,b`: 12,195 rows
// for its count). Here a listing's ids (index only) are read up to the page's end, with the
// total, and kept; a page within them is then its records by id, one query of `limit` rows. A
// page past them reads ids again up to twice as deep, so walking every page reads O(n) ids in
// all. The plain first page of own videos (no filter) is read as before: one query and its
// counter at once already.
//
// Freshness: the key names every version the ids depend on — the caller's catalog version (and
// the network's when network videos show), a feed's version for its search — which every write
// moves on, as it moves the edge cache's keys; entries live at most IDS_MAX_AGE_MS (time-bound
// changes, network windows opening, move versions by the cron). Records are always read as they
// are: only which videos a page holds comes from the ids. A request reading its own writes (an
// X-D1-Bookmark) never uses them.
import type { Page } from "../../db/catalog";
import type { ListingResult } from "../../db/listing-plan";
import { isPlainFirstPage, listMatching, matchingIds, recordsInOrder, type VideoQuery } from "../../db/video-query";
import { BoundedLru } from "../../shared/bounded-lru";
import type { Deps } from "../deps";
import type { Caller } from "./caller";

/**
 * The memory kept ids may take per isolate, counted as 8 bytes an id and 2 a key character (a
 * key names a whole query: E13's hundred names, E6's watched videos), the deepest listing kept,
 * how long.
 */
const IDS_BYTES = 8 * 1024 * 1024;
const IDS_MAX_DEPTH = 100_000;
const IDS_MAX_AGE_MS = 60_000;

interface KeptIds {
  ids: number[];
  /** Its key's length (what the entry costs besides the ids). */
  keyChars: number;
  count: number;
  /** The listing ends within `ids`. */
  complete: boolean;
}

const kept = new BoundedLru<KeptIds>(
  { capacity: IDS_BYTES, maxEntrySize: 8 * IDS_MAX_DEPTH, maxAgeMs: IDS_MAX_AGE_MS },
  (k) => 8 * k.ids.length + 2 * k.keyChars + 64,
);

/** Everything a listing's ids depend on: the query (scope, filters, network peers and country) and the versions. */
function listingKey(caller: Caller, q: VideoQuery): string {
  const versions = `c${caller.org.catalogVersion}:n${q.network ? caller.org.networkVersion : "-"}`;
  return `listing:${versions}:${JSON.stringify(q)}`;
}

type PageDeps = Pick<Deps, "db" | "now" | "readsOwnWrites">;

/** Reads the ids of the first `upTo` videos (null: a page from `from` on lies past the end), and the total. */
type IdsReader = (from: number, upTo: number) => Promise<{ ids: number[] | null; count: number; plan: string }>;

/**
 * The ids of a page and the total, from the ids kept under `key` (which must name every version
 * they depend on), reading them with `read` when they are not kept deep enough.
 */
export async function keptIdsPage(deps: PageDeps, key: string, page: Page, read: IdsReader): Promise<{ ids: number[]; count: number; plan: string }> {
  const end = page.offset + page.limit;
  if (deps.readsOwnWrites || end > IDS_MAX_DEPTH) {
    const found = await read(page.offset, end);
    return { ids: found.ids?.slice(page.offset) ?? [], count: found.count, plan: found.plan };
  }
  const now = deps.now.getTime();
  let entry = kept.get(key, now);
  let plan = "kept ids";
  if (!entry || (!entry.complete && entry.ids.length < end)) {
    const depth = Math.min(IDS_MAX_DEPTH, Math.max(end, 2 * (entry?.ids.length ?? 0)));
    const found = await read(page.offset, depth);
    if (!found.ids) return { ids: [], count: found.count, plan: found.plan };
    entry = { ids: found.ids, keyChars: key.length, count: found.count, complete: found.ids.length < depth };
    kept.set(key, entry, IDS_MAX_AGE_MS, now);
    plan = `ids to ${depth} (${found.plan})`;
  }
  return { ids: entry.ids.slice(page.offset, end), count: entry.count, plan };
}

/** A page of the query's videos, newest first, and the total (as listMatching answers it). */
export async function matchingPage(deps: PageDeps, caller: Caller, q: VideoQuery, page: Page): Promise<ListingResult> {
  // The plain first page is one query and its counter at once already; a page that deep, or one
  // reading its own writes, is read as it comes.
  if (isPlainFirstPage(q, page) || page.offset + page.limit > IDS_MAX_DEPTH || deps.readsOwnWrites) return listMatching(deps.db, q, page);
  const { ids, count, plan } = await keptIdsPage(deps, listingKey(caller, q), page, (from, upTo) => matchingIds(deps.db, q, from, upTo));
  return { rows: await recordsInOrder(deps.db, ids), count, plan };
}
