// The scheduled handler's feed work. Cron delivery is at least once, so every step is
// idempotent; each run is bounded (FEED_CRON_BUDGET rebuilds) and the next run resumes.
//   1. Videos whose syndication window opened or closed since the last run mark their feeds dirty.
//   2. Dirty feeds are rebuilt, oldest mark first (this also completes rebuilds that a failed
//      waitUntil left behind).
//   3. A slice of every feed (FEED_RECONCILE_BATCH, in id order, cursor kept) is rebuilt, so any
//      drift is repaired periodically; unchanged files are not rewritten.
import { videosWithWindowChanges } from "../db/catalog";
import { feedsAfter } from "../db/feeds";
import { readState, writeState } from "../db/cron-state";
import type { Config } from "../config";
import { addStats, publishOrgFeedList, rebuildDirtyFeeds, rebuildFeed, type PublishDeps, type PublishStats } from "./feed-publisher";
import { markFeedsOfVideos } from "./feeds";

const WINDOWS_CHECKED = "windows_checked_until";
const RECONCILE_CURSOR = "reconcile_after_feed_id";

export interface CronReport extends PublishStats {
  windowVideos: number;
  reconciled: number;
  reconcileCursor: number;
}

export async function runFeedCron(deps: PublishDeps, config: Pick<Config, "feedCronBudget" | "feedReconcileBatch">): Promise<CronReport> {
  const now = deps.now.toISOString();
  const since = (await readState(deps.db, WINDOWS_CHECKED)) ?? new Date(deps.now.getTime() - 3600_000).toISOString();
  const changed = await videosWithWindowChanges(deps.db, since, now);
  const byOrg = new Map<number, typeof changed>();
  for (const v of changed) byOrg.set(v.organizationId, [...(byOrg.get(v.organizationId) ?? []), v]);
  for (const [organizationId, versions] of byOrg) await markFeedsOfVideos(deps.db, organizationId, versions, now);
  await writeState(deps.db, WINDOWS_CHECKED, now);

  let stats = await rebuildDirtyFeeds(deps, config.feedCronBudget);

  const budgetLeft = Math.min(config.feedReconcileBatch, config.feedCronBudget - stats.feeds);
  let cursor = Number((await readState(deps.db, RECONCILE_CURSOR)) ?? 0);
  let reconciled = 0;
  if (budgetLeft > 0) {
    const slice = await feedsAfter(deps.db, cursor, budgetLeft);
    const orgs = new Set<number>();
    for (const feed of slice) {
      stats = addStats(stats, await rebuildFeed(deps, feed));
      orgs.add(feed.organizationId);
      reconciled += 1;
    }
    for (const organizationId of orgs) await publishOrgFeedList(deps, organizationId);
    // Wrap around once the end is reached.
    cursor = slice.length < budgetLeft ? 0 : slice[slice.length - 1]!.id;
    await writeState(deps.db, RECONCILE_CURSOR, String(cursor));
  }
  return { ...stats, windowVideos: changed.length, reconciled, reconcileCursor: cursor };
}
