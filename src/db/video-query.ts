// E6-style listings (E6, E7's content filter, E16, json-feed): a VideoQuery, made by the domain
// from the request, compiled here into filters (./listing-filters.ts) over one or two bases (the
// organization's own listing; its network's) and read by the cheapest plan (./listing-plan.ts).
import { eq, or, type SQL, sql } from "drizzle-orm";
import {
  type ContentScope,
  type CustomFieldFilter,
  findLabels,
  findLabelsLookup,
  inScope,
  LISTABLE,
  listableCount,
  listableCountLookup,
  type NameGroups,
  type NameRef,
  type Page,
} from "./catalog";
import { allOf, type Db, inList, known, lookUpAll } from "./client";
import { ftsIds, indexedDocumentsLookup, inScopes, type TextScope, termStatsLookup } from "./fts";
import {
  type FilterBase,
  fieldFilter,
  keysFilter,
  type ListingFilter,
  namesFilter,
  rowFilter,
  type TextTerm,
  termWords,
  textFilter,
  textGroupsFilter,
} from "./listing-filters";
import {
  type ListingBase,
  type ListingIds,
  type ListingResult,
  listBase,
  listBases,
  listIds,
  ownBase,
  peersBase,
  shownIn,
} from "./listing-plan";
import { networkVideoCountLookup } from "./network-listings";
import { contents, networkListings } from "./schema";
import { publishedByWindows } from "./syndications";

export { recordsInOrder } from "./listing-plan";

export interface VideoQuery extends ContentScope {
  /** Also the other members' videos shown now in the country (alpha-3; null: unknown). */
  network: { networkId: number; peers: number[]; country: string | null } | null;
  contentKey?: string;
  /** Only these content keys (e.g. the videos a viewer watched). */
  contentKeys?: string[];
  /**
   * A feed's membership: its organization's (or sub-organization's) videos carrying any of
   * `anyOf` (empty: all of them).
   */
  feed?: { organizationId: number; subOrganizationId: number | null; anyOf: NameRef[] };
  names: NameGroups;
  customFields: CustomFieldFilter[];
  /** searchString: every group must match, any term within a group (a term may also be a content key). */
  text: string[][];
  liveOnly?: boolean;
}

export const emptyQuery = (scope: ContentScope): VideoQuery => ({
  ...scope,
  network: null,
  names: [],
  customFields: [],
  text: [],
});

export type FeedMembership = NonNullable<VideoQuery["feed"]>;

/** A field-value count stops here: past it the value is common and a walk finds it soon. */
const fieldCap = (pageEnd: number) => Math.min(20_000, 1_000 + 10 * pageEnd);

/**
 * What compiling needs to know, fetched together in one batch (one round trip, where each was
 * one before: a cold page's time went mostly to its round trips): sizes, label counters, word
 * counts.
 */
async function lookups(db: Db, q: VideoQuery) {
  const organizationIds = [q.organizationId, ...(q.network?.peers ?? [])];
  const names = [...q.names.flat(), ...(q.feed?.anyOf ?? [])];
  const terms: TextTerm[] = q.text.flat().map((text) => ({ text, phrase: false }));
  const [ownSize, peersSize, found, stats, indexed] = await lookUpAll(db, [
    listableCountLookup(db, q),
    q.network
      ? networkVideoCountLookup(db, q.network.networkId, q.organizationId, q.network.country)
      : known(0),
    findLabelsLookup(db, organizationIds, names),
    termStatsLookup(db, termWords(terms)),
    terms.length ? indexedDocumentsLookup(db) : known(0),
  ] as const);
  return { ownSize, peersSize, found, stats, indexed };
}

type Lookups = Awaited<ReturnType<typeof lookups>>;

