// Lookups that every hot read repeats (credentials, a public feed's owner and catalog version),
// kept in the isolate for a short, bounded time (CREDENTIAL_CACHE_SECONDS, default 30). Each
// entry remembers its organization, so a change to that organization drops its entries at once
// in the isolate that made it (forgetOrganization), or, when the change only moved its versions
// (a catalog write, counted statistics), gives its records the new versions in place
// (organizationVersionsMoved); other isolates see it within the bound.
// Misses are never kept: a credential that starts working works at once.
import type { Db } from "../db/client";
import { approximateBytes, isolateStore } from "../shared/isolate-memory";

/** What a kept lookup needs: the database, the clock and the bound. */
export interface LookupDeps {
  db: Db;
  nowMs: number;
  credentialCacheMs: number;
}

interface Entry {
  value: unknown;
  /** The organization's own record (a credential lookup): its versions can be moved in place. */
  isOrganization: boolean;
  organizationId: number;
  /** An organization's network: its entries hold the network's version too. */
  networkId: number | null;
}

const entries = isolateStore<Entry>({
  name: "credential lookups",
  bytes: 4 * 1024 * 1024,
  maxEntries: 10_000,
  // CREDENTIAL_CACHE_SECONDS is at most 300.
  maxAgeMs: 300_000,
  sizeOf: (entry) => 64 + approximateBytes(entry.value),
});

export async function keptLookup<T extends { id: number } | { organizationId: number }>(
  deps: LookupDeps,
  key: string,
  load: () => Promise<T | null>,
  what: "organization" | "other" = "other",
): Promise<T | null> {
  const hit = entries.get(key, deps.nowMs);
  if (hit) return hit.value as T;
  const value = await load();
  if (value === null) {
    entries.delete(key);
    return null;
  }
  const organizationId = "organizationId" in value ? value.organizationId : value.id;
  const networkId =
    "networkId" in value && typeof value.networkId === "number" ? value.networkId : null;
  entries.set(
    key,
    { value, isOrganization: what === "organization", organizationId, networkId },
    deps.credentialCacheMs,
    deps.nowMs,
  );
  return value;
}

/**
 * Drops what this isolate keeps of an organization (after a change to it or its catalog), and,
 * given its network, of every member: their network listings changed too.
 */
export function forgetOrganization(organizationId: number, networkId: number | null = null): void {
  entries.deleteWhere(
    (_, entry) =>
      entry.organizationId === organizationId ||
      (networkId !== null && entry.networkId === networkId),
  );
}

/** Versions of an organization that a write moved on, named as its rows hold them. */
export interface MovedVersions {
  catalogVersion?: number;
  listingVersion?: number;
  statsVersion?: number;
  /** The player version (its configurations, ad tag, ecommerce items: domain/player/). */
  playerVersion?: number;
}

/**
 * After a write that moved only the organization's versions (a video or feed change, counted
 * statistics, a player setting): its kept records take the new versions in place, so the next
 * reads in this isolate ask the new cache keys without reloading the credentials from D1 all at
 * once (every reader of the organization did, after every write); what else is kept of it (a
 * feed's version, sub-organizations, the player answers' versions) is dropped as
 * forgetOrganization drops it. Other isolates see the versions within the bound, as before.
 */
export function organizationVersionsMoved(organizationId: number, moved: MovedVersions): void {
  entries.deleteWhere(
    (_, entry) => entry.organizationId === organizationId && !entry.isOrganization,
  );
  entries.update((_, entry) => {
    if (entry.organizationId !== organizationId) return undefined;
    // Only forward: two writes finishing out of order must not take a version back.
    const record = { ...(entry.value as Record<string, unknown>) };
    for (const [name, version] of Object.entries(moved) as [
      keyof MovedVersions,
      number | undefined,
    ][]) {
      // A record takes the versions it holds (a credential's organization has no player version).
      if (version !== undefined && name in record && version > Number(record[name]))
        record[name] = version;
    }
    return { ...entry, value: record };
  });
}

/** Drops everything this isolate keeps (a change that reaches every organization). */
export function forgetEveryOrganization(): void {
  entries.clear();
}
