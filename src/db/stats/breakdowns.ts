// Organization-wide video totals over a date range, grouped by day, country or device: the
// console's plays chart and breakdowns. One range scan of video_stats_key_idx (organization_id,
// date, ...), grouped in SQLite; at most a row per day, country or device type comes back.
import { and, between, eq, sql } from "drizzle-orm";
import { inList } from "../client";
import type { StatsDb } from "./client";
import { videoStats } from "./schema";

export const TOTALS_GROUPS = {
  day: videoStats.date,
  country: videoStats.country,
  device: videoStats.videoDeviceType,
} as const;
export type TotalsGroup = keyof typeof TOTALS_GROUPS;

/** `keys`: only these content keys (a sub-organization's); an empty list sums nothing. */
export async function videoTotals(
  db: StatsDb,
  scope: { organizationId: number; start: string; end: string; keys?: readonly string[] },
  by: TotalsGroup,
) {
  const { organizationId, start, end, keys } = scope;
  const key = TOTALS_GROUPS[by];
  return db
    .select({
      key: sql<string>`${key}`.as("key"),
      video_impression: sql<number>`sum(${videoStats.video_impression})`.as("video_impression"),
      video_played: sql<number>`sum(${videoStats.video_played})`.as("video_played"),
      played_30s: sql<number>`sum(${videoStats.played_30s})`.as("played_30s"),
      video_ended: sql<number>`sum(${videoStats.video_ended})`.as("video_ended"),
    })
    .from(videoStats)
    .where(
      and(
        eq(videoStats.organizationId, organizationId),
        between(videoStats.date, start, end),
        keys === undefined ? undefined : inList(videoStats.contentKey, keys),
      ),
    )
    .groupBy(key)
    .orderBy(by === "day" ? key : sql`video_played desc, key`);
}
