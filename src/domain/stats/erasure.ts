// Erasing statistics: an organization's when it is deleted (the operator API), and viewer rows
// past their retention period (the cron). Viewer-level rows are personal data kept only with
// consent (viewers.ts); the totals carry no identities and stay.
import type { Db } from "../../db/client";
import { deleteOrganizationStatistics } from "../../db/stats/erasure";
import { everyStatsShard } from "../../db/stats/shards";
import { purgeViewerRowsBefore } from "../../db/stats/viewers";

/** Viewer rows deleted per cron run at most; the next run goes on. */
export const VIEWER_PURGE_ROWS_PER_RUN = 10_000;

/** Every shard: the organization's, and any a move left a copy or rows in. */
export async function eraseOrganizationStatistics(db: Db, organizationId: number): Promise<void> {
  await Promise.all(
    everyStatsShard(db).map(({ db: stats }) => deleteOrganizationStatistics(stats, organizationId)),
  );
}

/** The first day kept: the same calendar day `months` months before `now` (clamped to the month's end). */
export function retentionStart(now: Date, months: number): string {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(now.getUTCDate(), lastDay))).toISOString().slice(0, 10);
}

/** Deletes viewer rows of days before the retention period (VIEWER_ROWS_RETENTION_MONTHS). */
export async function purgeExpiredViewerRows(
  db: Db,
  now: Date,
  months: number,
): Promise<{ before: string; purged: number }> {
  const before = retentionStart(now, months);
  const purged = await Promise.all(
    everyStatsShard(db).map(({ db: stats }) =>
      purgeViewerRowsBefore(stats, before, VIEWER_PURGE_ROWS_PER_RUN),
    ),
  );
  return { before, purged: purged.reduce((a, b) => a + b, 0) };
}
