// Data layer: organizations, sub-organizations, networks and API tokens.
import { and, asc, eq, sql } from "drizzle-orm";
import { type Db, inList } from "./client";
import {
  apiTokens,
  type Entitlement,
  networks,
  type Organization,
  organizations,
  type Plan,
  type SubOrganization,
  subOrganizations,
} from "./schema";

/** The player's settings (adTagUrl, playerVersion) are read by the player's own queries (db/player.ts). */
export interface OrganizationWithNetwork extends Omit<Organization, "adTagUrl" | "playerVersion"> {
  networkName: string | null;
  /** The network's catalog version (0 without a network). */
  networkVersion: number;
}

const withNetwork = {
  id: organizations.id,
  organizationKey: organizations.organizationKey,
  name: organizations.name,
  syncCode: organizations.syncCode,
  apiKey: organizations.apiKey,
  apiSecretHash: organizations.apiSecretHash,
  playerTokenKey: organizations.playerTokenKey,
  playerTokensRequired: organizations.playerTokensRequired,
  signedPlayback: organizations.signedPlayback,
  enforcePlaybackWindows: organizations.enforcePlaybackWindows,
  allowedSites: organizations.allowedSites,
  referrerRequired: organizations.referrerRequired,
  plan: organizations.plan,
  entitlements: organizations.entitlements,
  networkId: organizations.networkId,
  catalogVersion: organizations.catalogVersion,
  listingVersion: organizations.listingVersion,
  statsVersion: organizations.statsVersion,
  statsShard: organizations.statsShard,
  createdAt: organizations.createdAt,
  keySignIn: organizations.keySignIn,
  // Aliased: the metered D1 driver keys raw rows by column name, and both tables have "name".
  networkName: sql<string | null>`${networks.name}`.as("network_name"),
  networkVersion: sql<number>`coalesce(${networks.catalogVersion}, 0)`
    .mapWith(Number)
    .as("network_version"),
};

function selectOrganizations(db: Db) {
  return db
    .select(withNetwork)
    .from(organizations)
    .leftJoin(networks, eq(networks.id, organizations.networkId));
}

export async function findOrganizationBySyncCode(db: Db, syncCode: string) {
  const [row] = await selectOrganizations(db).where(eq(organizations.syncCode, syncCode)).limit(1);
  return row ?? null;
}

export async function findOrganizationById(db: Db, id: number) {
  const [row] = await selectOrganizations(db).where(eq(organizations.id, id)).limit(1);
  return row ?? null;
}

export async function findOrganizationByKey(db: Db, organizationKey: string) {
  const [row] = await selectOrganizations(db)
    .where(eq(organizations.organizationKey, organizationKey))
    .limit(1);
  return row ?? null;
}

export async function findOrganizationByApiKey(db: Db, apiKey: string) {
  const [row] = await selectOrganizations(db).where(eq(organizations.apiKey, apiKey)).limit(1);
  return row ?? null;
}

export async function findOrganizationByTokenHash(db: Db, tokenHash: string) {
  const [row] = await selectOrganizations(db)
    .innerJoin(apiTokens, eq(apiTokens.organizationId, organizations.id))
    .where(eq(apiTokens.tokenHash, tokenHash))
    .limit(1);
  return row ?? null;
}

export async function findSubOrganization(db: Db, organizationId: number, mmiKey: string) {
  const [row] = await db
    .select()
    .from(subOrganizations)
    .where(
      and(eq(subOrganizations.organizationId, organizationId), eq(subOrganizations.mmiKey, mmiKey)),
    )
    .limit(1);
  return row ?? null;
}

export async function listOrganizations(db: Db) {
  return selectOrganizations(db).orderBy(asc(organizations.id));
}

export async function listSubOrganizations(
  db: Db,
  organizationId: number,
): Promise<SubOrganization[]> {
  return db
    .select()
    .from(subOrganizations)
    .where(eq(subOrganizations.organizationId, organizationId))
    .orderBy(asc(subOrganizations.id));
}

/** Returns the id of the named network, creating it when new. */
export async function ensureNetwork(db: Db, name: string, now: string): Promise<number> {
  const [row] = await db
    .insert(networks)
    .values({ name, createdAt: now })
    .onConflictDoUpdate({ target: networks.name, set: { name: sql`excluded.name` } })
    .returning({ id: networks.id });
  return row!.id;
}

export interface NewOrganization {
  organizationKey: string;
  name: string;
  plan: Plan;
  entitlements: Entitlement[];
  networkId: number | null;
  statsShard: number;
  syncCode: string;
  apiKey: string;
  apiSecretHash: string;
  playerTokenKey: string;
  tokenHash: string;
  now: string;
}

