// Data layer of the service's own player (issue 38): player configurations, the organization's
// ad tag and player version, and the copy of ecommerce items the player shows.
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { type Db, inList } from "./client";
import { contents, feeds, type ItemPlacement, organizations } from "./schema";
import {
  type PlayerConfigurationRow,
  type PlayerItemRow,
  playerConfigurations,
  playerItems,
} from "./schema-player";

/** A configuration with its related feed's public id (null: none, or the feed was deleted). */
export type PlayerConfiguration = PlayerConfigurationRow & { relatedFeedKey: string | null };

export type PlayerConfigurationValues = Pick<
  PlayerConfigurationRow,
  | "name"
  | "autoplay"
  | "adsEnabled"
  | "adTagUrl"
  | "midrolls"
  | "docking"
  | "accentColor"
  | "logoUrl"
  | "relatedFeedId"
>;

function selectConfigurations(db: Db) {
  return db
    .select({
      id: playerConfigurations.id,
      configId: playerConfigurations.configId,
      organizationId: playerConfigurations.organizationId,
      name: playerConfigurations.name,
      autoplay: playerConfigurations.autoplay,
      adsEnabled: playerConfigurations.adsEnabled,
      adTagUrl: playerConfigurations.adTagUrl,
      midrolls: playerConfigurations.midrolls,
      docking: playerConfigurations.docking,
      accentColor: playerConfigurations.accentColor,
      logoUrl: playerConfigurations.logoUrl,
      relatedFeedId: playerConfigurations.relatedFeedId,
      createdAt: playerConfigurations.createdAt,
      updatedAt: playerConfigurations.updatedAt,
      // Aliased: the metered D1 driver keys raw rows by column name.
      relatedFeedKey: sql<string | null>`${feeds.feedId}`.as("related_feed_key"),
    })
    .from(playerConfigurations)
    .leftJoin(feeds, eq(feeds.id, playerConfigurations.relatedFeedId));
}

