// Which videos a read request sees, and the E6 filters over them, as one SQL condition on
// `contents`. Used by E6 (/v2/videos/), E7 (/v2/analytics/*) and E16 (/get_videos).
//
// Every filter becomes `contents.id IN (<index lookup>)`: names go through content_labels by
// label id, custom fields through content_custom_fields, text through the FTS5 index. Names
// are resolved to label ids with one query for the whole request.
import { and, eq, or, sql, type SQL } from "drizzle-orm";
import { inList, type Db } from "../../db/client";
import {
  countVideos,
  findFeedByFeedId,
  listableCount,
  listVideos,
  listVideosWithTotal,
  findLabelIds,
  ftsMatch,
  labelVideoCount,
  labelKey,
  LISTABLE,
  networkPeers,
  type NameQuery,
} from "../../db/catalog";
import { findSubOrganization, type OrganizationWithNetwork } from "../../db/organizations";
import { contentCustomFields, contentLabels, contents, syndications, type Content, type Feed, type LabelKind } from "../../db/schema";
import { badRequest, notFound } from "../../http/errors";
import { viewerStats } from "../../db/schema-stats";
import { hashTput } from "../stats/viewers";
import type { AuthContext } from "../../http/context";
import { requireEntitlement } from "../../middleware/auth";
import { ftsPrefixQuery, parseAllOfAny, parseCustomFields, type AllOfAny } from "./filter-syntax";

export interface CatalogContext {
  db: Db;
  auth: AuthContext;
  /** Requester's country, alpha-3 (syndication geos); null when unknown. */
  country: string | null;
  now: string;
}

/** E6 parameters as received (strings still in the filter syntax). */
export interface VideoFilterParams {
  contentKey?: string;
  feedId?: string;
  mmi?: string;
  networkVideos?: boolean;
  watchedByTput?: string;
  searchString?: string;
  categories?: string;
  customFields?: string;
  events?: string;
  tags?: string;
}

export interface VideoFilter {
  /** Every visible video that passes the filters (own and, if asked, network). */
  where: SQL;
  /** Own videos only with no narrowing filter: the listing counter can answer `count`. */
  countFromCounter: { organizationId: number; subOrganizationId: number | null } | null;
  /**
   * With network videos, the two halves of `where`, listed separately: one query walks the
   * organization's own listing index, the other starts from the open syndication windows. A
   * single OR would make SQLite scan every organization's listable videos.
   */
  network: { own: SQL; peers: SQL; ownCount: VideoFilter["countFromCounter"] } | null;
  /** The total, already known (a one-name filter: from labels.videos). */
  knownCount?: number;
}

const NOTHING = sql`0`;

/** Condition: the video carries a name of every group (any name within a group). */
function namesCondition(groups: AllOfAny, kind: LabelKind, ids: Map<string, number[]>): SQL {
  const conditions = groups.map((group) => {
    const labelIds = group.flatMap((name) => ids.get(labelKey(kind, name)) ?? []);
    if (labelIds.length === 0) return NOTHING;
    return sql`${contents.id} in (select ${contentLabels.contentId} from ${contentLabels} where ${inList(contentLabels.labelId, labelIds)})`;
  });
  return and(...conditions)!;
}

/** Feed membership (DESIGN.md): any listed name matches; an empty configuration means all. */
export function feedCondition(feed: Pick<Feed, "organizationId" | "categories" | "tags" | "events">, ids: Map<string, number[]>): SQL {
  const own = eq(contents.organizationId, feed.organizationId);
  const names: [LabelKind, string[]][] = [
    ["category", feed.categories],
    ["tag", feed.tags],
    ["event", feed.events],
  ];
  if (names.every(([, list]) => list.length === 0)) return own;
  const labelIds = names.flatMap(([kind, list]) => list.flatMap((n) => ids.get(labelKey(kind, n)) ?? []));
  if (labelIds.length === 0) return NOTHING;
  return and(own, sql`${contents.id} in (select ${contentLabels.contentId} from ${contentLabels} where ${inList(contentLabels.labelId, labelIds)})`)!;
}

/**
 * A feed's published videos: listable members whose syndication window, if they have any, is
 * open now (feed files are global, so geos do not narrow them). Used by feed files and E15.
 */
export function feedVideosCondition(feed: Pick<Feed, "organizationId" | "categories" | "tags" | "events">, ids: Map<string, number[]>, now: string): SQL {
  const noWindows = sql`not exists (select 1 from ${syndications} where ${syndications.contentId} = ${contents.id})`;
  const openNow = sql`exists (select 1 from ${syndications} where ${syndications.contentId} = ${contents.id}
    and ${syndications.startTime} <= ${now} and (${syndications.stopTime} is null or ${syndications.stopTime} > ${now}))`;
  return and(LISTABLE, feedCondition(feed, ids), or(noWindows, openNow))!;
}