export async function insertOrganization(db: Db, org: NewOrganization): Promise<void> {
  await db.batch([
    db.insert(organizations).values({
      organizationKey: org.organizationKey,
      name: org.name,
      plan: org.plan,
      entitlements: org.entitlements,
      networkId: org.networkId,
      statsShard: org.statsShard,
      syncCode: org.syncCode,
      apiKey: org.apiKey,
      apiSecretHash: org.apiSecretHash,
      playerTokenKey: org.playerTokenKey,
      createdAt: org.now,
    }),
    // Insert-select addresses the new organization by key, so both rows land in one atomic batch.
    // (Drizzle's insert-select wants every column, in table order; a null id autoincrements.)
    db.insert(apiTokens).select(
      db
        .select({
          id: sql<number>`null`.as("id"),
          organizationId: organizations.id,
          tokenHash: sql<string>`${org.tokenHash}`.as("token_hash"),
          createdAt: sql<string>`${org.now}`.as("created_at"),
          name: sql<string>`'organization token'`.as("name"),
          kind: sql<"organization">`'organization'`.as("kind"),
          scope: sql<"full">`'full'`.as("scope"),
          memberId: sql<null>`null`.as("member_id"),
          expiresAt: sql<null>`null`.as("expires_at"),
        })
        .from(organizations)
        .where(eq(organizations.organizationKey, org.organizationKey)),
    ),
  ]);
}

export async function updateOrganization(
  db: Db,
  organizationId: number,
  changes: Partial<
    Pick<
      Organization,
      | "plan"
      | "entitlements"
      | "networkId"
      | "name"
      | "playerTokensRequired"
      | "enforcePlaybackWindows"
      | "allowedSites"
      | "referrerRequired"
      | "keySignIn"
    >
  >,
): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.update(organizations).set(changes).where(eq(organizations.id, organizationId));
}

export interface CredentialChanges {
  syncCode?: string;
  apiKey?: string;
  apiSecretHash?: string;
  playerTokenKey?: string;
  /** Replaces the organization's own API token (not its members' or applications' tokens) with this one. */
  tokenHash?: string;
  now: string;
}

export async function replaceCredentials(
  db: Db,
  organizationId: number,
  changes: CredentialChanges,
) {
  const { tokenHash, now, ...columns } = changes;
  const statements = [];
  if (Object.keys(columns).length > 0) {
    statements.push(
      db.update(organizations).set(columns).where(eq(organizations.id, organizationId)),
    );
  }
  if (tokenHash) {
    statements.push(
      db
        .delete(apiTokens)
        .where(
          and(eq(apiTokens.organizationId, organizationId), eq(apiTokens.kind, "organization")),
        ),
    );
    statements.push(
      db
        .insert(apiTokens)
        .values({ organizationId, tokenHash, createdAt: now, name: "organization token" }),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
}

export async function insertSubOrganization(
  db: Db,
  values: { organizationId: number; name: string; mmiKey: string; now: string },
): Promise<SubOrganization> {
  const [row] = await db
    .insert(subOrganizations)
    .values({
      organizationId: values.organizationId,
      name: values.name,
      mmiKey: values.mmiKey,
      createdAt: values.now,
    })
    .returning();
  return row!;
}

/**
 * A change of the organization's catalog: its version moves on, and its listing version with it
 * unless `listings` is false (the change cannot change which videos a listing without a text
 * filter holds). Returns the new versions and the organization's network, whose version moves
 * only when the change reaches its listings (catalogChanged decides); null when there is no
 * such organization.
 */
export async function bumpCatalogVersion(
  db: Db,
  organizationId: number,
  listings = true,
): Promise<{ catalogVersion: number; listingVersion: number; networkId: number | null } | null> {
  const [org] = await db
    .update(organizations)
    .set({
      catalogVersion: sql`${organizations.catalogVersion} + 1`,
      ...(listings && { listingVersion: sql`${organizations.listingVersion} + 1` }),
    })
    .where(eq(organizations.id, organizationId))
    .returning({
      catalogVersion: organizations.catalogVersion,
      listingVersion: organizations.listingVersion,
      networkId: organizations.networkId,
    });
  return org ?? null;
}

/** A change of the network's membership: its members' network listings change. */
export async function bumpNetworkVersion(db: Db, networkId: number): Promise<void> {
  await db
    .update(networks)
    .set({ catalogVersion: sql`${networks.catalogVersion} + 1` })
    .where(eq(networks.id, networkId));
}

/** A change of the organizations' statistics (counted events, erasure, ecommerce items): their versions move on; the new values. */
export async function bumpStatsVersion(
  db: Db,
  organizationIds: number | readonly number[],
): Promise<{ id: number; statsVersion: number }[]> {
  const ids = typeof organizationIds === "number" ? [organizationIds] : organizationIds;
  if (ids.length === 0) return [];
  return db
    .update(organizations)
    .set({ statsVersion: sql`${organizations.statsVersion} + 1` })
    .where(inList(organizations.id, ids))
    .returning({ id: organizations.id, statsVersion: organizations.statsVersion });
}

/** Deletes the organization; its catalog rows cascade (its statistics live in the statistics database). */
export async function deleteOrganization(db: Db, organizationId: number): Promise<void> {
  await db.delete(organizations).where(eq(organizations.id, organizationId));
}

/** How many organizations each statistics shard holds. */
export async function organizationsPerStatsShard(db: Db): Promise<Map<number, number>> {
  const rows = await db
    .select({ shard: organizations.statsShard, n: sql<number>`count(*)` })
    .from(organizations)
    .groupBy(organizations.statsShard);
  return new Map(rows.map((r) => [r.shard, r.n]));
}
