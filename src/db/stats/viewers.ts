// Viewer rows: erasure, and what a viewer watched (E6 watchedByTput).
import { and, eq } from "drizzle-orm";
import type { Db } from "../client";
import { viewerStats } from "../schema-stats";

/** Deletes every viewer row of a fingerprint or of a tput hash; returns how many rows went. */
export async function deleteViewerRows(
  db: Db,
  organizationId: number,
  who: { fingerprint: string } | { tputHash: string },
): Promise<number> {
  const match = "fingerprint" in who ? eq(viewerStats.fingerprint, who.fingerprint) : eq(viewerStats.tputHash, who.tputHash);
  const result = await db.delete(viewerStats).where(and(eq(viewerStats.organizationId, organizationId), match));
  return result.meta.changes ?? 0;
}

/** Content keys a viewer (by tput hash) has consented rows for, any day (E6 watchedByTput). */
export async function watchedContentKeys(db: Db, organizationId: number, tputHash: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ contentKey: viewerStats.contentKey })
    .from(viewerStats)
    .where(and(eq(viewerStats.organizationId, organizationId), eq(viewerStats.tputHash, tputHash)));
  return rows.map((r) => r.contentKey);
}