export function feedNameQueries(feed: Pick<Feed, "categories" | "tags" | "events">): NameQuery[] {
  return [
    { kind: "category", names: feed.categories },
    { kind: "tag", names: feed.tags },
    { kind: "event", names: feed.events },
  ];
}

/**
 * A network video is visible while one of its windows is open and covers the country. Written
 * as `id IN (windows)` so the query starts from the (few) open windows; the unary `+` keeps
 * SQLite from walking the peers' listing index instead.
 */
export function networkVideosCondition(peers: number[], country: string | null, now: string): SQL {
  const geo = country
    ? sql`(${syndications.geos} = '[]' or exists (select 1 from json_each(${syndications.geos}) where value in ('-', ${country})))`
    : sql`(${syndications.geos} = '[]' or exists (select 1 from json_each(${syndications.geos}) where value = '-'))`;
  return sql`(${contents.id} in (select ${syndications.contentId} from ${syndications}
    where ${syndications.startTime} <= ${now} and (${syndications.stopTime} is null or ${syndications.stopTime} > ${now}) and ${geo})
    and +${contents.organizationId} in (select value from json_each(${JSON.stringify(peers)})))`;
}

function customFieldCondition(organizationIds: number[], name: string, values: AllOfAny): SQL {
  return and(
    ...values.map(
      (group) =>
        sql`${contents.id} in (select ${contentCustomFields.contentId} from ${contentCustomFields} where ${and(
          inList(contentCustomFields.organizationId, organizationIds),
          eq(contentCustomFields.name, name),
          inList(contentCustomFields.value, group),
        )})`,
    ),
  )!;
}

/** searchString: every `,` group must match; a term matches title/description words (prefix) or the content key. */
function searchCondition(groups: AllOfAny): SQL {
  return and(
    ...groups.map((group) =>
      or(
        ...group.map((term) => {
          const fts = ftsPrefixQuery(term);
          const byKey = eq(contents.contentKey, term);
          return fts ? or(ftsMatch(fts), byKey)! : byKey;
        }),
      ),
    ),
  )!;
}

export async function videoFilterCondition(ctx: CatalogContext, params: VideoFilterParams): Promise<VideoFilter> {
  const { db, auth } = ctx;
  const org: OrganizationWithNetwork = auth.org;
  // Gated parameters (spec 4.2): without the entitlement, 403.
  if (params.mmi !== undefined) requireEntitlement(auth, "mmi", "parameter mmi");
  if (params.networkVideos) requireEntitlement(auth, "network", "parameter networkVideos");
  if (params.watchedByTput !== undefined) requireEntitlement(auth, "watched_by_tput", "parameter watchedByTput");
  if (params.customFields !== undefined) requireEntitlement(auth, "custom_fields", "parameter customFields");
  if (params.events !== undefined) requireEntitlement(auth, "events", "parameter events");

  let subOrganizationId = auth.subOrg?.id ?? null;
  if (params.mmi !== undefined) {
    const sub = await findSubOrganization(db, org.id, params.mmi);
    if (!sub || (subOrganizationId !== null && sub.id !== subOrganizationId)) {
      throw badRequest(`mmi: ${params.mmi} is not a sub-organization of this organization`);
    }
    subOrganizationId = sub.id;
  }

  const peers = params.networkVideos && org.networkId !== null ? await networkPeers(db, org.networkId, org.id) : [];
  const organizationIds = [org.id, ...peers];

  const own = and(eq(contents.organizationId, org.id), subOrganizationId === null ? undefined : eq(contents.subOrganizationId, subOrganizationId))!;
  const network = peers.length === 0 ? null : networkVideosCondition(peers, ctx.country, ctx.now);

  const parsed = {
    category: params.categories !== undefined ? parseAllOfAny("categories", params.categories) : null,
    tag: params.tags !== undefined ? parseAllOfAny("tags", params.tags) : null,
    event: params.events !== undefined ? parseAllOfAny("events", params.events) : null,
  };
  let feed: Feed | null = null;
  if (params.feedId !== undefined) {
    feed = await findFeedByFeedId(db, params.feedId);
    if (!feed || feed.organizationId !== org.id) throw notFound(`feedId: feed ${params.feedId} does not exist`);
  }
  const nameQueries: NameQuery[] = [
    ...(Object.entries(parsed) as [LabelKind, AllOfAny | null][]).filter(([, g]) => g).map(([kind, g]) => ({ kind, names: g!.flat() })),
    ...(feed ? feedNameQueries(feed) : []),
  ];
  const ids = await findLabelIds(db, feed ? [...new Set([...organizationIds, feed.organizationId])] : organizationIds, nameQueries);

  const filters: SQL[] = [];
  if (params.contentKey !== undefined) filters.push(eq(contents.contentKey, params.contentKey));
  if (feed) filters.push(feedCondition(feed, ids));
  for (const [kind, groups] of Object.entries(parsed) as [LabelKind, AllOfAny | null][]) {
    if (groups) filters.push(namesCondition(groups, kind, ids));
  }
  if (params.customFields !== undefined) {
    for (const f of parseCustomFields(params.customFields)) filters.push(customFieldCondition(organizationIds, f.name, f.values));
  }
  if (params.searchString !== undefined && params.searchString.trim() !== "") {
    filters.push(searchCondition(parseAllOfAny("searchString", params.searchString)));
  }
  if (params.watchedByTput !== undefined) filters.push(await watchedByTputCondition(ctx, params.watchedByTput));

  const ownCount = filters.length === 0 ? { organizationId: org.id, subOrganizationId } : null;
  if (!network && subOrganizationId === null && filters.length === 1) {
    const one = await oneNameShortcut(db, org.id, parsed, ids);
    if (one) return { where: and(LISTABLE, own, one.condition)!, countFromCounter: null, knownCount: one.count, network: null };
  }
  return {
    where: and(LISTABLE, network ? or(own, network) : own, ...filters)!,
    countFromCounter: network ? null : ownCount,
    network: network ? { own: and(LISTABLE, own, ...filters)!, peers: and(LISTABLE, network, ...filters)!, ownCount } : null,
  };
}

