// Pages of a listing from the ids this isolate read for an earlier page of it.
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
import type { Page } from "../../db/catalog";
import type { ListingResult } from "../../db/listing-plan";
import { isPlainFirstPage, listMatching, matchingIds, recordsInOrder, type VideoQuery } from "../../db/video-query";
import { BoundedLru } from "../../shared/bounded-lru";
import type { Deps } from "../deps";
import type { Caller } from "./caller";

/** Ids kept per isolate in all (a number each: ~8 MB), the deepest listing kept, how long. */
const IDS_CAPACITY = 1_000_000;
export const IDS_MAX_DEPTH = 100_000;
export const IDS_MAX_AGE_MS = 60_000;

interface KeptIds {
  ids: number[];
  count: number;
  /** The listing ends within `ids`. */
  complete: boolean;
}

const kept = new BoundedLru<KeptIds>({ capacity: IDS_CAPACITY, maxEntrySize: IDS_MAX_DEPTH, maxAgeMs: IDS_MAX_AGE_MS }, (k) => k.ids.length + 1);

/** Everything the listing's ids depend on: the query (scope, filters, network peers and country) and the versions. */
function keyOf(caller: Caller, q: VideoQuery): string {
  const versions = `c${caller.org.catalogVersion}:n${q.network ? caller.org.networkVersion : "-"}`;
  return `${versions}:${JSON.stringify(q)}`;
}

type PageDeps = Pick<Deps, "db" | "now" | "readsOwnWrites">;

/** A page of the query's videos, newest first, and the total (as listMatching answers it). */
export async function matchingPage(deps: PageDeps, caller: Caller, q: VideoQuery, page: Page): Promise<ListingResult> {
  const end = page.offset + page.limit;
  // A page that deep is read as it comes.
  if (isPlainFirstPage(q, page) || end > IDS_MAX_DEPTH || deps.readsOwnWrites) return listMatching(deps.db, q, page);
  const key = keyOf(caller, q);
  const now = deps.now.getTime();
  let entry = kept.get(key, now);
  let plan = "kept ids";
  if (!entry || (!entry.complete && entry.ids.length < end)) {
    const depth = Math.min(IDS_MAX_DEPTH, Math.max(end, 2 * (entry?.ids.length ?? 0)));
    const read = await matchingIds(deps.db, q, page.offset, depth);
    if (!read.ids) return { rows: [], count: read.count, plan: read.plan };
    entry = { ids: read.ids, count: read.count, complete: read.ids.length < depth };
    kept.set(key, entry, IDS_MAX_AGE_MS, now);
    plan = `ids to ${depth} (${read.plan})`;
  }
  return { rows: await recordsInOrder(deps.db, entry.ids.slice(page.offset, end)), count: entry.count, plan };
}
