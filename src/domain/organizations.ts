// Organizations and their credentials (the operator API): create, change, rotate, delete.
// Secrets appear only in the answer that creates or rotates them; the database keeps hashes.

import { isUniqueViolation } from "../db/client";
import { deleteOrganizationSessions } from "../db/console-sessions";
import { organizationObjects } from "../db/content";
import { listFeeds } from "../db/feeds";
import { refreshOrganizationListings } from "../db/network-listings";
import {
  bumpCatalogVersion,
  bumpNetworkVersion,
  deleteOrganization as deleteOrganizationRows,
  ensureNetwork,
  findOrganizationByKey,
  insertOrganization,
  insertSubOrganization,
  listOrganizations as listOrganizationRows,
  listSubOrganizations,
  type OrganizationWithNetwork,
  replaceCredentials,
  updateOrganization as updateOrganizationRow,
} from "../db/organizations";
import type { Entitlement, Plan } from "../db/schema";
import { DEFAULT_SHARD, isStatsShard, statsShardCount } from "../db/stats/shards";
import { findStatsMove } from "../db/stats-moves";
import { randomAlphanumeric, randomToken, sha256Hex } from "../shared/crypto";
import { invalid, notFound } from "../shared/errors";
import { removeFeedFiles, removeOrgFeedList } from "../storage/feed-files";
import { frameThumbnailKey, thumbnailKey } from "../storage/layout";
import { deleteCaptionObjects } from "./captions/tracks";
import { catalogChanged } from "./catalog-changed";
import type { Deps } from "./deps";
import { feedFileStore } from "./feeds/publisher";
import { applyIsolateEffects } from "./isolate-effects";
import { PLAN_LIMITS } from "./rate-limit";
import { deleteRenditionObjects } from "./renditions";
import { eraseOrganizationStatistics } from "./stats/erasure";
import { playerTokenKey } from "./stats/player-tokens";
import { moveStatus } from "./stats/shard-moves";
import { streamObjectKeys } from "./streaming/indexes";

export const CREDENTIAL_PARTS = ["syncCode", "apiKey", "apiSecret", "apiToken"] as const;
export type CredentialPart = (typeof CREDENTIAL_PARTS)[number];
export type IssuedCredentials = Record<CredentialPart, string>;

/** Fresh credentials from the platform CSPRNG (secrets and tokens carry 256 bits). */
export function generateCredentials(): IssuedCredentials {
  return {
    syncCode: `sc_${randomAlphanumeric(20)}`,
    apiKey: `ak_${randomAlphanumeric(20)}`,
    apiSecret: `as_${randomToken(32)}`,
    apiToken: `at_${randomToken(32)}`,
  };
}

/** An organization as the operator sees it (no secret, no hash). */
export function organizationView(org: OrganizationWithNetwork) {
  return {
    organizationKey: org.organizationKey,
    name: org.name,
    syncCode: org.syncCode,
    apiKey: org.apiKey,
    plan: org.plan,
    entitlements: org.entitlements,
    network: org.networkName,
    playerTokensRequired: org.playerTokensRequired,
    enforcePlaybackWindows: org.enforcePlaybackWindows,
    allowedSites: org.allowedSites,
    referrerRequired: org.referrerRequired,
    createdAt: org.createdAt,
  };
}

/** The operator's view: the organization's, and where its statistics live. */
export function operatorOrganizationView(org: OrganizationWithNetwork) {
  return { ...organizationView(org), statsShard: org.statsShard };
}

type OrgDeps = Pick<Deps, "db" | "now">;

export async function listOrganizations(deps: Pick<Deps, "db">) {
  return (await listOrganizationRows(deps.db)).map(operatorOrganizationView);
}

/** An organization and its sub-organizations. */
export async function showOrganization(deps: Pick<Deps, "db">, organizationKey: string) {
  const org = await loadOrganization(deps, organizationKey);
  const [subs, move] = await Promise.all([
    listSubOrganizations(deps.db, org.id),
    findStatsMove(deps.db, org.id),
  ]);
  return {
    organization: operatorOrganizationView(org),
    subOrganizations: subs.map((s) => ({ name: s.name, mmiKey: s.mmiKey, createdAt: s.createdAt })),
    statisticsMove: move ? moveStatus(org.organizationKey, move) : null,
  };
}

/**
 * The organization's own record for its settings page (self-service, write credentials): the
 * operator's view, the plan's limit and the sub-organizations in the caller's scope.
 */