async function compileFilters(
  db: Db,
  q: VideoQuery,
  base: FilterBase,
  l: Lookups,
  pageEnd: number,
  ownsFeed: boolean,
): Promise<ListingFilter[]> {
  const filters: ListingFilter[] = [];
  if (q.contentKey !== undefined) filters.push(keysFilter([q.contentKey]));
  if (q.contentKeys !== undefined) filters.push(keysFilter(q.contentKeys));
  if (q.feed) {
    if (!ownsFeed)
      filters.push(keysFilter([])); // a feed holds its own organization's videos only
    else filters.push(...feedNameFilters(base, q.feed, l.found));
  }
  for (const group of q.names) filters.push(namesFilter(base, group, l.found));
  for (const field of q.customFields) {
    for (const values of field.values)
      filters.push(await fieldFilter(db, base, field.name, values, fieldCap(pageEnd)));
  }
  const text = q.text.length ? textGroupsFilter(base, q.text, l.stats, l.indexed) : null;
  if (text) filters.push(text);
  else {
    for (const group of q.text) {
      filters.push(
        textFilter(
          base,
          group.map((text) => ({ text, phrase: false })),
          group,
          l.stats,
          l.indexed,
        ),
      );
    }
  }
  if (q.liveOnly) filters.push(rowFilter("live", eq(contents.isLive, true), 0.05, base));
  return filters;
}

/** The query's bases (own, and the network's when asked) with their filters. */
async function plan(db: Db, q: VideoQuery, pageEnd: number) {
  const l = await lookups(db, q);
  const own: FilterBase = { organizationIds: [q.organizationId], textScopes: [q], size: l.ownSize };
  const bases: { base: ListingBase; filters: ListingFilter[] }[] = [
    { base: ownBase(q, l.ownSize), filters: await compileFilters(db, q, own, l, pageEnd, true) },
  ];
  if (q.network) {
    const peers: FilterBase = {
      organizationIds: q.network.peers,
      textScopes: q.network.peers.map((organizationId) => ({
        organizationId,
        subOrganizationId: null,
      })),
      size: l.peersSize,
    };
    bases.push({
      base: peersBase(
        {
          networkId: q.network.networkId,
          organizationId: q.organizationId,
          country: q.network.country,
        },
        l.peersSize,
      ),
      filters: await compileFilters(db, q, peers, l, pageEnd, false),
    });
  }
  return bases;
}

/**
 * The first page of the organization's own videos with no filter: it needs no lookup to be
 * planned and reads at most what it returns. (A later page waits for the counter: a page past
 * the end then reads nothing, where OFFSET would read every row it skips.)
 */
export function isPlainFirstPage(q: VideoQuery, page: Page): boolean {
  // Every field that can narrow the listing is named here: a new one fails to compile until it is.
  const {
    organizationId: _o,
    subOrganizationId: _s,
    network,
    contentKey,
    contentKeys,
    feed,
    names,
    customFields,
    text,
    liveOnly,
    ...unchecked
  } = q;
  const _none: Record<string, never> = unchecked;
  return (
    network === null &&
    contentKey === undefined &&
    contentKeys === undefined &&
    feed === undefined &&
    names.length === 0 &&
    customFields.length === 0 &&
    text.length === 0 &&
    !liveOnly &&
    page.offset === 0
  );
}

/** One page of matching videos, newest first, and the total. */
export async function listMatching(db: Db, q: VideoQuery, page: Page): Promise<ListingResult> {
  // The commonest read (an app's newest videos): the page and the counter at once, one round
  // trip's wait instead of two in a row.
  if (isPlainFirstPage(q, page)) {
    const [count, rows] = await Promise.all([
      listableCount(db, q),
      ownBase(q, 0).walk(db, [], page),
    ]);
    return { rows, count, plan: "own: walk and count at once" };
  }
  return listBases(db, await plan(db, q, page.offset + page.limit), page, true);
}

/**
 * The ids of the first `upTo` matching videos, newest first, and the total, for a page from
 * `from` on (null ids: it starts past the end). Its records: recordsInOrder.
 */
export async function matchingIds(
  db: Db,
  q: VideoQuery,
  from: number,
  upTo: number,
): Promise<ListingIds> {
  return listIds(db, await plan(db, q, upTo), from, upTo, true);
}