export async function findPlayerConfiguration(
  db: Db,
  organizationId: number,
  configId: string,
): Promise<PlayerConfiguration | null> {
  const [row] = await selectConfigurations(db)
    .where(
      and(
        eq(playerConfigurations.organizationId, organizationId),
        eq(playerConfigurations.configId, configId),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** A page of the organization's configurations, oldest first, after the `cursor` one (exclusive). */
export async function listPlayerConfigurations(
  db: Db,
  organizationId: number,
  options: { limit: number; cursor?: string },
): Promise<PlayerConfiguration[]> {
  const after = options.cursor
    ? gt(
        playerConfigurations.id,
        sql`coalesce((select ${playerConfigurations.id} from ${playerConfigurations} where ${playerConfigurations.configId} = ${options.cursor}), 0)`,
      )
    : undefined;
  return selectConfigurations(db)
    .where(and(eq(playerConfigurations.organizationId, organizationId), after))
    .orderBy(asc(playerConfigurations.id))
    .limit(options.limit);
}

export async function insertPlayerConfiguration(
  db: Db,
  row: PlayerConfigurationValues & { configId: string; organizationId: number; now: string },
): Promise<void> {
  const { now, ...values } = row;
  await db.insert(playerConfigurations).values({ ...values, createdAt: now, updatedAt: now });
}

/** How many configurations the organization has (player_configurations_org_idx). */
export async function countPlayerConfigurations(db: Db, organizationId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(playerConfigurations)
    .where(eq(playerConfigurations.organizationId, organizationId));
  return Number(row?.n ?? 0);
}

export async function updatePlayerConfiguration(
  db: Db,
  id: number,
  values: PlayerConfigurationValues,
  now: string,
): Promise<void> {
  await db
    .update(playerConfigurations)
    .set({ ...values, updatedAt: now })
    .where(eq(playerConfigurations.id, id));
}

export async function deletePlayerConfiguration(db: Db, id: number): Promise<void> {
  await db.delete(playerConfigurations).where(eq(playerConfigurations.id, id));
}

/** The organization's feed with this public id (null: none of its feeds). */
export async function organizationFeedId(
  db: Db,
  organizationId: number,
  feedKey: string,
): Promise<number | null> {
  const [row] = await db
    .select({ id: feeds.id })
    .from(feeds)
    .where(and(eq(feeds.organizationId, organizationId), eq(feeds.feedId, feedKey)))
    .limit(1);
  return row?.id ?? null;
}

/** The organization's player settings. */
export async function organizationAdTag(db: Db, organizationId: number): Promise<string | null> {
  const [row] = await db
    .select({ adTagUrl: organizations.adTagUrl })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return row?.adTagUrl ?? null;
}

export async function setOrganizationAdTag(
  db: Db,
  organizationId: number,
  adTagUrl: string | null,
): Promise<void> {
  await db.update(organizations).set({ adTagUrl }).where(eq(organizations.id, organizationId));
}

/**
 * Moves the organization's player version on (GET /v2/player answers get new cache keys) and
 * returns it; null when no organization has the id.
 */
export async function bumpPlayerVersion(db: Db, organizationId: number): Promise<number | null> {
  const [row] = await db
    .update(organizations)
    .set({ playerVersion: sql`${organizations.playerVersion} + 1` })
    .where(eq(organizations.id, organizationId))
    .returning({ playerVersion: organizations.playerVersion });
  return row?.playerVersion ?? null;
}

/** What the public player answer's cache key depends on besides its URL. */
export interface PlayerVersions {
  organizationId: number;
  /** The content row's updatedAt (E4 moves it). */
  revision: string;
  playerVersion: number;
}

export async function playerVersions(db: Db, contentKey: string): Promise<PlayerVersions | null> {
  const [row] = await db
    .select({
      organizationId: contents.organizationId,
      revision: contents.updatedAt,
      playerVersion: organizations.playerVersion,
    })
    .from(contents)
    .innerJoin(organizations, eq(organizations.id, contents.organizationId))
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row ?? null;
}

/** What the player shows of a video beyond its playback (embedPlayback gives that). */
export interface PlayerVideo {
  organizationId: number;
  description: string;
  duration: number | null;
  adTagUrl: string | null;
  itemPlacements: ItemPlacement[];
  organizationAdTagUrl: string | null;
}

export async function playerVideo(db: Db, contentKey: string): Promise<PlayerVideo | null> {
  const [row] = await db
    .select({
      organizationId: contents.organizationId,
      description: contents.description,
      duration: contents.duration,
      adTagUrl: contents.adTagUrl,
      itemPlacements: contents.itemPlacements,
      // Aliased: both tables have ad_tag_url.
      organizationAdTagUrl: sql<string | null>`${organizations.adTagUrl}`.as("org_ad_tag_url"),
    })
    .from(contents)
    .innerJoin(organizations, eq(organizations.id, contents.organizationId))
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row ?? null;
}

export async function playerItemsOf(
  db: Db,
  organizationId: number,
  keys: readonly string[],
): Promise<PlayerItemRow[]> {
  if (keys.length === 0) return [];
  return db
    .select()
    .from(playerItems)
    .where(
      and(eq(playerItems.organizationId, organizationId), inList(playerItems.ecommerceKey, keys)),
    );
}

export async function upsertPlayerItems(db: Db, items: PlayerItemRow[]): Promise<void> {
  for (const item of items) {
    const { organizationId, ecommerceKey, ...shown } = item;
    await db
      .insert(playerItems)
      .values(item)
      .onConflictDoUpdate({
        target: [playerItems.organizationId, playerItems.ecommerceKey],
        set: shown,
      });
  }
}

export async function deletePlayerItem(
  db: Db,
  organizationId: number,
  ecommerceKey: string,
): Promise<void> {
  await db
    .delete(playerItems)
    .where(
      and(
        eq(playerItems.organizationId, organizationId),
        eq(playerItems.ecommerceKey, ecommerceKey),
      ),
    );
}