export async function ownOrganization(
  deps: Pick<Deps, "db">,
  org: OrganizationWithNetwork,
  subOrg: { id: number } | null,
) {
  const subs = await listSubOrganizations(deps.db, org.id);
  return {
    ...organizationView(org),
    requestsPerMinute: PLAN_LIMITS[org.plan],
    subOrganizations: subs
      .filter((s) => !subOrg || s.id === subOrg.id)
      .map((s) => ({ name: s.name, mmiKey: s.mmiKey, createdAt: s.createdAt })),
  };
}

export async function loadOrganization(
  deps: Pick<Deps, "db">,
  organizationKey: string,
): Promise<OrganizationWithNetwork> {
  const org = await findOrganizationByKey(deps.db, organizationKey);
  if (!org) throw notFound(`organization ${organizationKey} does not exist`);
  return org;
}

async function networkId(deps: OrgDeps, name: string | null | undefined) {
  if (name === undefined) return undefined;
  return name === null ? null : ensureNetwork(deps.db, name, deps.now.toISOString());
}

export interface NewOrganizationInput {
  organizationKey: string;
  name?: string;
  plan: Plan;
  entitlements: Entitlement[];
  network?: string | null;
  /** The statistics shard (default 0, STATS_DB). */
  statsShard?: number;
}

export async function createOrganization(deps: OrgDeps, input: NewOrganizationInput) {
  if (await findOrganizationByKey(deps.db, input.organizationKey)) {
    throw invalid(`organizationKey: ${input.organizationKey} is already in use`);
  }
  const statsShard = input.statsShard ?? DEFAULT_SHARD;
  if (!isStatsShard(statsShard))
    throw invalid(
      `statsShard: ${statsShard} is not a statistics shard of this worker (0 to ${statsShardCount() - 1})`,
    );
  const credentials = generateCredentials();
  await insertOrganization(deps.db, {
    statsShard,
    organizationKey: input.organizationKey,
    name: input.name ?? input.organizationKey,
    plan: input.plan,
    entitlements: [...new Set(input.entitlements)],
    networkId: (await networkId(deps, input.network)) ?? null,
    syncCode: credentials.syncCode,
    apiKey: credentials.apiKey,
    apiSecretHash: await sha256Hex(credentials.apiSecret),
    playerTokenKey: await playerTokenKey(credentials.apiSecret),
    tokenHash: await sha256Hex(credentials.apiToken),
    now: deps.now.toISOString(),
  });
  return {
    organization: operatorOrganizationView(await loadOrganization(deps, input.organizationKey)),
    credentials,
  };
}

export interface OrganizationChanges {
  name?: string;
  plan?: Plan;
  entitlements?: Entitlement[];
  network?: string | null;
  playerTokensRequired?: boolean;
  enforcePlaybackWindows?: boolean;
  allowedSites?: string[];
  referrerRequired?: boolean;
}

export async function changeOrganization(
  deps: OrgDeps,
  organizationKey: string,
  changes: OrganizationChanges,
) {
  const org = await loadOrganization(deps, organizationKey);
  if (changes.playerTokensRequired && !org.playerTokenKey) {
    throw invalid(
      "playerTokensRequired: this organization's API secret predates player tokens; rotate the API secret first",
    );
  }
  const network = await networkId(deps, changes.network);
  await updateOrganizationRow(deps.db, org.id, {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.plan !== undefined && { plan: changes.plan }),
    ...(changes.entitlements !== undefined && { entitlements: [...new Set(changes.entitlements)] }),
    ...(network !== undefined && { networkId: network }),
    ...(changes.playerTokensRequired !== undefined && {
      playerTokensRequired: changes.playerTokensRequired,
    }),
    // Media see these within SERVABLE_TTL_MS (domain/files.ts): no catalog read changes.
    ...(changes.enforcePlaybackWindows !== undefined && {
      enforcePlaybackWindows: changes.enforcePlaybackWindows,
    }),
    ...(changes.allowedSites !== undefined && { allowedSites: [...new Set(changes.allowedSites)] }),
    ...(changes.referrerRequired !== undefined && { referrerRequired: changes.referrerRequired }),
  });
  if (network !== undefined && network !== org.networkId) {
    // Both networks' listings change: the new one through the organization's catalog version.
    const joined = (await bumpCatalogVersion(deps.db, org.id))?.networkId ?? null;
    if (joined !== null) await bumpNetworkVersion(deps.db, joined);
    applyIsolateEffects({ organizations: [{ organizationId: org.id, networkId: joined }] });
    if (org.networkId !== null) await bumpNetworkVersion(deps.db, org.networkId);
    await refreshOrganizationListings(deps.db, org.id, deps.now.toISOString());
  }
  applyIsolateEffects({ organizations: [{ organizationId: org.id, networkId: org.networkId }] });
  return operatorOrganizationView(await loadOrganization(deps, organizationKey));
}