/**
 * The query as one condition on `contents` (E7 narrows statistics with it, checking every content
 * key with statistics in the range). Probes, which hold for any organization's videos, so own and
 * network videos share them; a text filter is its index query read once instead of a check per
 * row (on bulk1, `searchString=goal` checked 35,066 keys one index seek each: 342,463 rows,
 * 5.6 s), over the scopes the videos may come from.
 */
export async function videoQueryCondition(db: Db, q: VideoQuery): Promise<SQL> {
  const [own, peers] = await plan(db, q, 100);
  const scopes: TextScope[] = [
    q,
    ...(q.network?.peers.map((organizationId) => ({ organizationId, subOrganizationId: null })) ??
      []),
  ];
  const checks = own!.filters.map((f) =>
    f.kind === "text" ? textMatchesOnce(scopes, f.terms, f.keys, f.probe) : f.probe,
  );
  const visible = peers
    ? or(
        inScope(q),
        sql`exists (select 1 from ${networkListings} where ${networkListings.contentId} = ${contents.id}
          and ${networkListings.networkId} = ${q.network!.networkId} and ${networkListings.organizationId} <> ${q.organizationId}
          and ${shownIn(q.network!.country)})`,
      )
    : inScope(q);
  return allOf([LISTABLE, visible, ...checks])!;
}

/**
 * The row is one of the text's matches in these scopes, or has one of these content keys and
 * passes the filter's own probe (each searchString group, by its text or by a key).
 */
function textMatchesOnce(
  scopes: readonly TextScope[],
  terms: string,
  keys: readonly string[],
  probe: SQL,
): SQL {
  const matches = sql`${contents.id} in (${ftsIds(inScopes(scopes, terms))})`;
  return keys.length
    ? sql`(${matches} or (${inList(contents.contentKey, keys)} and ${probe}))`
    : matches;
}

// ---------------------------------------------------------------------------------------------
// Feeds

/** A feed's own rule on a video (domain/feeds/membership.ts#holds in SQL): its sub-organization, any listed name. */
function feedNameFilters(
  base: FilterBase,
  feed: FeedMembership,
  found: Awaited<ReturnType<typeof findLabels>>,
): ListingFilter[] {
  return [
    ...(feed.subOrganizationId !== null
      ? [
          rowFilter(
            "feed's sub-organization",
            sql`+${contents.subOrganizationId} = ${feed.subOrganizationId}`,
            0.5,
            base,
          ),
        ]
      : []),
    ...(feed.anyOf.length ? [namesFilter(base, feed.anyOf, found)] : []),
  ];
}

/** What a feed publishes at `now`: listable members with no window or one open then. */
async function feedFilters(
  db: Db,
  feed: FeedMembership,
  now: string,
  size: number,
): Promise<ListingFilter[]> {
  const base: FilterBase = {
    organizationIds: [feed.organizationId],
    textScopes: [{ organizationId: feed.organizationId, subOrganizationId: null }],
    size,
  };
  const found = await findLabels(db, [feed.organizationId], feed.anyOf);
  return [
    ...feedNameFilters(base, feed, found),
    // Most videos have no window: the check rarely removes one.
    rowFilter("windows", publishedByWindows(now), 0.9, base),
  ];
}

/** A page of a feed's published videos, newest first, and their total (json-feed). */
export async function listFeed(
  db: Db,
  feed: FeedMembership,
  now: string,
  page: Page,
): Promise<ListingResult> {
  const scope = { organizationId: feed.organizationId, subOrganizationId: feed.subOrganizationId };
  const size = await listableCount(db, scope);
  return listBase(db, ownBase(scope, size), await feedFilters(db, feed, now, size), page, true);
}

/** A feed's checks on one video (E15 filters ranked matches with them): names, windows. */
export async function feedRowChecks(db: Db, feed: FeedMembership, now: string): Promise<SQL> {
  const filters = await feedFilters(db, feed, now, 0);
  return allOf(filters.map((f) => f.probe))!;
}
