// E6's parameters as a VideoQuery (db/video-query.ts): entitlement gates, the filter syntax,
// the sub-organization and feed they name. Used by E6, E7 (its content filter) and E16.
import type { NameGroups } from "../../db/catalog";
import { networkPeers } from "../../db/catalog";
import type { Db } from "../../db/client";
import { findFeedByFeedId } from "../../db/feeds";
import { findSubOrganization } from "../../db/organizations";
import type { LabelKind } from "../../db/schema";
import { statsDbOf } from "../../db/stats/shards";
import { watchedContentKeys } from "../../db/stats/viewers";
import type { VideoQuery } from "../../db/video-query";
import { invalid, notFound } from "../../shared/errors";
import { isolateStore } from "../../shared/isolate-memory";
import { credentialVersions, readKey } from "../../shared/versions";
import { requireEntitlement } from "../entitlements";
import { feedMembership, feedVisibleTo } from "../feeds/membership";
import { hashTput } from "../stats/viewers";
import { type Caller, scopeOf } from "./caller";
import { type AllOfAny, parseAllOfAny, parseCustomFields, SEARCH_LIMITS } from "./filter-syntax";

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

export interface Requester {
  db: Db;
  caller: Caller;
  /** Country of the request, alpha-3 (network windows); null when unknown. */
  country: string | null;
  now: string;
  /** The request reads its own writes (a bookmark): nothing kept from earlier requests is used. */
  readsOwnWrites?: boolean;
}

/**
 * The network's other members, kept in the isolate per network version (every change of
 * membership moves it: ../organizations.ts) for at most a minute: a network listing's page from
 * kept ids and rows (./listing-ids.ts) then asks D1 nothing.
 */
const PEERS_MAX_AGE_MS = 60_000;
const keptPeers = isolateStore<number[]>({
  name: "network peers",
  bytes: 1024 * 1024,
  maxAgeMs: PEERS_MAX_AGE_MS,
  sizeOf: (ids) => 8 * ids.length + 64,
});

async function peersOf(r: Requester, networkId: number): Promise<number[]> {
  const { org } = r.caller;
  if (r.readsOwnWrites) return networkPeers(r.db, networkId, org.id);
  // The organization's, whatever sub-organization asks.
  const key = readKey(credentialVersions({ org, subOrg: null }), ["network"], "peers");
  const now = Date.parse(r.now);
  const kept = keptPeers.get(key, now);
  if (kept) return kept;
  const peers = await networkPeers(r.db, networkId, org.id);
  keptPeers.set(key, peers, PEERS_MAX_AGE_MS, now);
  return peers;
}

const asGroups = (kind: LabelKind, groups: AllOfAny): NameGroups =>
  groups.map((g) => g.map((name) => ({ kind, name })));

export async function videoQuery(r: Requester, params: VideoFilterParams): Promise<VideoQuery> {
  const { db, caller } = r;
  const { org } = caller;
  // Gated parameters (spec 4.2): without the entitlement, 403.
  if (params.mmi !== undefined) requireEntitlement(org, "mmi", "parameter mmi");
  if (params.networkVideos) requireEntitlement(org, "network", "parameter networkVideos");
  if (params.watchedByTput !== undefined)
    requireEntitlement(org, "watched_by_tput", "parameter watchedByTput");
  if (params.customFields !== undefined)
    requireEntitlement(org, "custom_fields", "parameter customFields");
  if (params.events !== undefined) requireEntitlement(org, "events", "parameter events");

  let subOrganizationId = caller.subOrg?.id ?? null;
  if (params.mmi !== undefined) {
    const sub = await findSubOrganization(db, org.id, params.mmi);
    if (!sub || (subOrganizationId !== null && sub.id !== subOrganizationId)) {
      throw invalid(`mmi: ${params.mmi} is not a sub-organization of this organization`);
    }
    subOrganizationId = sub.id;
  }

  let feed: VideoQuery["feed"];
  if (params.feedId !== undefined) {
    const found = await findFeedByFeedId(db, params.feedId);
    // A sub-organization's caller sees its own feeds only, as it sees its own content only.
    if (!found || !feedVisibleTo(scopeOf(caller), found))
      throw notFound(`feedId: feed ${params.feedId} does not exist`);
    feed = feedMembership(found);
  }

  const peers =
    params.networkVideos && org.networkId !== null ? await peersOf(r, org.networkId) : [];
  const names: NameGroups = [];
  if (params.categories !== undefined)
    names.push(...asGroups("category", parseAllOfAny("categories", params.categories)));
  if (params.tags !== undefined) names.push(...asGroups("tag", parseAllOfAny("tags", params.tags)));
  if (params.events !== undefined)
    names.push(...asGroups("event", parseAllOfAny("events", params.events)));

  return {
    organizationId: org.id,
    subOrganizationId,
    network:
      peers.length && org.networkId !== null
        ? { networkId: org.networkId, peers, country: r.country }
        : null,
    contentKey: params.contentKey,
    contentKeys:
      params.watchedByTput !== undefined
        ? await watchedContentKeys(
            statsDbOf(db, org),
            org.id,
            await hashTput(org.id, params.watchedByTput),
          )
        : undefined,
    feed,
    names,
    customFields: params.customFields !== undefined ? parseCustomFields(params.customFields) : [],
    text:
      params.searchString !== undefined && params.searchString.trim() !== ""
        ? parseAllOfAny("searchString", params.searchString, SEARCH_LIMITS)
        : [],
  };
}