export async function createSubOrganization(
  deps: OrgDeps,
  organizationKey: string,
  input: { name: string; mmiKey?: string },
) {
  const org = await loadOrganization(deps, organizationKey);
  const mmiKey = input.mmiKey ?? `mmi_${randomAlphanumeric(16)}`;
  try {
    const sub = await insertSubOrganization(deps.db, {
      organizationId: org.id,
      name: input.name,
      mmiKey,
      now: deps.now.toISOString(),
    });
    return { name: sub.name, mmiKey: sub.mmiKey };
  } catch (err) {
    if (isUniqueViolation(err, "sub_organizations.mmi_key"))
      throw invalid(`mmiKey: ${mmiKey} is already in use`);
    throw err;
  }
}

/**
 * Replaces the chosen credentials; the old ones stop working at once, and so do the console
 * sessions opened with them (all but `keepSessionHash`, the session asking). A new sync code
 * moves the feed list.
 */
export async function rotateCredentials(
  deps: Deps,
  organizationKey: string,
  parts: readonly CredentialPart[],
  keepSessionHash: string | null = null,
) {
  const org = await loadOrganization(deps, organizationKey);
  const fresh = generateCredentials();
  const issued: Partial<IssuedCredentials> = {};
  for (const part of parts) issued[part] = fresh[part];
  await replaceCredentials(deps.db, org.id, {
    ...(issued.syncCode && { syncCode: issued.syncCode }),
    ...(issued.apiKey && { apiKey: issued.apiKey }),
    ...(issued.apiSecret && {
      apiSecretHash: await sha256Hex(issued.apiSecret),
      playerTokenKey: await playerTokenKey(issued.apiSecret),
    }),
    ...(issued.apiToken && { tokenHash: await sha256Hex(issued.apiToken) }),
    now: deps.now.toISOString(),
  });
  applyIsolateEffects({ organizations: [{ organizationId: org.id, networkId: null }] });
  await deleteOrganizationSessions(deps.db, org.id, keepSessionHash);
  if (issued.syncCode)
    await catalogChanged(deps, org.id, { kind: "sync-code", previous: org.syncCode });
  return { rotated: [...new Set(parts)], credentials: issued };
}

/**
 * Deletes an organization: its statistics (in the statistics database, first, so that a failure
 * leaves the organization there to delete again), its metadata (cascading), its published files
 * before the answer, its open uploads and media after it.
 */
export async function deleteOrganization(deps: Deps, organizationKey: string) {
  const org = await loadOrganization(deps, organizationKey);
  const [feeds, objects] = await Promise.all([
    listFeeds(deps.db, org.id),
    organizationObjects(deps.db, org.id),
  ]);
  await eraseOrganizationStatistics(deps.db, org.id);
  await deleteOrganizationRows(deps.db, org.id);
  if (org.networkId !== null) await bumpNetworkVersion(deps.db, org.networkId);
  applyIsolateEffects({ organizations: [{ organizationId: org.id, networkId: org.networkId }] });
  await removeOrgFeedList(feedFileStore(deps), org.syncCode);
  await removeFeedFiles(
    feedFileStore(deps),
    feeds.map((f) => f.feedId),
  );
  deps.defer(removeMedia(deps.bucket, objects));
  return { deleted: org.organizationKey, feeds: feeds.length, videos: objects.length };
}

async function removeMedia(
  bucket: R2Bucket,
  objects: { id: number; contentKey: string; mediaKey: string; uploadId: string | null }[],
) {
  for (const o of objects) {
    if (o.uploadId)
      await bucket
        .resumeMultipartUpload(o.mediaKey, o.uploadId)
        .abort()
        .catch(() => undefined);
  }
  const keys = objects.flatMap((o) => [
    o.mediaKey,
    thumbnailKey(o.contentKey),
    frameThumbnailKey(o.contentKey),
    ...streamObjectKeys(o),
  ]);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
  for (const o of objects) {
    await deleteRenditionObjects(bucket, o);
    await deleteCaptionObjects(bucket, o);
  }
}
