// Listings: E6 (/v2/videos/) and E16 (/get_videos), newest publishedDate first.
import type { Page } from "../../db/catalog";
import type { Content } from "../../db/schema";
import type { Dependency } from "../../shared/versions";
import type { Deps } from "../deps";
import type { Caller } from "./caller";
import { matchingPage } from "./listing-ids";
import { getVideosRecord, v2Record } from "./records";
import { type VideoFilterParams, videoQuery } from "./video-query";

type ReadDeps = Pick<Deps, "db" | "origins" | "now" | "readsOwnWrites">;

/**
 * What a listing without a text filter reads of a video to hold it and order it (db/catalog.ts
 * LISTABLE and NEWEST_FIRST, the scopes, the names, custom fields and live filters of
 * db/video-query.ts): the version before and after a change agree on all of it, so every such
 * listing holds the same videos in the same order (network listings have a version of their own).
 */
const LISTED_FIELDS = [
  "id",
  "contentKey",
  "organizationId",
  "subOrganizationId",
  "status",
  "removed",
  "publishedAt",
  "isLive",
  "liveState",
  "categories",
  "tags",
  "events",
  "customFields",
] as const satisfies readonly (keyof Content)[];

export function holdsSameListings(before: Content, after: Content): boolean {
  return LISTED_FIELDS.every(
    (field) => JSON.stringify(before[field]) === JSON.stringify(after[field]),
  );
}

/**
 * What an E6 page depends on (its keys at every level: shared/versions.ts): the catalog; the
 * network's with network videos; the statistics when viewer rows select the videos.
 */
export function listVideoPageDependsOn(params: VideoFilterParams): Dependency[] {
  return [
    "catalog",
    ...(params.networkVideos ? (["network"] as const) : []),
    ...(params.watchedByTput !== undefined ? (["statistics"] as const) : []),
  ];
}

/** E6: a page of the videos the filters select, and their total. */
export async function listVideoPage(
  deps: ReadDeps,
  caller: Caller,
  country: string | null,
  params: VideoFilterParams,
  page: Page,
) {
  const q = await videoQuery(
    {
      db: deps.db,
      caller,
      country,
      now: deps.now.toISOString(),
      readsOwnWrites: deps.readsOwnWrites,
    },
    params,
  );
  const { rows, count } = await matchingPage(deps, caller, q, page);
  return { count, data: rows.map((r) => v2Record(r, deps.origins)) };
}

export interface GetVideosParams {
  start: number;
  limit: number;
  content_key?: string;
  ownVideos?: boolean;
  privateCategories?: boolean;
  privateTags?: boolean;
}

/**
 * E16: ownVideos=1 own videos only; omitted or 0 every video available to the organization
 * (with the network entitlement, network videos open for the requester's country).
 */
const getVideosShowsNetwork = (caller: Caller, q: Pick<GetVideosParams, "ownVideos">) =>
  !q.ownVideos && caller.org.entitlements.includes("network");

/** What an E16 answer depends on: the catalog, and the network's when it shows network videos. */
export function getVideosDependsOn(
  caller: Caller,
  q: Pick<GetVideosParams, "ownVideos">,
): Dependency[] {
  return getVideosShowsNetwork(caller, q) ? ["catalog", "network"] : ["catalog"];
}

export async function getVideos(
  deps: ReadDeps,
  caller: Caller,
  country: string | null,
  q: GetVideosParams,
) {
  const network = getVideosShowsNetwork(caller, q);
  const query = await videoQuery(
    {
      db: deps.db,
      caller,
      country,
      now: deps.now.toISOString(),
      readsOwnWrites: deps.readsOwnWrites,
    },
    { networkVideos: network, contentKey: q.content_key },
  );
  const page =
    q.content_key !== undefined ? { limit: 1, offset: 0 } : { limit: q.limit, offset: q.start };
  const { rows, count } = await matchingPage(deps, caller, query, page);
  const include = { categories: q.privateCategories ?? false, tags: q.privateTags ?? false };
  return { count, data: rows.map((r) => getVideosRecord(r, deps.origins, include)) };
}
