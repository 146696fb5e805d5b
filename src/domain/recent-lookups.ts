// Lookups that every hot read repeats (credentials, a public feed's owner and catalog version),
// kept in the isolate for a short, bounded time (CREDENTIAL_CACHE_SECONDS, default 30). Each
// entry remembers its organization, so a change to that organization drops its entries at once
// in the isolate that made it (forgetOrganization); other isolates see it within the bound.
// Misses are never kept: a credential that starts working works at once.
import type { Db } from "../db/client";

/** What a remembered lookup needs: the database, the clock and the bound. */
export interface LookupDeps {
  db: Db;
  nowMs: number;
  credentialCacheMs: number;
}

interface Entry {
  value: unknown;
  organizationId: number;
  /** An organization's network: its entries hold the network's version too. */
  networkId: number | null;
  until: number;
}

/** A bound on memory: past it the isolate starts over (entries are cheap to reload). */
const MAX_ENTRIES = 10_000;
const entries = new Map<string, Entry>();

export async function remembered<T extends { id: number } | { organizationId: number }>(
  deps: LookupDeps,
  key: string,
  load: () => Promise<T | null>,
): Promise<T | null> {
  const hit = entries.get(key);
  if (hit && hit.until > deps.nowMs) return hit.value as T;
  const value = await load();
  if (value === null) {
    entries.delete(key);
    return null;
  }
  if (entries.size >= MAX_ENTRIES) entries.clear();
  const organizationId = "organizationId" in value ? value.organizationId : value.id;
  const networkId = "networkId" in value && typeof value.networkId === "number" ? value.networkId : null;
  entries.set(key, { value, organizationId, networkId, until: deps.nowMs + deps.credentialCacheMs });
  return value;
}

/**
 * Drops what this isolate keeps of an organization (after a change to it or its catalog), and,
 * given its network, of every member: their network listings changed too.
 */
export function forgetOrganization(organizationId: number, networkId: number | null = null): void {
  for (const [key, entry] of entries) {
    if (entry.organizationId === organizationId || (networkId !== null && entry.networkId === networkId)) entries.delete(key);
  }
}

/** Drops everything this isolate keeps (a change that reaches every organization). */
export function forgetEveryOrganization(): void {
  entries.clear();
}
