// Viewer rows: erasure, retention, and what a viewer watched (E6 watchedByTput).
import { and, asc, eq, gt, like, lt, sql } from "drizzle-orm";
import type { StatsDb } from "./client";
import { dimensionValues, viewerStats } from "./schema";

/** Deletes every viewer row of a fingerprint or of a tput hash; returns how many rows went. */
export async function deleteViewerRows(
  db: StatsDb,
  organizationId: number,
  who: { fingerprint: string } | { tputHash: string },
): Promise<number> {
  const match =
    "fingerprint" in who
      ? eq(viewerStats.fingerprint, who.fingerprint)
      : eq(viewerStats.tputHash, who.tputHash);
  // The per-client caps' bookkeeping holds the same identifier for a few days (tally.ts): it goes too.
  const dimension = "fingerprint" in who ? "fingerprint@%" : "tput@%";
  const value = "fingerprint" in who ? who.fingerprint : who.tputHash;
  const [result] = await db.batch([
    db.delete(viewerStats).where(and(eq(viewerStats.organizationId, organizationId), match)),
    db
      .delete(dimensionValues)
      .where(
        and(
          eq(dimensionValues.organizationId, organizationId),
          like(dimensionValues.dimension, dimension),
          eq(dimensionValues.value, value),
        ),
      ),
  ]);
  return result.meta.changes ?? 0;
}

/** Content keys a viewer (by tput hash) has consented rows for, any day (E6 watchedByTput). */
export async function watchedContentKeys(
  db: StatsDb,
  organizationId: number,
  tputHash: string,
): Promise<string[]> {
  const rows = await db
    .selectDistinct({ contentKey: viewerStats.contentKey })
    .from(viewerStats)
    .where(and(eq(viewerStats.organizationId, organizationId), eq(viewerStats.tputHash, tputHash)));
  return rows.map((r) => r.contentKey);
}

/** The next organization id above `afterId` that has viewer rows (an index seek), or null. */
async function nextViewerOrganization(db: StatsDb, afterId: number): Promise<number | null> {
  const [row] = await db
    .select({ id: viewerStats.organizationId })
    .from(viewerStats)
    .where(gt(viewerStats.organizationId, afterId))
    .orderBy(asc(viewerStats.organizationId))
    .limit(1);
  return row?.id ?? null;
}

/**
 * Retention: deletes viewer rows of days before `beforeDay`, organization by organization
 * (each an index range on (organization_id, date)), at most `budget` rows per call so one cron
 * run stays short; the next run goes on. Returns how many rows went.
 */
export async function purgeViewerRowsBefore(
  db: StatsDb,
  beforeDay: string,
  budget: number,
): Promise<number> {
  let purged = 0;
  for (
    let org = await nextViewerOrganization(db, 0);
    org !== null && purged < budget;
    org = await nextViewerOrganization(db, org)
  ) {
    const old = db
      .select({ rowid: sql`rowid` })
      .from(viewerStats)
      .where(and(eq(viewerStats.organizationId, org), lt(viewerStats.date, beforeDay)))
      .limit(budget - purged);
    const result = await db.delete(viewerStats).where(sql`rowid in ${old}`);
    purged += result.meta.changes ?? 0;
  }
  return purged;
}
