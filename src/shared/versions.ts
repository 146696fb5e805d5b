// The versions a read depends on, and the one way every level (isolate memory, the edge cache)
// names them in a key (docs/architecture.md "Reads: versions, keys, levels"). A credential
// carries its organization's versions (read with it, kept with the credential lookups); a feed's
// public readers carry the feed's. Every write moves the versions it changes
// (domain/catalog-changed.ts), so the next read asks a new key at every level.

/** What a reader's answers may depend on. */
export type Dependency = "catalog" | "listing" | "statistics" | "network" | "player";

/** The versions of one reader, built once from its credential (or a public feed). */
export interface Versions {
  /** Who reads: `o<organization>.m<sub-organization or 0>`, or `f<feed>` for a feed's public readers. */
  reader: string;
  /** The organization's catalog version (a feed's own version for its public readers). */
  catalog: number;
  /**
   * Which videos a listing without a text filter holds, and their order: moved with the catalog
   * version except by edits of a video's text or media alone (a feed's own version for its
   * public readers).
   */
  listing: number;
  statistics: number;
  /** The network's id and catalog version; null outside any network. */
  network: { id: number; version: number } | null;
  /**
   * The organization's player version (its player configurations, ad tag, ecommerce items), for
   * the readers of the player's answer (playerVersions); absent for a credential's readers.
   */
  player?: number;
}

interface Credential {
  org: {
    id: number;
    catalogVersion: number;
    listingVersion: number;
    statsVersion: number;
    networkId: number | null;
    networkVersion: number;
  };
  subOrg: { id: number } | null;
}

/**
 * Who reads, as every key spells it: `o<organization>.m<sub-organization or 0>` (isolate memory's
 * keys, and the edge cache's caller part: middleware/edge-cache.ts).
 */
export const readerOf = ({ org, subOrg }: { org: { id: number }; subOrg: { id: number } | null }) =>
  `o${org.id}.m${subOrg?.id ?? 0}`;

/** An organization's versions, as its credential (and the sub-organization it names) carries them. */
export function credentialVersions({ org, subOrg }: Credential): Versions {
  return {
    reader: readerOf({ org, subOrg }),
    catalog: org.catalogVersion,
    listing: org.listingVersion,
    statistics: org.statsVersion,
    network: org.networkId === null ? null : { id: org.networkId, version: org.networkVersion },
  };
}

/**
 * The reader's versions: the record its authentication built (middleware/auth.ts sets it once per
 * request), else built now from the credential.
 */
export function versionsOf(credential: Credential & { versions?: Versions }): Versions {
  return credential.versions ?? credentialVersions(credential);
}

/** A feed's versions for its public readers: its own version moves with what can change them. */
export function feedVersions(feed: string | number, version: number): Versions {
  return { reader: `f${feed}`, catalog: version, listing: version, statistics: 0, network: null };
}

/**
 * The versions of the player's answer for a video (GET /v2/player/{contentKey}, public): its
 * organization's player version; the video row's revision is named beside them.
 */
export function playerVersions(organizationId: number, player: number): Versions {
  return {
    reader: `o${organizationId}.m0`,
    catalog: 0,
    listing: 0,
    statistics: 0,
    network: null,
    player,
  };
}

/**
 * The key parts naming the versions of the dependencies, in one order: `c<catalog>`,
 * `l<listing>`, `s<statistics>`, `n<network>v<version>` (`n-` outside a network), `p<player>` (`p-` for a
 * reader without one).
 */
export function versionParts(versions: Versions, dependsOn: readonly Dependency[]): string[] {
  const parts: string[] = [];
  if (dependsOn.includes("catalog")) parts.push(`c${versions.catalog}`);
  if (dependsOn.includes("listing")) parts.push(`l${versions.listing}`);
  if (dependsOn.includes("statistics")) parts.push(`s${versions.statistics}`);
  if (dependsOn.includes("network"))
    parts.push(versions.network ? `n${versions.network.id}v${versions.network.version}` : "n-");
  if (dependsOn.includes("player")) parts.push(`p${versions.player ?? "-"}`);
  return parts;
}

/**
 * A key of isolate memory: the reader, the versions of what the entry depends on, then what else
 * names it (a query, a row id). The edge cache builds its URL keys from the same parts
 * (middleware/edge-cache.ts cacheKey).
 */
export function readKey(
  versions: Versions,
  dependsOn: readonly Dependency[],
  ...rest: (string | number)[]
): string {
  return [versions.reader, ...versionParts(versions, dependsOn), ...rest].join(":");
}