/** Share of an organization's listable videos above which a name counts as popular. */
const POPULAR_SHARE = 0.05;

/**
 * The most common filter, one name (`tags=news`) over an organization's own videos, needs no
 * counting: labels.videos (kept by triggers) is the total. For a popular name the page walks
 * the listing index newest first and checks each video's names by index (about pageSize /
 * share rows); for a rare one it starts from the name's few videos.
 */
async function oneNameShortcut(db: Db, organizationId: number, parsed: Record<LabelKind, AllOfAny | null>, ids: Map<string, number[]>) {
  const given = (Object.entries(parsed) as [LabelKind, AllOfAny | null][]).filter(([, g]) => g !== null);
  if (given.length !== 1) return null;
  const [kind, groups] = given[0]!;
  if (groups!.length !== 1 || groups![0]!.length !== 1) return null;
  const labelIds = ids.get(labelKey(kind, groups![0]![0]!)) ?? [];
  if (labelIds.length !== 1) return null;
  const labelId = labelIds[0]!;
  const [count, listable] = await Promise.all([labelVideoCount(db, labelId), listableCount(db, organizationId, null)]);
  const popular = listable > 0 && count / listable >= POPULAR_SHARE;
  const condition = popular
    ? sql`exists (select 1 from ${contentLabels} where ${contentLabels.contentId} = ${contents.id} and ${contentLabels.labelId} = ${labelId})`
    : sql`${contents.id} in (select ${contentLabels.contentId} from ${contentLabels} where ${contentLabels.labelId} = ${labelId})`;
  return { condition, count };
}

/** A page and its total: from the counter when it can, else in the same pass as the page. */
async function pageAndTotal(db: Db, where: SQL, counter: VideoFilter["countFromCounter"], page: { limit: number; offset: number }) {
  if (counter) {
    const [rows, total] = await Promise.all([listVideos(db, where, page), listableCount(db, counter.organizationId, counter.subOrganizationId)]);
    return { rows, total };
  }
  const { rows, total } = await listVideosWithTotal(db, where, page);
  return { rows, total: total ?? (await countVideos(db, where)) };
}

const newerFirst = (a: Content, b: Content) =>
  (b.publishedAt ?? "").localeCompare(a.publishedAt ?? "") || b.id - a.id;

/** One page of matching videos, newest first, and the total (from the counter when it can). */
export async function listMatching(db: Db, filter: VideoFilter, page: { limit: number; offset: number }) {
  if (filter.knownCount !== undefined) return { rows: await listVideos(db, filter.where, page), count: filter.knownCount };
  if (!filter.network) {
    const { rows, total } = await pageAndTotal(db, filter.where, filter.countFromCounter, page);
    return { rows, count: total };
  }
  // Both halves up to the end of the page, merged newest first (own and peers never overlap).
  const upTo = { limit: page.offset + page.limit, offset: 0 };
  const { own, peers, ownCount } = filter.network;
  const [ownPart, peerPart] = await Promise.all([pageAndTotal(db, own, ownCount, upTo), pageAndTotal(db, peers, null, upTo)]);
  const rows = [...ownPart.rows, ...peerPart.rows].sort(newerFirst).slice(page.offset, page.offset + page.limit);
  return { rows, count: ownPart.total + peerPart.total };
}

/** Videos watched by a viewer's third party user token (consented viewer rows, any day). */
async function watchedByTputCondition(ctx: CatalogContext, tput: string): Promise<SQL> {
  const organizationId = ctx.auth.org.id;
  const tputHash = await hashTput(organizationId, tput);
  return sql`${contents.contentKey} in (select ${viewerStats.contentKey} from ${viewerStats}
    where ${viewerStats.organizationId} = ${organizationId} and ${viewerStats.tputHash} = ${tputHash})`;
}
