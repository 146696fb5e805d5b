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
// all. The plain first page of own videos (no filter), one query and its counter at once, is read
// so when not kept, and kept. The rows of the videos shown are kept beside the ids, so a kept
// page whose rows are kept reads nothing from D1.
//
// Freshness: ids and rows are kept under every version they depend on — the caller's catalog
// version (and the network's when network videos show), a feed's version for its search — which
// every write moves on, as it moves the edge cache's keys: a kept page shows what a cached answer
// of the same versions would. The ids of a listing without a text filter are kept under the
// listing version instead, which a write moves unless it edits a video's text or media alone
// (catalog/listings.ts#holdsSameListings): such an edit costs a kept page its rows, not its ids.
// Entries live at most IDS_MAX_AGE_MS (time-bound changes, network
// windows opening, move versions by the cron). A request reading its own writes (an
// X-D1-Bookmark) never uses them.
import type { Page } from "../../db/catalog";
import type { ListingIds, ListingResult } from "../../db/listing-plan";
import type { Content } from "../../db/schema";
import { listMatching, matchingIds, recordsInOrder, type VideoQuery } from "../../db/video-query";
import { approximateBytes, isolateStore } from "../../shared/isolate-memory";
import { readKey, versionsOf } from "../../shared/versions";
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

const kept = isolateStore<KeptIds>({
  name: "listing ids",
  bytes: IDS_BYTES,
  maxEntryBytes: 8 * IDS_MAX_DEPTH,
  maxAgeMs: IDS_MAX_AGE_MS,
  sizeOf: (k) => 8 * k.ids.length + 2 * k.keyChars + 64,
});

/**
 * The rows of the videos kept pages show, kept beside their ids under the same versions: a kept
 * page whose rows are kept reads nothing from D1 (its records query was a large share of the
 * worker's CPU on a cold E14 page: docs/benchmarks.md). Counted by an estimate of their size.
 */
const ROWS_BYTES = 16 * 1024 * 1024;
const keptRows = isolateStore<Content>({
  name: "listing rows",
  bytes: ROWS_BYTES,
  maxEntryBytes: 1024 * 1024,
  maxAgeMs: IDS_MAX_AGE_MS,
  sizeOf: approximateBytes,
});

/**
 * The versions keys (shared/versions.ts readKey: the reader and the versions) of a listing's kept
 * ids and of its kept rows: both the caller's catalog version (and its network's), or, for a
 * listing without a text filter, the ids under its listing version, which an edit of a video's
 * text or media alone does not move. After such an edit a kept page then reads only its rows.
 */
export interface KeptKeys {
  ids: string;
  rows: string;
}

/** Ids and rows under one versions key. */
export const sameKeys = (key: string): KeptKeys => ({ ids: key, rows: key });

export function catalogVersionsKeys(caller: Caller, withNetwork: boolean): KeptKeys {
  return sameKeys(readKey(versionsOf(caller), withNetwork ? ["catalog", "network"] : ["catalog"]));
}

function listingVersionsKeys(caller: Caller, withNetwork: boolean, text: boolean): KeptKeys {
  const keys = catalogVersionsKeys(caller, withNetwork);
  if (text) return keys;
  const ids = readKey(versionsOf(caller), withNetwork ? ["listing", "network"] : ["listing"]);
  return { ids, rows: keys.rows };
}

type PageDeps = Pick<Deps, "db" | "now" | "readsOwnWrites">;

/** Reads the ids of the first `upTo` videos (null: a page from `from` on lies past the end), and the total. */
type IdsReader = (from: number, upTo: number) => Promise<ListingIds>;

/**
 * A page of records and the total, from the ids and rows kept under `keys` (readKey: the reader
 * and every version they depend on) and `query` (everything else the ids depend on), reading the ids
 * with `read` when they are not kept deep enough and the rows not kept with one query.
 */
export async function keptPage(
  deps: PageDeps,
  keys: KeptKeys,
  query: string,
  page: Page,
  read: IdsReader,
  firstPage?: () => Promise<ListingResult>,
): Promise<ListingResult> {
  const end = page.offset + page.limit;
  if (deps.readsOwnWrites || end > IDS_MAX_DEPTH) {
    const found = await read(page.offset, end);
    return {
      rows: await recordsInOrder(deps.db, found.ids?.slice(page.offset) ?? []),
      count: found.count,
      plan: found.plan,
    };
  }
  const key = `${keys.ids}:${query}`;
  const now = deps.now.getTime();
  let entry = kept.get(key, now);
  let plan = "kept ids";
  if (!entry || (!entry.complete && entry.ids.length < end)) {
    if (firstPage && page.offset === 0) {
      // A first page its listing reads cheaper whole (one round trip): read so, and kept.
      const result = await firstPage();
      kept.set(
        key,
        {
          ids: result.rows.map((r) => r.id),
          keyChars: key.length,
          count: result.count,
          complete: result.rows.length < page.limit,
        },
        IDS_MAX_AGE_MS,
        now,
      );
      for (const row of result.rows)
        keptRows.set(`${keys.rows}:${row.id}`, row, IDS_MAX_AGE_MS, now);
      return result;
    }
    const depth = Math.min(IDS_MAX_DEPTH, Math.max(end, 2 * (entry?.ids.length ?? 0)));
    const found = await read(page.offset, depth);
    if (!found.ids) return { rows: [], count: found.count, plan: found.plan };
    entry = {
      ids: found.ids,
      keyChars: key.length,
      count: found.count,
      complete: found.ids.length < depth,
    };
    kept.set(key, entry, IDS_MAX_AGE_MS, now);
    plan = `ids to ${depth} (${found.plan})`;
  }
  return {
    rows: await keptRecords(deps, keys.rows, entry.ids.slice(page.offset, end), now),
    count: entry.count,
    plan,
  };
}

/** The records of these ids, in this order: the rows kept under `versionsKey`, one query for the others. */
async function keptRecords(
  deps: PageDeps,
  versionsKey: string,
  ids: number[],
  now: number,
): Promise<Content[]> {
  const found = new Map<number, Content>();
  const missing: number[] = [];
  for (const id of ids) {
    const row = keptRows.get(`${versionsKey}:${id}`, now);
    if (row) found.set(id, row);
    else missing.push(id);
  }
  for (const row of missing.length ? await recordsInOrder(deps.db, missing) : []) {
    found.set(row.id, row);
    keptRows.set(`${versionsKey}:${row.id}`, row, IDS_MAX_AGE_MS, now);
  }
  return ids.flatMap((id) => found.get(id) ?? []);
}

/** A page of the query's videos, newest first, and the total (as listMatching answers it). */
export async function matchingPage(
  deps: PageDeps,
  caller: Caller,
  q: VideoQuery,
  page: Page,
): Promise<ListingResult> {
  // A page that deep, or one reading its own writes, is read as it comes. A first page is read
  // with its records (the plain one with its counter at once; a name's from its own listing
  // index in one read, where its ids then its records took two round trips): read so when not
  // kept, its rows and ids then kept.
  if (page.offset + page.limit > IDS_MAX_DEPTH || deps.readsOwnWrites)
    return listMatching(deps.db, q, page);
  const firstPage = page.offset === 0 ? () => listMatching(deps.db, q, page) : undefined;
  return keptPage(
    deps,
    listingVersionsKeys(caller, q.network !== null, q.text.length > 0),
    `listing:${JSON.stringify(q)}`,
    page,
    (from, upTo) => matchingIds(deps.db, q, from, upTo),
    firstPage,
  );
}
