// E6-style listings (E6, E7's content filter, E16, feeds): a VideoQuery, made by the domain from
// the request, compiled here to SQL over `contents` and run with the cheapest plan we know.
//
// Every filter becomes `contents.id IN (<index lookup>)`: names through content_labels by label
// id (resolved for the whole query in one statement), custom fields through
// content_custom_fields, text through the FTS5 index.
import { and, eq, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import {
  carriesAnyLabel,
  countVideos,
  customFieldsCondition,
  findLabelIds,
  inScope,
  labelKey,
  labelVideoCount,
  LISTABLE,
  listableCount,
  listVideos,
  listVideosWithTotal,
  namesCondition,
  NOTHING,
  textCondition,
  type ContentScope,
  type CustomFieldFilter,
  type NameGroups,
  type NameRef,
  type Page,
} from "./catalog";
import { inList } from "./client";
import { contentLabels, contents, syndications, type Content } from "./schema";
import { publishedByWindows, windowCovers, windowOpenAt } from "./syndications";

export interface VideoQuery extends ContentScope {
  /** Also the network's videos whose window is open at `now` for the country (alpha-3). */
  network: { peers: number[]; country: string | null; now: string } | null;
  contentKey?: string;
  /** Only these content keys (e.g. the videos a viewer watched). */
  contentKeys?: string[];
  /** A feed's membership: its organization's videos carrying any of `anyOf` (empty: all of them). */
  feed?: { organizationId: number; anyOf: NameRef[] };
  names: NameGroups;
  customFields: CustomFieldFilter[];
  /** searchString: every group must match, any term within a group. */
  text: string[][];
  liveOnly?: boolean;
}

export const emptyQuery = (scope: ContentScope): VideoQuery => ({ ...scope, network: null, names: [], customFields: [], text: [] });

interface Compiled {
  /** Every visible video that passes the filters (own and, if asked, network). */
  where: SQL;
  /** Own videos only, no narrowing filter: the listing counter answers `count`. */
  counter: ContentScope | null;
  /**
   * With network videos, the two halves of `where`, listed separately: one query walks the
   * organization's own listing index, the other starts from the open syndication windows. A
   * single OR would make SQLite scan every organization's listable videos.
   */
  network: { own: SQL; peers: SQL; ownCounter: ContentScope | null } | null;
  /** The total, already known (a one-name filter: from labels.videos). */
  knownCount?: number;
}

/**
 * A network video is visible while one of its windows is open and covers the country. Written
 * as `id IN (windows)` so the query starts from the (few) open windows; the unary `+` keeps
 * SQLite from walking the peers' listing index instead.
 */
function networkCondition(n: NonNullable<VideoQuery["network"]>): SQL {
  return sql`(${contents.id} in (select ${syndications.contentId} from ${syndications}
    where ${windowOpenAt(n.now)} and ${windowCovers(n.country)})
    and +${contents.organizationId} in (select value from json_each(${JSON.stringify(n.peers)})))`;
}

function feedCondition(feed: NonNullable<VideoQuery["feed"]>, ids: Map<string, number[]>): SQL {
  const own = eq(contents.organizationId, feed.organizationId);
  if (feed.anyOf.length === 0) return own;
  return and(own, carriesAnyLabel(feed.anyOf.flatMap((n) => ids.get(labelKey(n.kind, n.name)) ?? [])))!;
}

export async function compileVideoQuery(db: Db, q: VideoQuery): Promise<Compiled> {
  const organizationIds = [q.organizationId, ...(q.network?.peers ?? [])];
  if (q.feed && !organizationIds.includes(q.feed.organizationId)) organizationIds.push(q.feed.organizationId);
  const ids = await findLabelIds(db, organizationIds, [...q.names.flat(), ...(q.feed?.anyOf ?? [])]);

  const filters = [
    q.contentKey !== undefined ? eq(contents.contentKey, q.contentKey) : undefined,
    q.contentKeys !== undefined ? (q.contentKeys.length ? inList(contents.contentKey, q.contentKeys) : NOTHING) : undefined,
    q.feed ? feedCondition(q.feed, ids) : undefined,
    namesCondition(q.names, ids),
    customFieldsCondition(organizationIds, q.customFields),
    textCondition(q.text),
    q.liveOnly ? eq(contents.isLive, true) : undefined,
  ].filter((f): f is SQL => f !== undefined);

  const own = inScope(q);
  const counter = filters.length === 0 ? { organizationId: q.organizationId, subOrganizationId: q.subOrganizationId } : null;
  if (q.network) {
    const peers = networkCondition(q.network);
    return {
      where: and(LISTABLE, or(own, peers), ...filters)!,
      counter: null,
      network: { own: and(LISTABLE, own, ...filters)!, peers: and(LISTABLE, peers, ...filters)!, ownCounter: counter },
    };
  }
  if (q.subOrganizationId === null && filters.length === 1 && q.names.length === 1 && q.names[0]!.length === 1) {
    const one = await oneNameShortcut(db, q, ids.get(labelKey(q.names[0]![0]!.kind, q.names[0]![0]!.name)) ?? []);
    if (one) return { where: and(LISTABLE, own, one.condition)!, counter: null, network: null, knownCount: one.count };
  }
  return { where: and(LISTABLE, own, ...filters)!, counter, network: null };
}

/** Share of an organization's listable videos above which a name counts as popular. */
const POPULAR_SHARE = 0.05;

/**
 * The most common filter, one name (`tags=news`) over an organization's own videos, needs no
 * counting: labels.videos (kept by triggers) is the total. For a popular name the page walks
 * the listing index newest first and checks each video's names by index (about pageSize /
 * share rows); for a rare one it starts from the name's few videos.
 */
async function oneNameShortcut(db: Db, scope: ContentScope, labelIds: number[]) {
  if (labelIds.length !== 1) return null;
  const labelId = labelIds[0]!;
  const [count, listable] = await Promise.all([labelVideoCount(db, labelId), listableCount(db, scope)]);
  const popular = listable > 0 && count / listable >= POPULAR_SHARE;
  const condition = popular
    ? sql`exists (select 1 from ${contentLabels} where ${contentLabels.contentId} = ${contents.id} and ${contentLabels.labelId} = ${labelId})`
    : carriesAnyLabel([labelId]);
  return { condition, count };
}

/** A page and its total: from the counter when it can, else in the same pass as the page. */
async function pageAndTotal(db: Db, where: SQL, counter: ContentScope | null, page: Page) {
  if (counter) {
    const [rows, total] = await Promise.all([listVideos(db, where, page), listableCount(db, counter)]);
    return { rows, total };
  }
  const { rows, total } = await listVideosWithTotal(db, where, page);
  return { rows, total: total ?? (await countVideos(db, where)) };
}

const newerFirst = (a: Content, b: Content) => (b.publishedAt ?? "").localeCompare(a.publishedAt ?? "") || b.id - a.id;

/** One page of matching videos, newest first, and the total. */
export async function listMatching(db: Db, q: VideoQuery, page: Page): Promise<{ rows: Content[]; count: number }> {
  const c = await compileVideoQuery(db, q);
  if (c.knownCount !== undefined) return { rows: await listVideos(db, c.where, page), count: c.knownCount };
  if (!c.network) {
    const { rows, total } = await pageAndTotal(db, c.where, c.counter, page);
    return { rows, count: total };
  }
  // Both halves up to the end of the page, merged newest first (own and peers never overlap).
  const upTo = { limit: page.offset + page.limit, offset: 0 };
  const [ownPart, peerPart] = await Promise.all([pageAndTotal(db, c.network.own, c.network.ownCounter, upTo), pageAndTotal(db, c.network.peers, null, upTo)]);
  const rows = [...ownPart.rows, ...peerPart.rows].sort(newerFirst).slice(page.offset, page.offset + page.limit);
  return { rows, count: ownPart.total + peerPart.total };
}

export type FeedMembership = NonNullable<VideoQuery["feed"]>;

/** What a feed publishes at `now`: listable members with no window or one open then (E15, json-feed, files). */
export async function feedPublishedCondition(db: Db, feed: FeedMembership, now: string): Promise<SQL> {
  const ids = await findLabelIds(db, [feed.organizationId], feed.anyOf);
  return and(LISTABLE, feedCondition(feed, ids), publishedByWindows(now))!;
}
