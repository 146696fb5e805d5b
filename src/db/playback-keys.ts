// Data layer of signed playback: the organizations' playback signing keys, and what a media
// request needs to know to check a token (whose video, whether it requires one).
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client";
import { contents, organizations } from "./schema";
import { type PlaybackKeyAlgorithm, playbackKeys } from "./schema-playback";

export type PlaybackKeyRow = typeof playbackKeys.$inferSelect;
export type { PlaybackKeyAlgorithm };

export async function playbackKeysOf(db: Db, organizationId: number): Promise<PlaybackKeyRow[]> {
  return db
    .select()
    .from(playbackKeys)
    .where(eq(playbackKeys.organizationId, organizationId))
    .orderBy(playbackKeys.id);
}

export async function insertPlaybackKey(
  db: Db,
  row: Omit<PlaybackKeyRow, "id">,
): Promise<PlaybackKeyRow> {
  const [inserted] = await db.insert(playbackKeys).values(row).returning();
  return inserted!;
}

/** Deletes the key if the organization owns it; whether it did. */
export async function deletePlaybackKey(
  db: Db,
  organizationId: number,
  keyId: string,
): Promise<boolean> {
  const deleted = await db
    .delete(playbackKeys)
    .where(and(eq(playbackKeys.organizationId, organizationId), eq(playbackKeys.keyId, keyId)))
    .returning({ id: playbackKeys.id });
  return deleted.length > 0;
}

export async function setOrganizationSignedPlayback(
  db: Db,
  organizationId: number,
  signedPlayback: boolean,
): Promise<void> {
  await db
    .update(organizations)
    .set({ signedPlayback })
    .where(eq(organizations.id, organizationId));
}

export async function organizationSignedPlayback(db: Db, organizationId: number): Promise<boolean> {
  const [row] = await db
    .select({ signedPlayback: organizations.signedPlayback })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return row?.signedPlayback ?? false;
}

/**
 * The playback rule of the content under a key (one indexed lookup by the unique content key):
 * its organization and whether it needs a token (its own setting, else its organization's).
 * Null when no content has the key (the servable check answers those).
 */
export async function playbackRuleOf(
  db: Db,
  contentKey: string,
): Promise<{ organizationId: number; signed: boolean } | null> {
  const [row] = await db
    .select({
      organizationId: contents.organizationId,
      own: contents.signedPlayback,
      // Aliased: the metered D1 driver keys raw rows by column name, and both tables have it.
      org: sql<number>`${organizations.signedPlayback}`.mapWith(Number).as("org_signed_playback"),
    })
    .from(contents)
    .innerJoin(organizations, eq(organizations.id, contents.organizationId))
    .where(eq(contents.contentKey, contentKey))
    .limit(1);
  return row ? { organizationId: row.organizationId, signed: row.own ?? row.org === 1 } : null;
}
